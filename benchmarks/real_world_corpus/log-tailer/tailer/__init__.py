from .client import TailClient

__all__ = ["TailClient"]
