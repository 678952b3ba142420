"""What the codemods need to know about each client: legacy bases, target module, view methods.

The permitted-method sets mirror each ``rebalance_guard`` module's ``RebalanceConsumer``
Protocol (a test keeps them in step); they are spelled out here so the codemods never import
a Kafka client.
"""

from __future__ import annotations

from dataclasses import dataclass

CALLBACKS = ("on_partitions_assigned", "on_partitions_revoked", "on_partitions_lost")

#: Consumer methods anyone would call on a consumer, permitted or not: used to notice that a
#: callback drives a consumer it got from somewhere the codemod cannot follow.
CONSUMER_METHODS = frozenset(
    {
        "poll", "consume", "getone", "getmany", "close", "stop", "start", "subscribe",
        "unsubscribe", "assign", "unassign", "incremental_assign", "incremental_unassign",
        "wakeup", "enforce_rebalance", "commit", "commit_async", "committed", "position",
        "seek", "seek_to_beginning", "seek_to_end", "assignment", "pause", "resume", "paused",
        "beginning_offsets", "end_offsets", "offsets_for_times", "partitions_for_topic",
        "topics", "list_topics", "highwater", "last_stable_offset", "store_offsets",
        "get_watermark_offsets", "consumer_group_metadata", "memberid",
    }
)  # fmt: skip


@dataclass(frozen=True)
class Client:
    """One Kafka client as the codemods see it."""

    name: str
    #: Top-level package whose import marks a file as using this client.
    package: str
    #: ``rebalance_guard`` module the migrated code imports from.
    guard_module: str
    #: The client's name in ``rebalance_lint`` (whose import resolution finds listener bases).
    lint_name: str
    #: Methods the rebalance view offers (``RebalanceConsumer`` members).
    view_methods: frozenset[str]
    #: Whether listener callbacks may be ``async def``.
    async_callbacks: bool

    @property
    def guard_listener(self) -> str:
        return f"{self.guard_module}.RebalanceListener"


KAFKA_PYTHON = Client(
    name="kafka-python",
    package="kafka",
    guard_module="rebalance_guard.kafka_python",
    lint_name="kafka_python",
    view_methods=frozenset(
        {
            "commit",
            "commit_async",
            "committed",
            "position",
            "seek",
            "seek_to_beginning",
            "seek_to_end",
            "assignment",
            "pause",
            "resume",
            "paused",
            "beginning_offsets",
            "end_offsets",
            "offsets_for_times",
            "partitions_for_topic",
            "topics",
            "highwater",
            "group_metadata",
        }
    ),
    async_callbacks=False,
)

AIOKAFKA = Client(
    name="aiokafka",
    package="aiokafka",
    guard_module="rebalance_guard.aiokafka",
    lint_name="aiokafka",
    view_methods=frozenset(
        {
            "commit",
            "committed",
            "position",
            "seek",
            "seek_to_beginning",
            "seek_to_end",
            "assignment",
            "pause",
            "resume",
            "paused",
            "beginning_offsets",
            "end_offsets",
            "offsets_for_times",
            "partitions_for_topic",
            "topics",
            "highwater",
            "last_stable_offset",
        }
    ),
    async_callbacks=True,
)

LISTENER_CLIENTS = (KAFKA_PYTHON, AIOKAFKA)

CONFLUENT = Client(
    name="confluent-kafka",
    package="confluent_kafka",
    guard_module="rebalance_guard.confluent_kafka",
    lint_name="confluent",
    view_methods=frozenset(
        {
            "commit",
            "committed",
            "position",
            "seek",
            "assignment",
            "pause",
            "resume",
            "get_watermark_offsets",
            "offsets_for_times",
            "list_topics",
            "consumer_group_metadata",
            "memberid",
        }
    ),
    async_callbacks=False,
)

#: confluent's subscribe() callback keywords (also positions 1-3) and the listener methods.
CONFLUENT_CALLBACKS = {
    "on_assign": "on_partitions_assigned",
    "on_revoke": "on_partitions_revoked",
    "on_lost": "on_partitions_lost",
}
