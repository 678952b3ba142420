"""A confluent callback that rebinds its partitions parameter to what it asked the consumer
(the first held-out sample's topic backup: ``partitions = consumer.committed(partitions)``, to
log the committed offsets) migrates: nothing the migration rewrites depends on the name. An
(un)assign in such a callback, or a rebound consumer, is still refused
(shapes/callback_takes_view.py): the seek loop must be of the list the callback got, and every
use of the consumer must become the view."""

from __future__ import annotations

import textwrap

import pytest
from rebalance_codemods.api import migrate_source

SOURCE = """
from confluent_kafka import Consumer


class Backup:
    def on_assign(self, consumer, partitions):
        {body}

    def start(self):
        consumer = Consumer({{"group.id": "backup"}})
        consumer.subscribe(["t"], on_assign=self.on_assign)
"""


def _migrate(body: str) -> tuple[str | None, list[str]]:
    source = textwrap.dedent(SOURCE.format(body=body))
    result = migrate_source(source.encode(), "backup.py")
    assert result.status == "ok", result.reason
    new = result.new_source.decode() if result.new_source is not None else None
    return new, [m.reason for m in result.manual]


def test_partitions_rebound_to_the_committed_offsets_migrates() -> None:
    body = (
        "partitions = consumer.committed(partitions)\n        print([p.offset for p in partitions])"
    )
    new, manual = _migrate(body)
    assert manual == []
    assert new is not None
    assert (
        "    def on_partitions_assigned(self, partitions, consumer: RebalanceConsumer):\n"
        "        partitions = consumer.committed(partitions)\n"
    ) in new
    assert migrate_source(new.encode(), "backup.py").new_source is None  # idempotent


REBOUND = "on_assign rebinds its consumer or partitions parameter; use a new name first"


@pytest.mark.parametrize(
    "body",
    [
        "partitions = consumer.committed(partitions)\n        consumer.assign(partitions)",
        "partitions = partitions[1:]\n        consumer.incremental_assign(partitions)",
        "consumer = self.other\n        consumer.commit()",
    ],
)
def test_a_rebinding_the_rewrite_depends_on_is_still_refused(body: str) -> None:
    new, manual = _migrate(body)
    assert REBOUND in manual
    assert new is None
