# ruff: noqa: E501  (the "after" strings are the codemod's exact output; LibCST does not wrap)
"""A listener kept in an attribute and registered from it (application code in the GitHub
sample: an aiokafka adapter keeps ``self._assignment = _AssignmentState()`` to read
``self._assignment.rebalancing`` in its loop, and registers ``listener=self._assignment``).

The class migrates and the registration splits as for any other instance, when the attribute
is stored exactly once, as ``self.<attr> = Cls(...)`` in the same class, and nothing in the
file uses ``.<attr>`` other than to read its plain attributes. Otherwise the class stays as
it is (its registration still moves to ``set_rebalance_listener``, which takes legacy listeners
too, as for any refused listener class).
"""

from __future__ import annotations

import textwrap

import pytest
from rebalance_codemods.api import migrate_source
from rebalance_codemods.results import MigrationResult

SOURCE = """
from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener


class _AssignmentState(ConsumerRebalanceListener):
    def __init__(self) -> None:
        self.rebalancing = True

    def on_partitions_revoked(self, revoked) -> None:
        self.rebalancing = True

    def on_partitions_assigned(self, assigned) -> None:
        self.rebalancing = False


class Adapter:
    def __init__(self, topic: str) -> None:
        self._assignment = _AssignmentState()
        self._consumer = AIOKafkaConsumer(group_id="g")
        self._consumer.subscribe(topics=[topic], listener=self._assignment)

    def ready(self) -> bool:
        {ready}
"""


def _migrate(ready: str = "return not self._assignment.rebalancing", tail: str = "") -> MigrationResult:
    source = textwrap.dedent(SOURCE.format(ready=ready)) + textwrap.dedent(tail)
    result = migrate_source(source.encode(), "adapter.py")
    assert result.status == "ok", result.reason
    return result


def test_a_listener_kept_in_an_attribute_is_migrated_and_registered_from_it() -> None:
    result = _migrate()
    assert not result.manual, result.manual
    assert result.new_source is not None
    assert result.new_source.decode() == textwrap.dedent(
        """
        from aiokafka import AIOKafkaConsumer
        from rebalance_guard.aiokafka import RebalanceConsumer, RebalanceListener, set_rebalance_listener


        class _AssignmentState(RebalanceListener):
            def __init__(self) -> None:
                self.rebalancing = True

            def on_partitions_revoked(self, revoked, consumer: RebalanceConsumer) -> None:
                self.rebalancing = True

            def on_partitions_assigned(self, assigned, consumer: RebalanceConsumer) -> None:
                self.rebalancing = False


        class Adapter:
            def __init__(self, topic: str) -> None:
                self._assignment = _AssignmentState()
                self._consumer = AIOKafkaConsumer(group_id="g")
                set_rebalance_listener(self._consumer, self._assignment)
                self._consumer.subscribe(topics=[topic])

            def ready(self) -> bool:
                return not self._assignment.rebalancing
        """
    )


@pytest.mark.parametrize(
    ("ready", "tail", "reason"),
    [
        # its callback called directly: its signature changes
        ("self._assignment.on_partitions_assigned(set())\n        return True", "",
         "on_partitions_assigned is called directly at line 23"),
        # handed on: whoever gets it may call it
        ("return check(self._assignment)", "",
         "the listener self._assignment is used at line 23 beyond its registration"),
        # stored twice: which instance is registered cannot be told
        ("self._assignment = _AssignmentState()\n        return True", "",
         "is not registered with subscribe(listener=...) in this file"),
        # the same attribute name on another class of the file
        ("return True", "\n\nclass Other:\n    def __init__(self):\n        self._assignment = _AssignmentState()\n",
         "is not registered with subscribe(listener=...) in this file"),
    ],
)
def test_any_other_use_of_the_attribute_is_refused(ready: str, tail: str, reason: str) -> None:
    result = _migrate(ready, tail)
    after = (result.new_source or b"").decode()
    assert "(RebalanceListener)" not in after, "the class stays a legacy listener"
    assert any(reason in m.reason for m in result.manual), result.manual
