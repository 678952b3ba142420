"""An owner class that becomes its own listener gets ``RebalanceListener`` in a valid MRO.

``class Sink(object):`` (common in code that started on Python 2) must become
``class Sink(RebalanceListener):``: appending gives ``(object, RebalanceListener)``, which has
no consistent method resolution order and raises TypeError at import (found by
benchmarks/real_world_corpus/clickstream-sink).
"""

from __future__ import annotations

import textwrap

import pytest
from rebalance_codemods.api import migrate_source

OWNER = """
from confluent_kafka import Consumer


class Sink{bases}:
    def __init__(self, config):
        self.consumer = Consumer(config)

    def start(self):
        self.consumer.subscribe(["a"], on_assign=self._on_assign, on_revoke=self._on_revoke)

    def _on_assign(self, consumer, partitions):
        pass

    def _on_revoke(self, consumer, partitions):
        consumer.commit(asynchronous=False)
"""


@pytest.mark.parametrize(
    ("bases", "expected"),
    [
        ("(object)", "class Sink(RebalanceListener):"),
        ("(Base, object)", "class Sink(Base, RebalanceListener):"),
        ("(Base)", "class Sink(Base, RebalanceListener):"),
        ("", "class Sink(RebalanceListener):"),
    ],
)
def test_the_listener_base_takes_the_place_of_object(bases: str, expected: str) -> None:
    source = textwrap.dedent(OWNER.format(bases=bases))
    if "Base" in bases:
        source = source.replace("\n\nclass Sink", "\n\nclass Base:\n    pass\n\n\nclass Sink", 1)
    result = migrate_source(source.encode(), "sink.py")
    assert result.new_source is not None, result.manual
    new = result.new_source.decode()
    assert expected in new, new
    namespace: dict[str, object] = {}
    exec(compile(new, "sink.py", "exec"), namespace)  # the class statement runs: a valid MRO
    assert "Sink" in namespace
