# ruff: noqa: E501  (the "after" strings are the codemod's exact output; LibCST does not wrap)
"""A confluent callback function also used elsewhere (issue 25, REAL_WORLD.md: a
``track_rebalance(consumer, partitions)`` registered with ``subscribe()`` and also called from
the poll loop or the tests): it stays as it is, and the listener method calls it with the view
(``shapes/shared_callbacks.py``); refused where the view would not do for it."""

from __future__ import annotations

import textwrap

import pytest
from libcst.codemod import CodemodTest
from rebalance_codemods.api import migrate_source
from rebalance_codemods.commands import MigrateRebalanceListeners
from rebalance_lint.api import check_source


class TestSharedCallbacks(CodemodTest):
    TRANSFORM = MigrateRebalanceListeners

    def test_a_function_also_called_by_the_poll_loop_stays_and_is_called(self) -> None:
        before = """
            from confluent_kafka import Consumer


            def track_rebalance(consumer, partitions):
                print("rebalance", partitions, consumer.assignment())


            def on_revoke(consumer, partitions):
                consumer.commit(asynchronous=False)


            def poll_loop(consumer):
                track_rebalance(consumer, consumer.assignment())


            c = Consumer({})
            c.subscribe(["t"], on_assign=track_rebalance, on_revoke=on_revoke)
        """
        after = """
            from confluent_kafka import Consumer
            from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe


            def track_rebalance(consumer, partitions):
                print("rebalance", partitions, consumer.assignment())


            class RebalanceCallbacks(RebalanceListener):
                def on_partitions_assigned(self, partitions, consumer: RebalanceConsumer):
                    track_rebalance(consumer, partitions)

                def on_partitions_revoked(self, partitions, consumer: RebalanceConsumer):
                    consumer.commit(asynchronous=False)


            def poll_loop(consumer):
                track_rebalance(consumer, consumer.assignment())


            c = Consumer({})
            subscribe(c, ["t"], RebalanceCallbacks())
        """
        self.assertCodemod(before, after, expected_warnings=[])

    def test_a_nested_function_in_two_roles_also_called_at_startup(self) -> None:
        before = """
            from confluent_kafka import Consumer


            def run(config, topic):
                consumer = Consumer(config)

                def on_rebalance(consumer, partitions):
                    print("now", consumer.assignment(), "after", partitions)

                consumer.subscribe([topic], on_assign=on_rebalance, on_revoke=on_rebalance)
                on_rebalance(consumer, [])
                while True:
                    consumer.poll(1.0)
        """
        after = """
            from confluent_kafka import Consumer
            from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe


            def run(config, topic):
                consumer = Consumer(config)

                def on_rebalance(consumer, partitions):
                    print("now", consumer.assignment(), "after", partitions)

                class RebalanceCallbacks(RebalanceListener):
                    def on_partitions_assigned(self, partitions, consumer: RebalanceConsumer):
                        on_rebalance(consumer, partitions)

                    on_partitions_revoked = on_partitions_assigned

                subscribe(consumer, [topic], RebalanceCallbacks())
                on_rebalance(consumer, [])
                while True:
                    consumer.poll(1.0)
        """
        self.assertCodemod(before, after, expected_warnings=[])

    def test_an_aio_callback_also_used_elsewhere_is_awaited(self) -> None:
        before = """
            from confluent_kafka.aio import AIOConsumer


            async def on_assign(consumer, partitions):
                await consumer.pause(partitions)


            async def main(config):
                consumer = AIOConsumer(config)
                await consumer.subscribe(["t"], on_assign=on_assign)
                await on_assign(consumer, await consumer.assignment())
        """
        after = """
            from confluent_kafka.aio import AIOConsumer
            from rebalance_guard.confluent_kafka_aio import RebalanceConsumer, RebalanceListener, subscribe


            async def on_assign(consumer, partitions):
                await consumer.pause(partitions)


            class RebalanceCallbacks(RebalanceListener):
                async def on_partitions_assigned(self, partitions, consumer: RebalanceConsumer):
                    await on_assign(consumer, partitions)


            async def main(config):
                consumer = AIOConsumer(config)
                await subscribe(consumer, ["t"], RebalanceCallbacks())
                await on_assign(consumer, await consumer.assignment())
        """
        self.assertCodemod(before, after, expected_warnings=[])


CONFLUENT = "from confluent_kafka import Consumer\n\nc = Consumer({})\n"
REFUSED = [
    (
        "a consumer parameter annotated with another class (the view is not one)",
        CONFLUENT + "class TracingConsumer(Consumer):\n    pass\n\n"
        "def on_assign(consumer: TracingConsumer, partitions):\n    print(partitions)\n\n"
        "c.subscribe(['t'], on_assign=on_assign)\non_assign(c, [])\n",
        "on_assign is used elsewhere too, so it stays and the listener calls it with the view, "
        "which its consumer parameter's annotation (TracingConsumer) does not accept; drop the "
        "annotation or annotate it with the rebalance_guard RebalanceConsumer first",
    ),
    (
        "an assign, which only the callback's own last statement may become",
        CONFLUENT + "def on_assign(consumer, partitions):\n    consumer.assign(partitions)\n\n"
        "c.subscribe(['t'], on_assign=on_assign)\non_assign(c, [])\n",
        "on_assign is also used elsewhere, so its consumer.assign() cannot become the view's "
        "(line 5); move that call out of it, then run migrate again",
    ),
    (
        "a call the view does not offer",
        CONFLUENT + "def on_assign(consumer, partitions):\n    consumer.poll(0)\n\n"
        "c.subscribe(['t'], on_assign=on_assign)\non_assign(c, [])\n",
        "on_assign calls consumer.poll() (line 5), which the rebalance view does not offer "
        "(KIP-1306); move that call out of the callback first",
    ),
    (
        "a lambda stored in a name used elsewhere",
        CONFLUENT + "cb = lambda consumer, partitions: print(partitions)\n"
        "c.subscribe(['t'], on_assign=cb)\ncb(c, [])\n",
        "cb is used elsewhere too; moving it into a listener class would break those uses; make "
        "them call a helper both use first",
    ),
]


@pytest.mark.parametrize(("name", "source", "reason"), REFUSED, ids=[c[0] for c in REFUSED])
def test_what_the_view_would_not_do_for_stays_refused(name: str, source: str, reason: str) -> None:
    result = migrate_source(textwrap.dedent(source).encode(), "app.py")
    assert result.status == "ok" and result.new_source is None, result
    assert [m.reason for m in result.manual] == [reason]


def test_a_consumer_parameter_annotated_with_the_clients_class_is_widened() -> None:
    """The annotation of a kept callback's consumer parameter naming the client's consumer
    class becomes ``Consumer | RebalanceConsumer`` (as a helper's: annotated_helpers): the poll
    loop still passes the consumer, the listener passes the view, and both type-check."""
    source = (
        CONFLUENT + "def on_assign(consumer: Consumer, partitions):\n    consumer.pause(partitions)\n\n"
        "c.subscribe(['t'], on_assign=on_assign)\non_assign(c, [])\n"
    )
    findings = check_source(source.encode(), "app.py").findings
    assert [f.fixable for f in findings if f.code == "KRB203"] == [True]
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok" and not result.manual, result.manual
    assert result.new_source is not None
    after = result.new_source.decode()
    assert "def on_assign(consumer: Consumer | RebalanceConsumer, partitions):\n    consumer.pause(partitions)\n" in after
    assert "        on_assign(consumer, partitions)\n" in after
    assert "on_assign(c, [])\n" in after
    assert migrate_source(result.new_source, "app.py").new_source is None
