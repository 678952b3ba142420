# ruff: noqa: E501  (sources and reasons read best unwrapped)
"""Where an (un)assign may sit in a confluent callback for the migration to take it over
(application code in the GitHub sample: ``incremental_assign(partitions)`` first, then logging
and warming caches with ``committed()``; ``incremental_unassign(partitions)`` then a log line).

KIP-1306 runs ``on_partitions_assigned`` once the partitions are assigned, so whatever follows
an assign sees them assigned on the view as well (its seeks are staged, its pauses held): an
assign may be followed by anything. A release must stay the last thing that can notice it:
only logging, printing and computing values (``sorted``, ``len``) may follow it.
"""

from __future__ import annotations

import textwrap

import pytest
from rebalance_codemods.api import migrate_source
from rebalance_codemods.results import MigrationResult

SOURCE = """
import logging

from confluent_kafka import Consumer

log = logging.getLogger(__name__)


class Processor:
    def __init__(self, config):
        self.consumer = Consumer(config)
        self.caches = {{}}

    def start(self):
        self.consumer.subscribe(["edits"], on_assign=self.on_assign, on_revoke=self.on_revoke)

    def on_assign(self, consumer, partitions):
        {assign}

    def warm(self, consumer, partitions):
        for tp in consumer.committed(list(partitions), timeout=30):
            self.caches[tp.partition] = tp.offset

    def on_revoke(self, consumer, partitions):
        {revoke}
"""

ASSIGN = "consumer.incremental_assign(partitions)\n        log.info('assigned %s', sorted(p.partition for p in partitions))\n        self.warm(consumer, partitions)"
REVOKE = "self.caches.clear()\n        consumer.incremental_unassign(partitions)\n        log.info('revoked %s', sorted(p.partition for p in partitions))"


def _migrate(assign: str = ASSIGN, revoke: str = REVOKE) -> MigrationResult:
    source = textwrap.dedent(SOURCE.format(assign=assign, revoke=revoke))
    result = migrate_source(source.encode(), "processor.py")
    assert result.status == "ok", result.reason
    return result


def test_an_early_assign_and_a_release_followed_by_logging_migrate() -> None:
    result = _migrate()
    assert not result.manual, result.manual
    assert result.new_source is not None
    after = result.new_source.decode()
    assert (
        "    def on_partitions_assigned(self, partitions, consumer: RebalanceConsumer):\n"
        "        for partition in partitions:\n"
        "            consumer.seek(partition)\n"
        "        log.info('assigned %s', sorted(p.partition for p in partitions))\n"
        "        self.warm(consumer, partitions)\n"
    ) in after
    assert (
        "    def on_partitions_revoked(self, partitions, consumer: RebalanceConsumer):\n"
        "        self.caches.clear()\n"
        "        log.info('revoked %s', sorted(p.partition for p in partitions))\n"
    ) in after
    assert "incremental_unassign" not in after


def test_an_assign_before_more_calls_on_the_consumer_migrates() -> None:
    """What follows sees the partitions assigned either way (pause is held for them)."""
    result = _migrate(assign="if partitions:\n            consumer.assign(partitions)\n        consumer.pause(partitions)")
    assert not result.manual, result.manual


@pytest.mark.parametrize(
    ("revoke", "line"),
    [
        # something after the release that could notice it
        ("consumer.incremental_unassign(partitions)\n        self.caches.clear()", 27),
        ("consumer.incremental_unassign(partitions)\n        log.info('%s', consumer.assignment())", 27),
        # a release inside a loop runs more than once
        ("for _ in range(2):\n            consumer.incremental_unassign(partitions)", 28),
    ],
)
def test_a_release_something_could_notice_is_manual(revoke: str, line: int) -> None:
    result = _migrate(revoke=revoke)
    assert result.new_source is None
    reason = f"consumer.incremental_unassign() is not the last thing on_revoke does (only logging may follow a release, which the adapter makes after the callback) (line {line}); move what follows it before it, then run migrate again"
    assert reason in [m.reason for m in result.manual], result.manual


def test_an_assign_inside_a_loop_is_manual() -> None:
    result = _migrate(assign="for _ in range(2):\n            consumer.assign(partitions)")
    assert result.new_source is None
    reason = "consumer.assign() is not a statement on_assign runs at most once (it sits in a loop, an except, else or finally block or an expression) (line 19); call it once, outside those, then run migrate again"
    assert reason in [m.reason for m in result.manual], result.manual


@pytest.mark.parametrize(
    ("placed", "line"),
    [
        ("try:\n            pass\n        except Exception:\n            consumer.assign(partitions)", 21),
        ("try:\n            pass\n        finally:\n            consumer.assign(partitions)", 21),
        ("try:\n            pass\n        except Exception:\n            pass\n        else:\n            consumer.assign(partitions)", 23),
    ],
)
def test_an_assign_in_a_try_block_other_than_its_body_is_manual(placed: str, line: int) -> None:
    """A handler or ``finally`` runs the assign after something failed (or always): not the
    plain run the seeks stand for."""
    result = _migrate(assign=placed)
    assert result.new_source is None
    reason = f"consumer.assign() is not a statement on_assign runs at most once (it sits in a loop, an except, else or finally block or an expression) (line {line}); call it once, outside those, then run migrate again"
    assert reason in [m.reason for m in result.manual], result.manual


def test_an_assign_in_a_try_body_becomes_seeks_there() -> None:
    """held_out_4 028: ``try: <offsets set>; assign(partitions); log`` with a handler that
    logs the failure. The assign runs at most once there, so its seeks go where it was; a
    failing seek reaches the same handler a failing assign did."""
    result = _migrate(assign="try:\n            for p in partitions:\n                p.offset = -2\n            consumer.assign(partitions)\n            log.warning('from the beginning')\n        except Exception as e:\n            log.error('seek failed: %s', e)")
    assert not result.manual, result.manual
    assert result.new_source is not None
    assert (
        "        try:\n"
        "            for p in partitions:\n"
        "                p.offset = -2\n"
        "            for partition in partitions:\n"
        "                consumer.seek(partition)\n"
        "            log.warning('from the beginning')\n"
        "        except Exception as e:\n"
    ) in result.new_source.decode()


def test_a_deleted_consumer_parameter_is_no_use() -> None:
    """``del consumer`` (real code marks the argument unused so) does not stop the migration."""
    result = _migrate(revoke="del consumer\n        self.caches.clear()")
    assert not result.manual, result.manual
    assert result.new_source is not None
    assert "del consumer\n        self.caches.clear()" in result.new_source.decode()


@pytest.mark.parametrize(
    ("change", "line"),
    [
        ("partitions.append(TopicPartition('other', 0))", 18),
        ("partitions[:] = [p for p in partitions if p.partition % 2]", 18),
        ("del partitions[0]", 18),
        ("ps = partitions", 18),
    ],
)
def test_an_assign_of_a_list_the_callback_changed_is_manual(change: str, line: int) -> None:
    """Raw confluent assigns the changed list (an extra partition, fewer partitions); the
    adapter assigns the partitions the group gave, as given: a seek per item would lose the
    change (found by the assign_in_helper shape's author, 2026-11-27)."""
    result = _migrate(assign=f"{change}\n        consumer.assign(partitions)")
    assert result.new_source is None
    reason = (
        f"on_assign changes or aliases its partitions list first (line {line}), which the "
        "adapter assigns after the callback as it was given (line 19); leave the list as it is (pause on "
        "the view what is not to be consumed), then run migrate again"
    )
    assert reason in [m.reason for m in result.manual], result.manual


def test_an_assign_of_a_list_only_reordered_or_its_items_moved_migrates() -> None:
    """Sorting it, or setting each item's offset, leaves the partitions the group gave."""
    for change in ("partitions.sort(key=lambda p: p.partition)", "for p in partitions:\n            p.offset = 0"):
        result = _migrate(assign=f"{change}\n        consumer.assign(partitions)")
        assert not result.manual, (change, result.manual)
        assert result.new_source is not None
