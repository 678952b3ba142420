"""Listener subclasses may name the callback parameters as they like (issue 12 item 6).

The bases' callback parameters are positional-only, so overrides named ``revoked``,
``assigned`` or ``lost`` (what migrated code keeps) pass mypy --strict and pyright's
reportIncompatibleMethodOverride. Each client also gets a keyword call on its base, which must
be rejected (a coded ignore): that keeps the check from passing if the ``/`` is dropped.
"""

# pyright: reportMissingTypeStubs=false
# (kafka-python and aiokafka ship no py.typed; pyright reads their sources)

from __future__ import annotations

from collections.abc import Set as AbstractSet

import aiokafka.structs
import confluent_kafka
from kafka.structs import TopicPartition as KafkaPartition
from rebalance_guard import aiokafka as guard_aiokafka
from rebalance_guard import confluent_kafka as guard_confluent
from rebalance_guard import kafka_python as guard_kafka


class KafkaPythonListener(guard_kafka.RebalanceListener):
    def on_partitions_assigned(
        self, assigned: set[KafkaPartition], view: guard_kafka.RebalanceConsumer
    ) -> None:
        view.seek_to_beginning(*assigned)

    def on_partitions_revoked(
        self, revoked: set[KafkaPartition], view: guard_kafka.RebalanceConsumer
    ) -> None:
        view.commit()

    def on_partitions_lost(
        self, lost: set[KafkaPartition], view: guard_kafka.RebalanceConsumer
    ) -> None:
        del lost, view


class AiokafkaListener(guard_aiokafka.RebalanceListener):
    async def on_partitions_assigned(
        self,
        assigned: AbstractSet[aiokafka.structs.TopicPartition],
        view: guard_aiokafka.RebalanceConsumer,
    ) -> None:
        await view.seek_to_beginning(*assigned)

    async def on_partitions_revoked(
        self,
        revoked: AbstractSet[aiokafka.structs.TopicPartition],
        view: guard_aiokafka.RebalanceConsumer,
    ) -> None:
        await view.commit()


class ConfluentListener(guard_confluent.RebalanceListener):
    def on_partitions_assigned(
        self,
        assigned: list[confluent_kafka.TopicPartition],
        view: guard_confluent.RebalanceConsumer,
    ) -> None:
        view.pause(assigned)

    def on_partitions_revoked(
        self, revoked: list[confluent_kafka.TopicPartition], view: guard_confluent.RebalanceConsumer
    ) -> None:
        view.commit(asynchronous=False)


def keyword_calls_are_rejected(
    kp: guard_kafka.RebalanceConsumer,
    aio: guard_aiokafka.RebalanceConsumer,
    cf: guard_confluent.RebalanceConsumer,
) -> None:
    kafka_base = guard_kafka.RebalanceListener()
    kafka_base.on_partitions_revoked(partitions=set(), consumer=kp)  # type: ignore[call-arg]
    aiokafka_base = guard_aiokafka.RebalanceListener()
    aiokafka_base.on_partitions_revoked(partitions=set(), consumer=aio)  # type: ignore[call-arg]
    confluent_base = guard_confluent.RebalanceListener()
    confluent_base.on_partitions_revoked(partitions=[], consumer=cf)  # type: ignore[call-arg]
