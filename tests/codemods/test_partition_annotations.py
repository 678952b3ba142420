# ruff: noqa: E501  (the "after" strings are the codemod's exact output; LibCST does not wrap)
"""A legacy callback whose partitions are annotated with a collection the KIP-1306 base does
not declare (``shapes/partition_annotations.py``): the clients' own bases are untyped, so
``revoked: set[TopicPartition]`` type-checked; the migrated override gets the base's
collection (aiokafka ``AbstractSet``, kafka-python ``set``) with the element type kept, else
mypy reports [override] and pyright reportIncompatibleMethodOverride (the fixture
``partition_annotations.py`` is type-checked before and after by
test_migrated_type_checks.py; it failed there before this shape)."""

from __future__ import annotations

import textwrap

import pytest
from rebalance_codemods.api import migrate_source

AIOKAFKA = """
from typing import Iterable, List, Sequence
import typing

from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener, TopicPartition


class Listener(ConsumerRebalanceListener):
    async def on_partitions_revoked(self, revoked: {annotation}) -> None:
        print(revoked)


consumer = AIOKafkaConsumer(group_id="g")
consumer.subscribe(["a"], listener=Listener())
"""

KAFKA_PYTHON = AIOKAFKA.replace("from aiokafka import AIOKafkaConsumer,", "from kafka import KafkaConsumer as AIOKafkaConsumer,").replace("async def", "def")


def _annotation(template: str, annotation: str) -> str:
    source = textwrap.dedent(template.format(annotation=annotation))
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok" and not result.manual, result
    assert result.new_source is not None
    assert migrate_source(result.new_source, "app.py").new_source is None  # idempotent
    after = result.new_source.decode()
    line = next(line for line in after.splitlines() if "def on_partitions_revoked" in line)
    return line.partition("revoked: ")[2].partition(", consumer")[0]


@pytest.mark.parametrize(
    ("annotation", "migrated"),
    [
        ("set[TopicPartition]", "AbstractSet[TopicPartition]"),
        ("List[TopicPartition]", "AbstractSet[TopicPartition]"),
        ("typing.List[TopicPartition]", "AbstractSet[TopicPartition]"),
        ("frozenset[TopicPartition]", "AbstractSet[TopicPartition]"),
        ("list", "AbstractSet"),
        ("Sequence[TopicPartition]", "AbstractSet[TopicPartition]"),
        # what the base's type already satisfies, or what is not plainly a collection
        ("Iterable[TopicPartition]", "Iterable[TopicPartition]"),
        ("typing.AbstractSet[TopicPartition]", "typing.AbstractSet[TopicPartition]"),
        ('"set[TopicPartition]"', '"set[TopicPartition]"'),
        ("set[TopicPartition] | None", "set[TopicPartition] | None"),
    ],
)
def test_aiokafka_callbacks_get_the_bases_abstract_set(annotation: str, migrated: str) -> None:
    assert _annotation(AIOKAFKA, annotation) == migrated


@pytest.mark.parametrize(
    ("annotation", "migrated"),
    [
        ("List[TopicPartition]", "set[TopicPartition]"),
        ("Sequence[TopicPartition]", "set[TopicPartition]"),
        ("list", "set"),
        ("set[TopicPartition]", "set[TopicPartition]"),  # the base's own
        ("typing.AbstractSet[TopicPartition]", "typing.AbstractSet[TopicPartition]"),
        ("Iterable[TopicPartition]", "Iterable[TopicPartition]"),
    ],
)
def test_kafka_python_callbacks_get_the_bases_set(annotation: str, migrated: str) -> None:
    assert _annotation(KAFKA_PYTHON, annotation) == migrated


def test_the_replaced_collection_import_goes_when_unused() -> None:
    source = textwrap.dedent(AIOKAFKA.format(annotation="List[TopicPartition]"))
    source = source.replace("from typing import Iterable, List, Sequence\nimport typing\n", "from typing import List\n")
    result = migrate_source(source.encode(), "app.py")
    assert result.new_source is not None
    after = result.new_source.decode()
    assert "from typing import List" not in after
    assert "from collections.abc import Set as AbstractSet\n" in after


def test_a_file_binding_abstract_set_otherwise_keeps_the_annotation() -> None:
    source = textwrap.dedent(AIOKAFKA.format(annotation="set[TopicPartition]")) + "\nAbstractSet = frozenset\n"
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok" and result.new_source is not None
    assert "revoked: set[TopicPartition], consumer" in result.new_source.decode()


def test_the_declared_collection_is_read_from_each_listener_base() -> None:
    """One source of truth: the shape writes what each client's ``RebalanceListener`` declares
    (read from its module's source), here checked against the imported class itself."""
    import importlib

    from rebalance_guard._client_facts import CLIENTS
    from rebalance_lint.analysis.shapes.partition_annotations import declared

    listener_clients = [c for c in CLIENTS.values() if c.registration == "listener"]
    assert listener_clients
    for client in listener_clients:
        name, imported = declared(client)
        module = importlib.import_module(client.guard_module)
        for method in ("on_partitions_assigned", "on_partitions_revoked", "on_partitions_lost"):
            annotation = getattr(module.RebalanceListener, method).__annotations__["partitions"]
            assert annotation.partition("[")[0] == name, (client.key, method, annotation)
        if imported is not None:
            source, original, local = imported
            assert getattr(module, local) is getattr(importlib.import_module(source), original)
        else:
            assert name in ("set", "frozenset", "list")


HELPER = """
from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener, TopicPartition


def drop(revoked: set[TopicPartition]) -> None:
    {body}


class Listener(ConsumerRebalanceListener):
    async def on_partitions_revoked(self, revoked: set[TopicPartition]) -> None:
        {call}


consumer = AIOKafkaConsumer(group_id="g")
consumer.subscribe(["a"], listener=Listener())
"""


def _helper_annotation(body: str, call: str = "drop(revoked)") -> str:
    source = HELPER.format(body=body, call=call)
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok" and not result.manual, result
    assert result.new_source is not None
    after = result.new_source.decode()
    assert "revoked: AbstractSet[TopicPartition], consumer" in after  # the callback's
    return after.partition("def drop(revoked: ")[2].partition(")")[0]


@pytest.mark.parametrize(
    "body",
    [
        "for tp in revoked: print(tp)",
        "print([tp.partition for tp in revoked if tp.topic])",
        "print(len(revoked), sorted(revoked), f'{revoked}')",
        "if not revoked or len(revoked) > 3: return",
        "x = 1 if revoked else 2",
        "print(TopicPartition('a', 0) not in revoked)",
    ],
)
def test_a_helper_that_only_reads_the_partitions_gets_the_declared_collection(body: str) -> None:
    """shapes/partition_helpers.py: the helper the callback hands its partitions to is
    widened with it, so the call type-checks (tests/codemods/fixtures/partition_helpers.py is
    type-checked before and after)."""
    assert _helper_annotation(body) == "AbstractSet[TopicPartition]"


@pytest.mark.parametrize(
    ("body", "call"),
    [
        ("revoked.clear()", "drop(revoked)"),  # a set's own method: not on AbstractSet
        ("keep = revoked", "drop(revoked)"),  # kept: its type matters elsewhere
        ("other(revoked)", "drop(revoked)"),  # handed on to what the shape does not read
        ("print(revoked)", "self.drop(revoked)"),  # a method call, but drop is a function
        ("print(revoked)", "drop(*[revoked])"),  # not the parameter itself
    ],
)
def test_any_other_helper_keeps_its_annotation(body: str, call: str) -> None:
    assert _helper_annotation(body, call) == "set[TopicPartition]"
