"""msgbus: one consumer API over confluent-kafka and kafka-python."""
from .handlers import RebalanceHandler

__all__ = ["RebalanceHandler"]
