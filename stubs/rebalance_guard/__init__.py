"""KIP-1306 rebalance listeners for Python's Kafka clients.

Callbacks receive a restricted ``RebalanceConsumer`` view that is valid only while the
callback runs. One module per client: ``rebalance_guard.kafka_python``,
``rebalance_guard.aiokafka`` and ``rebalance_guard.confluent_kafka``.

Every adapter logs each callback on the ``rebalance_guard`` logger (one record, at DEBUG by
default) and warns when one runs longer than a second; :class:`CallbackLogging` on a listener
changes both.
:func:`chain_callback` hands a callback on to another listener from inside one's own (with
the view where that listener's method takes it, else as before).

This package imports nothing but the standard library and the client it adapts.
"""

from rebalance_guard._chain import chain_callback
from rebalance_guard._errors import RebalanceViewExpiredError
from rebalance_guard._observe import CallbackLogging

__version__ = "0.1.0"

__all__ = ["CallbackLogging", "RebalanceViewExpiredError", "__version__", "chain_callback"]
