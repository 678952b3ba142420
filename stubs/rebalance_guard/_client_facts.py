"""What each Kafka client API calls things and offers: the one table of client facts.

The lint analysis (``rebalance_lint.analysis.clients``) and the codemods
(``rebalance_codemods.clients``) read this table instead of keeping lists of their own.
Standard library only and imports no client, so both can read it without loading Kafka;
``tests/lint/test_client_facts.py`` holds it to the runtime: each row's ``view_methods`` are
exactly the members of that client's ``RebalanceConsumer`` Protocol, its coroutine view
methods are the Protocol's ``async def`` ones, and :data:`OMITTED_METHODS` is
``rebalance_guard._view.OMITTED``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

#: The KIP-1306 listener methods, in the order assigned, revoked, lost.
CALLBACK_METHODS = ("on_partitions_assigned", "on_partitions_revoked", "on_partitions_lost")

#: confluent's ``subscribe()`` callback keywords (also positions 1-3) -> the listener method.
SUBSCRIBE_CALLBACKS = {
    "on_assign": "on_partitions_assigned",
    "on_revoke": "on_partitions_revoked",
    "on_lost": "on_partitions_lost",
}

#: Consumer methods a rebalance view never offers (KIP-1306 "omitted"), every client's names.
OMITTED_METHODS = frozenset(
    {
        "poll", "consume", "getone", "getmany", "close", "stop", "start", "subscribe",
        "unsubscribe", "assign", "unassign", "incremental_assign", "incremental_unassign",
        "wakeup", "enforce_rebalance", "__iter__", "__next__", "__aiter__", "__anext__",
    }
)  # fmt: skip

#: The consumer methods that commit offsets, in any client.
COMMIT_METHODS = frozenset({"commit", "commit_async", "commit_sync"})

#: The view methods every client offers (KIP-1306's core, same names everywhere).
_CORE_VIEW = frozenset(
    {"commit", "committed", "position", "seek", "assignment", "pause", "resume",
     "offsets_for_times"}
)  # fmt: skip
#: The Java-style clients' further view methods (kafka-python, aiokafka).
_JAVA_STYLE_VIEW = _CORE_VIEW | {
    "seek_to_beginning", "seek_to_end", "paused", "beginning_offsets", "end_offsets",
    "partitions_for_topic", "topics", "highwater",
}  # fmt: skip
#: confluent's further view methods, in its own names (both of its consumer APIs).
_CONFLUENT_VIEW = _CORE_VIEW | {"get_watermark_offsets", "list_topics", "consumer_group_metadata"}

#: Consumer methods anyone would call on some client's consumer, permitted on the view or not:
#: a callback calling one of these drives a consumer.
CONSUMER_METHODS = frozenset(
    {name for name in OMITTED_METHODS if not name.startswith("__")}
    | _JAVA_STYLE_VIEW
    | _CONFLUENT_VIEW
    | {"commit_async", "last_stable_offset", "memberid", "store_offsets"}
)

ClientKey = Literal["kafka_python", "aiokafka", "confluent", "confluent_aio"]


@dataclass(frozen=True)
class ClientFacts:
    """One consumer API of one Kafka client (a row of the table)."""

    #: The identifier the analysis and the codemods use for this API.
    key: ClientKey
    #: How the client names itself (its distribution, plus the API where one has two).
    name: str
    #: Top-level package whose import marks a file as using this client.
    package: str
    #: Module that defines the consumer classes (``package`` itself or a submodule of it).
    consumer_module: str
    #: The client's consumer classes.
    consumer_classes: frozenset[str]
    #: The client's own listener base classes whose callbacks take ``(partitions)``.
    listener_bases: frozenset[str]
    #: Listener bases whose callbacks the client awaits (kafka-python 3's async base).
    async_listener_bases: frozenset[str]
    #: How callbacks reach the client: a listener object, or confluent's ``on_assign=``... .
    registration: Literal["listener", "callbacks"]
    #: ``rebalance_guard`` module for this API, which migrated code imports from.
    guard_module: str
    #: Whether importing ``guard_module`` imports the client (and fails without it): then
    #: code importing the client only inside a function imports it there too.
    guard_imports_client: bool
    #: Names of ``guard_module`` whose access imports the client (its module ``__getattr__``
    #: serves them on first access: classes subclassing the client's), so importing one by
    #: name does too. Its other names import the client only when called, if at all.
    guard_names_importing_client: frozenset[str]
    #: ``rebalance_guard`` consumer classes (subclasses of the client's) in ``guard_module``.
    guard_consumer_classes: frozenset[str]
    #: How ``guard_module`` registers a listener.
    guard_registration: Literal["set_rebalance_listener", "subscribe"]
    #: Methods the rebalance view offers: the members of ``RebalanceConsumer``.
    view_methods: frozenset[str]
    #: Consumer methods that are coroutines (not awaiting one drops the call).
    coroutine_methods: frozenset[str]
    #: Consumer methods that block on kafka-python 3's IO thread (raise from a sync listener).
    io_thread_blocking: frozenset[str]
    #: Whether ``guard_module``'s listener methods may be ``async def``.
    async_callbacks: bool

    @property
    def guard_listener(self) -> str:
        return f"{self.guard_module}.RebalanceListener"


KAFKA_PYTHON = ClientFacts(
    key="kafka_python",
    name="kafka-python",
    package="kafka",
    consumer_module="kafka",
    consumer_classes=frozenset({"KafkaConsumer"}),
    listener_bases=frozenset({"ConsumerRebalanceListener"}),
    async_listener_bases=frozenset({"AsyncConsumerRebalanceListener"}),
    registration="listener",
    guard_module="rebalance_guard.kafka_python",
    guard_imports_client=False,
    guard_names_importing_client=frozenset(),
    guard_consumer_classes=frozenset(),
    guard_registration="set_rebalance_listener",
    view_methods=_JAVA_STYLE_VIEW | {"commit_async", "group_metadata"},
    coroutine_methods=frozenset(),
    io_thread_blocking=frozenset(
        {
            "commit",
            "committed",
            "position",
            "offsets_for_times",
            "beginning_offsets",
            "end_offsets",
            "topics",
        }
    ),
    async_callbacks=False,
)

AIOKAFKA = ClientFacts(
    key="aiokafka",
    name="aiokafka",
    package="aiokafka",
    consumer_module="aiokafka",
    consumer_classes=frozenset({"AIOKafkaConsumer"}),
    listener_bases=frozenset({"ConsumerRebalanceListener"}),
    async_listener_bases=frozenset(),
    registration="listener",
    guard_module="rebalance_guard.aiokafka",
    guard_imports_client=False,
    guard_names_importing_client=frozenset(),
    guard_consumer_classes=frozenset(),
    guard_registration="set_rebalance_listener",
    view_methods=_JAVA_STYLE_VIEW | {"last_stable_offset"},
    coroutine_methods=frozenset(
        {
            "commit",
            "committed",
            "position",
            "seek_to_beginning",
            "seek_to_end",
            "seek_to_committed",
            "offsets_for_times",
            "beginning_offsets",
            "end_offsets",
            "topics",
            "getone",
            "getmany",
            "start",
            "stop",
        }
    ),
    io_thread_blocking=frozenset(),
    async_callbacks=True,
)

CONFLUENT = ClientFacts(
    key="confluent",
    name="confluent-kafka",
    package="confluent_kafka",
    consumer_module="confluent_kafka",
    consumer_classes=frozenset({"Consumer", "DeserializingConsumer"}),
    listener_bases=frozenset(),
    async_listener_bases=frozenset(),
    registration="callbacks",
    guard_module="rebalance_guard.confluent_kafka",
    guard_imports_client=False,
    guard_names_importing_client=frozenset(
        {"Consumer", "ConfluentRebalanceView", "ConfluentCallback"}
    ),
    guard_consumer_classes=frozenset({"Consumer"}),
    guard_registration="subscribe",
    view_methods=_CONFLUENT_VIEW | {"memberid"},
    coroutine_methods=frozenset(),
    io_thread_blocking=frozenset(),
    async_callbacks=False,
)

#: confluent-kafka's asyncio consumer (issue 10): every method is a coroutine, callbacks are
#: ``async def`` and get the whole AIOConsumer. ``guard_module`` is where its runtime goes.
CONFLUENT_AIO = ClientFacts(
    key="confluent_aio",
    name="confluent-kafka AIOConsumer",
    package="confluent_kafka",
    consumer_module="confluent_kafka.aio",
    consumer_classes=frozenset({"AIOConsumer"}),
    listener_bases=frozenset(),
    async_listener_bases=frozenset(),
    registration="callbacks",
    guard_module="rebalance_guard.confluent_kafka_aio",
    guard_imports_client=False,
    guard_names_importing_client=frozenset({"AIOConsumer", "AIOConfluentRebalanceView"}),
    guard_consumer_classes=frozenset(),
    guard_registration="subscribe",
    view_methods=_CONFLUENT_VIEW,
    coroutine_methods=frozenset(
        {
            "assign",
            "assignment",
            "close",
            "cluster_id",
            "commit",
            "committed",
            "consume",
            "consumer_group_metadata",
            "get_watermark_offsets",
            "incremental_assign",
            "incremental_unassign",
            "list_topics",
            "offsets_for_times",
            "pause",
            "poll",
            "position",
            "resume",
            "seek",
            "set_sasl_credentials",
            "store_offsets",
            "subscribe",
            "unassign",
            "unsubscribe",
        }
    ),
    io_thread_blocking=frozenset(),
    async_callbacks=True,
)

#: Every client API, by key.
CLIENTS: dict[ClientKey, ClientFacts] = {
    facts.key: facts for facts in (KAFKA_PYTHON, AIOKAFKA, CONFLUENT, CONFLUENT_AIO)
}

#: The kafka-python async view's coroutine methods (``AsyncRebalanceConsumer``): what blocks on
#: kafka-python 3's IO thread, plus ``partitions_for_topic`` (it fetches metadata it lacks).
#: Its other methods are the sync view's; ``commit_async`` returns kafka-python's awaitable Future.
KAFKA_PYTHON_ASYNC_VIEW_COROUTINES = KAFKA_PYTHON.io_thread_blocking | {"partitions_for_topic"}
