"""What the Kafka clients and rebalance_guard call things, by fully qualified name.

The facts come from the one client table, :mod:`rebalance_guard._client_facts`; this module
only answers the analysis's questions with them. Names are matched by top-level package and
final attribute, so every re-export spelling (``kafka.ConsumerRebalanceListener``,
``kafka.consumer.subscription_state.…``, ``aiokafka.abc.…``) resolves to the same thing.
"""

from __future__ import annotations

from typing import Literal

from rebalance_guard._client_facts import (
    AIOKAFKA,
    COMMIT_METHODS,
    CONFLUENT,
    CONFLUENT_AIO,
    KAFKA_PYTHON,
    OMITTED_METHODS,
    ClientFacts,
)

#: The client APIs the analysis recognises.
Client = Literal["kafka_python", "aiokafka", "confluent", "confluent_aio"]
_ANALYSED: dict[Client, ClientFacts] = {
    "kafka_python": KAFKA_PYTHON,
    "aiokafka": AIOKAFKA,
    "confluent": CONFLUENT,
    "confluent_aio": CONFLUENT_AIO,
}

#: rebalance_guard module per client (DESIGN.md: one module per client), without the package.
GUARD_MODULE: dict[Client, str] = {
    client: facts.guard_module.removeprefix("rebalance_guard.")
    for client, facts in _ANALYSED.items()
}
CLIENT_LABEL: dict[Client, str] = {client: facts.name for client, facts in _ANALYSED.items()}
#: The first API per package: confluent's Consumer, not AIOConsumer, stands for confluent_kafka.
_TOP_PACKAGE: dict[str, Client] = {}
for _client, _facts in _ANALYSED.items():
    _TOP_PACKAGE.setdefault(_facts.package, _client)
_GUARD_BY_MODULE: dict[str, Client] = {module: client for client, module in GUARD_MODULE.items()}

#: Consumer methods KIP-1306 leaves off the view (DESIGN.md "Omitted"); KRB101. The runtime
#: views refuse the same set (a test holds the table to ``rebalance_guard._view.OMITTED``).
FORBIDDEN = frozenset(name for name in OMITTED_METHODS if not name.startswith("__"))
#: kafka-python calls that block on the IO thread (``net.run``); KRB105.
KAFKA_PYTHON_BLOCKING = KAFKA_PYTHON.io_thread_blocking
#: aiokafka consumer methods that are coroutines; KRB106.
AIOKAFKA_COROUTINES = AIOKAFKA.coroutine_methods
COMMITS = COMMIT_METHODS
#: Clients whose consumer methods are coroutines (a dropped call never runs); KRB106.
COROUTINE_METHODS: dict[Client, frozenset[str]] = {
    client: facts.coroutine_methods
    for client, facts in _ANALYSED.items()
    if facts.coroutine_methods
}


def guard_name(client: Client | None, name: str) -> str:
    """``rebalance_guard.kafka_python.<name>``; when the client is not known (a file using both
    listener clients), every listener client's spelling, never a placeholder."""
    clients: tuple[Client, ...] = (client,) if client else ("kafka_python", "aiokafka")
    return " or ".join(f"rebalance_guard.{GUARD_MODULE[c]}.{name}" for c in clients)


def _split(qualname: str) -> tuple[str, str]:
    top, _, _ = qualname.partition(".")
    return top, qualname.rpartition(".")[2]


def client_listener_base(qualname: str) -> tuple[Client, bool] | None:
    """(client, is_async_base) for a client's own listener base class."""
    top, last = _split(qualname)
    client = _TOP_PACKAGE.get(top)
    if client is None:
        return None
    facts = _ANALYSED[client]
    if last in facts.async_listener_bases:
        return client, True
    if last in facts.listener_bases:
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
    for analysed, facts in _ANALYSED.items():
        if any(guard_member(qualname, name) == analysed for name in facts.guard_consumer_classes):
            return analysed  # e.g. rebalance_guard.confluent_kafka.Consumer, a confluent subclass
    top, last = _split(qualname)
    for analysed, facts in _ANALYSED.items():
        if top == facts.package and last in facts.consumer_classes:
            return analysed
    return None


def client_helper_class(qualname: str) -> bool:
    """A class of a client's own package that is not a consumer (``SubscriptionState``).

    Its ``subscribe()`` is the client's internals, never a registration the user wrote.
    """
    top, last = _split(qualname)
    packages = {facts.package for facts in _ANALYSED.values()}
    return top in packages and last[:1].isupper() and consumer_class(qualname) is None


def takes_callbacks(client: Client | None) -> bool:
    """Whether the client's ``subscribe()`` takes ``on_assign``/``on_revoke``/``on_lost``."""
    return client is not None and _ANALYSED[client].registration == "callbacks"


def is_confluent(client: Client | None) -> bool:
    """Either confluent-kafka API (Consumer or AIOConsumer): librdkafka underneath."""
    return client in ("confluent", "confluent_aio")


def wraps_only_keyword_callbacks(client: Client | None) -> bool:
    """AIOConsumer.subscribe() awaits only callbacks passed by keyword (KRB111)."""
    return client == "confluent_aio"
