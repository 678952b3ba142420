from .stream import Stream

__all__ = ["Stream"]
