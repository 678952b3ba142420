# ruff: noqa: E501  (sources and expected lines read best unwrapped)
"""A listener handed to the function of the file that registers it (held_out_9 001:
``connect_kafka_consumer(servers, topic, group, rebalance_listener)`` subscribing with
``listener=rebalance_listener``): the class migrates with the creations every call passes
(``shapes/parameter_listeners.py``). Anything the codemod cannot follow to one class's
creations leaves the class refused as before."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from rebalance_codemods.api import migrate_source
from rebalance_lint import check_source

FIXTURES = Path(__file__).parent / "fixtures"

SOURCE = """
from kafka import ConsumerRebalanceListener, KafkaConsumer


class Handler(ConsumerRebalanceListener):
    def __init__(self, stage):
        self.stage = stage

    def on_partitions_revoked(self, revoked):
        self.stage.flush()

    def on_partitions_assigned(self, assigned):
        pass


{other}def connect(topic, listener{default}):
    consumer = KafkaConsumer(group_id="g")
    consumer.subscribe([topic], listener=listener)
    {extra}return consumer


def main(stage):
    {calls}
"""


OTHER = """class Other(ConsumerRebalanceListener):
    def on_partitions_revoked(self, revoked):
        pass

    def on_partitions_assigned(self, assigned):
        pass


"""


def _migrate(calls: str, default: str = "", extra: str = "") -> tuple[bytes | None, list[str]]:
    other = OTHER if "Other()" in calls else ""
    source = textwrap.dedent(SOURCE.format(calls=calls, default=default, extra=extra, other=other))
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok", result.reason
    return result.new_source, [m.reason for m in result.manual]


def test_the_fixture_migrates_to_its_twin_and_checks_clean() -> None:
    before = (FIXTURES / "parameter_listeners.py").read_bytes()
    result = migrate_source(before, "parameter_listeners.py")
    assert not result.manual, result.manual
    after = (FIXTURES / "migrated" / "parameter_listeners.py").read_bytes()
    assert result.new_source == after
    assert [f.code for f in check_source(after, "parameter_listeners.py").findings] == []
    assert migrate_source(after, "parameter_listeners.py").new_source is None


@pytest.mark.parametrize(
    "calls",
    [
        "listener = Handler(stage)\n    return connect('t', listener)",
        "return connect('t', Handler(stage))",
        "return connect(listener=Handler(stage), topic='t')",
        "a = connect('a', Handler(stage))\n    b = connect('b', Handler(stage))\n    return a, b",
    ],
    ids=["a variable", "a creation", "by keyword", "two calls"],
)
def test_every_call_passing_a_creation_of_the_class_migrates_it(calls: str) -> None:
    after, manual = _migrate(calls)
    assert not manual and after is not None, manual
    text = after.decode()
    assert "class Handler(RebalanceListener):" in text
    assert "def on_partitions_revoked(self, revoked, consumer: RebalanceConsumer):" in text
    assert "    set_rebalance_listener(consumer, listener)\n    consumer.subscribe([topic])\n" in text
    assert migrate_source(after, "app.py").new_source is None, "idempotent"


@pytest.mark.parametrize(
    ("calls", "default", "extra"),
    [
        ("return connect('t', stage.listener)", "", ""),  # not a creation the codemod sees
        ("connect('a', Handler(stage))\n    connect('b', Other())", "", ""),  # two classes
        ("return connect('t', Handler(stage))", "=None", ""),  # a call may leave it out
        ("return connect('t', Handler(stage))", "", "print(listener)\n    "),  # used again
        ("connect('t', Handler(stage))\n    return connect", "", ""),  # the function as a value
        ("listener = Handler(stage)\n    connect('t', listener)\n    return listener", "", ""),
    ],
    ids=["another object", "two classes", "a default", "used again", "the function as a value", "the instance used again"],
)
def test_anything_else_leaves_the_class_refused(calls: str, default: str, extra: str) -> None:
    after, manual = _migrate(calls, default, extra)
    assert manual, after
    assert after is None or b"class Handler(ConsumerRebalanceListener):" in after
