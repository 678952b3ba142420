# ruff: noqa: E501  (the "after" strings are the codemod's exact output; LibCST does not wrap)
"""A confluent callback registered through a variable naming a def (issue 25:
``cb = on_assign_handler; consumer.subscribe(topics, on_assign=cb)``): migrated like the def
passed by its name, the variable's assignment going with it
(``shapes/callback_variables.py``); refused, naming the variable, where it is bound again,
used elsewhere, or assigned outside the def's block."""

from __future__ import annotations

import textwrap

import pytest
from libcst.codemod import CodemodTest
from rebalance_codemods.api import migrate_source
from rebalance_codemods.commands import MigrateRebalanceListeners


class TestCallbackVariables(CodemodTest):
    TRANSFORM = MigrateRebalanceListeners

    def test_a_variable_naming_a_nested_def(self) -> None:
        before = """
            from confluent_kafka import Consumer


            def run(topics):
                consumer = Consumer({"group.id": "g"})

                def on_assign_handler(consumer, partitions):
                    print("assigned", partitions)

                cb = on_assign_handler
                consumer.subscribe(topics, on_assign=cb)
                while True:
                    consumer.poll(1.0)
        """
        after = """
            from confluent_kafka import Consumer
            from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe


            def run(topics):
                consumer = Consumer({"group.id": "g"})

                class RebalanceCallbacks(RebalanceListener):
                    def on_partitions_assigned(self, partitions, consumer: RebalanceConsumer):
                        print("assigned", partitions)

                subscribe(consumer, topics, RebalanceCallbacks())
                while True:
                    consumer.poll(1.0)
        """
        self.assertCodemod(before, after, expected_warnings=[])

    def test_a_module_level_variable_naming_a_module_level_def(self) -> None:
        before = """
            from confluent_kafka import Consumer


            def on_assign_handler(consumer, partitions):
                consumer.pause(partitions)


            handler = on_assign_handler


            def run(topics):
                consumer = Consumer({"group.id": "g"})
                consumer.subscribe(topics, on_assign=handler, on_revoke=handler_revoke)


            def on_revoke(consumer, partitions):
                consumer.commit(asynchronous=False)


            handler_revoke = on_revoke
        """
        after = """
            from confluent_kafka import Consumer
            from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe


            class RebalanceCallbacks(RebalanceListener):
                def on_partitions_assigned(self, partitions, consumer: RebalanceConsumer):
                    consumer.pause(partitions)

                def on_partitions_revoked(self, partitions, consumer: RebalanceConsumer):
                    consumer.commit(asynchronous=False)


            def run(topics):
                consumer = Consumer({"group.id": "g"})
                subscribe(consumer, topics, RebalanceCallbacks())
        """
        self.assertCodemod(before, after, expected_warnings=[])


HEAD = (
    "from confluent_kafka import Consumer\n\n\ndef handler(consumer, partitions):\n    pass\n\n\n"
)
REFUSED = [
    ("bound again", "cb = handler\ncb = handler\n\n\ndef run(c):\n    c.subscribe(['t'], on_assign=cb)\n",
     "on_assign= is not a function, lambda or functools.partial defined in this file"),
    ("used elsewhere", "cb = handler\nprint(cb)\n\n\ndef run(c):\n    c.subscribe(['t'], on_assign=cb)\n",
     "on_assign= is the variable cb (line 8), which is bound again or used elsewhere too"),
    ("in another block", "def run(c):\n    cb = handler\n    c.subscribe(['t'], on_assign=cb)\n",
     "on_assign= is the variable cb (line 9), assigned outside the block defining handler"),
    ("not on a line of its own", "cb = handler; x = 1\n\n\ndef run(c):\n    c.subscribe(['t'], on_assign=cb)\n",
     "on_assign= is the variable cb (line 8), assigned outside the block defining handler"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "tail", "reason"), REFUSED, ids=[r[0] for r in REFUSED])
def test_other_callback_variables_are_refused(name: str, tail: str, reason: str) -> None:
    source = textwrap.dedent(HEAD + tail).encode()
    result = migrate_source(source, "app.py")
    assert result.status == "ok" and result.new_source is None, result
    assert any(reason in m.reason for m in result.manual), result.manual
