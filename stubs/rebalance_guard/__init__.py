"""KIP-1306 rebalance listeners for Python's Kafka clients.

Callbacks receive a restricted ``RebalanceConsumer`` view that is valid only while the
callback runs. One module per client: ``rebalance_guard.kafka_python``,
``rebalance_guard.aiokafka`` and ``rebalance_guard.confluent_kafka``.

This package imports nothing but the standard library and the client it adapts.
"""

from rebalance_guard._errors import RebalanceViewExpiredError

__version__ = "0.1.0"

__all__ = ["RebalanceViewExpiredError", "__version__"]
