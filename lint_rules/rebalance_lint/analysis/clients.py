"""What the three Kafka clients and rebalance_guard call things, by fully qualified name.

Names are matched by top-level package and final attribute, so every re-export spelling
(``kafka.ConsumerRebalanceListener``, ``kafka.consumer.subscription_state.…``,
``aiokafka.abc.…``) resolves to the same thing.
"""

from __future__ import annotations

from typing import Literal

from rebalance_guard._view import OMITTED

Client = Literal["kafka_python", "aiokafka", "confluent"]

#: rebalance_guard module per client (DESIGN.md: one module per client).
GUARD_MODULE: dict[Client, str] = {
    "kafka_python": "kafka_python",
    "aiokafka": "aiokafka",
    "confluent": "confluent_kafka",
}
CLIENT_LABEL: dict[Client, str] = {
    "kafka_python": "kafka-python",
    "aiokafka": "aiokafka",
    "confluent": "confluent-kafka",
}
_TOP_PACKAGE: dict[str, Client] = {
    "kafka": "kafka_python",
    "aiokafka": "aiokafka",
    "confluent_kafka": "confluent",
}
_CONSUMER_CLASSES: dict[Client, frozenset[str]] = {
    "kafka_python": frozenset({"KafkaConsumer"}),
    "aiokafka": frozenset({"AIOKafkaConsumer"}),
    "confluent": frozenset({"Consumer", "DeserializingConsumer"}),
}
_GUARD_BY_MODULE: dict[str, Client] = {module: client for client, module in GUARD_MODULE.items()}

#: Consumer methods KIP-1306 leaves off the view (DESIGN.md "Omitted"); KRB101. The runtime
#: views refuse the same set, so it is defined once, in rebalance_guard (stdlib-only import).
FORBIDDEN = frozenset(name for name in OMITTED if not name.startswith("__"))
#: kafka-python calls that block on the IO thread (``net.run``); KRB105.
KAFKA_PYTHON_BLOCKING = frozenset(
    {"commit", "committed", "position", "offsets_for_times", "beginning_offsets",
     "end_offsets", "topics"}
)  # fmt: skip
#: aiokafka consumer methods that are coroutines; KRB106.
AIOKAFKA_COROUTINES = frozenset(
    {"commit", "committed", "position", "seek_to_beginning", "seek_to_end",
     "seek_to_committed", "offsets_for_times", "beginning_offsets", "end_offsets",
     "topics", "getone", "getmany", "start", "stop"}
)  # fmt: skip
COMMITS = frozenset({"commit", "commit_async", "commit_sync"})


def _split(qualname: str) -> tuple[str, str]:
    top, _, _ = qualname.partition(".")
    return top, qualname.rpartition(".")[2]


def client_listener_base(qualname: str) -> tuple[Client, bool] | None:
    """(client, is_async_base) for a client's own listener base class."""
    top, last = _split(qualname)
    client = _TOP_PACKAGE.get(top)
    if client == "kafka_python" and last == "AsyncConsumerRebalanceListener":
        return client, True
    if client in ("kafka_python", "aiokafka") and last == "ConsumerRebalanceListener":
        return client, False
    return None


def guard_member(qualname: str, name: str) -> Client | None:
    """The client of ``rebalance_guard.<client module>.<name>``."""
    parts = qualname.split(".")
    if len(parts) == 3 and parts[0] == "rebalance_guard" and parts[2] == name:
        return _GUARD_BY_MODULE.get(parts[1])
    return None


def consumer_class(qualname: str) -> Client | None:
    """The client of a consumer class such as ``kafka.KafkaConsumer``."""
    if guard_member(qualname, "Consumer") == "confluent":
        return "confluent"  # rebalance_guard.confluent_kafka.Consumer, a confluent subclass
    top, last = _split(qualname)
    client = _TOP_PACKAGE.get(top)
    if client is not None and last in _CONSUMER_CLASSES[client]:
        return client
    return None
