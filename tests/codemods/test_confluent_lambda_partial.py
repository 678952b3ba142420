# ruff: noqa: E501  (the "after" strings are the codemod's exact output; LibCST does not wrap)
"""confluent-kafka lambda and ``functools.partial`` callbacks (issue 12): migrated to a
``RebalanceListener`` like def callbacks (before/after); the KRB203 finding is fixable exactly
there, and a second run changes nothing. Refusals: ``test_refusals.py`` (cf-lambda-*,
cf-partial-*) and ``fixtures/refused_lambda_partial_shapes.py``."""

from __future__ import annotations

import textwrap

import pytest
from libcst.codemod import CodemodTest
from rebalance_codemods.api import migrate_source
from rebalance_codemods.commands import MigrateRebalanceListeners
from rebalance_lint import check_source


class TestLambdas(CodemodTest):
    TRANSFORM = MigrateRebalanceListeners

    def test_module_level_lambda_goes_into_a_class_just_before_the_subscribe(self) -> None:
        """A no-op lost lambda becomes an explicit empty on_partitions_lost (not the revoke default)."""
        before = """
            from confluent_kafka import Consumer

            consumer = Consumer({"group.id": "g"})
            consumer.subscribe(["orders"], on_lost=lambda consumer, partitions: None)
            consumer.poll(1.0)
        """
        after = """
            from confluent_kafka import Consumer, TopicPartition
            from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe

            consumer = Consumer({"group.id": "g"})


            class RebalanceCallbacks(RebalanceListener):
                def on_partitions_lost(self, partitions: list[TopicPartition], consumer: RebalanceConsumer) -> None:
                    pass


            subscribe(consumer, ["orders"], RebalanceCallbacks())
            consumer.poll(1.0)
        """
        self.assertCodemod(before, after, expected_warnings=[])

    def test_lambda_variable_next_to_a_def_closing_over_self(self) -> None:
        """The lambda uses the method's ``self``, so its listener method names its own ``listener``; the assignment goes, the class takes the def's place, methods in role order."""
        before = """
            from confluent_kafka import Consumer


            class Worker:
                def __init__(self, config):
                    self.consumer = Consumer(config)
                    self.assigned = set()

                def start(self):
                    def on_revoke(consumer, partitions):
                        print("revoked", partitions)

                    on_assign = lambda consumer, partitions: self.assigned.update(partitions)
                    self.consumer.subscribe(["a"], on_assign=on_assign, on_revoke=on_revoke, on_lost=on_revoke)
        """
        after = """
            from confluent_kafka import Consumer, TopicPartition
            from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe


            class Worker:
                def __init__(self, config):
                    self.consumer = Consumer(config)
                    self.assigned = set()

                def start(self):
                    class RebalanceCallbacks(RebalanceListener):
                        def on_partitions_assigned(listener, partitions: list[TopicPartition], consumer: RebalanceConsumer) -> None:
                            self.assigned.update(partitions)

                        def on_partitions_revoked(self, partitions, consumer: RebalanceConsumer):
                            print("revoked", partitions)

                    subscribe(self.consumer, ["a"], RebalanceCallbacks())
        """
        self.assertCodemod(before, after, expected_warnings=[])


    def test_multi_line_lambda_bodies_are_reindented_and_stay_valid(self) -> None:
        """A call spanning lines loses nothing; ``a and`` / ``b`` on two lines and a comment inside the parentheses keep parentheses."""
        before = """
            from confluent_kafka import Consumer

            c = Consumer({})
            c.subscribe(
                ["a"],
                on_assign=lambda c, p: print(
                    "assigned", p
                ),
                on_revoke=lambda c, p: (
                    # commit before the partitions move
                    c.commit(asynchronous=False)
                ),
                on_lost=lambda c, p: p and
                    print("lost"),
            )
        """
        after = """
            from confluent_kafka import Consumer, TopicPartition
            from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe

            c = Consumer({})


            class RebalanceCallbacks(RebalanceListener):
                def on_partitions_assigned(self, p: list[TopicPartition], c: RebalanceConsumer) -> None:
                    print(
                        "assigned", p
                    )

                def on_partitions_revoked(self, p: list[TopicPartition], c: RebalanceConsumer) -> None:
                    (
                        # commit before the partitions move
                        c.commit(asynchronous=False)
                    )

                def on_partitions_lost(self, p: list[TopicPartition], c: RebalanceConsumer) -> None:
                    (p and
                        print("lost"))


            subscribe(c, ["a"], RebalanceCallbacks())
        """
        self.assertCodemod(before, after, expected_warnings=[])


class TestPartials(CodemodTest):
    TRANSFORM = MigrateRebalanceListeners

    def test_bound_first_argument_becomes_a_constructor_argument(self) -> None:
        """partial(on_assign, settings) with def on_assign(settings, consumer, partitions): settings is read once, at the subscribe(), as before; the unused functools import goes, its blank line stays."""
        before = """
            from __future__ import annotations

            import functools
            from dataclasses import dataclass

            from confluent_kafka import Consumer, TopicPartition


            @dataclass
            class Settings:
                start: int


            def on_assign(settings: Settings, consumer: Consumer, partitions: list[TopicPartition]) -> None:
                for tp in partitions:
                    tp.offset = settings.start
                consumer.assign(partitions)


            def run(settings: Settings) -> None:
                consumer = Consumer({})
                consumer.subscribe(["a"], on_assign=functools.partial(on_assign, settings))
        """
        after = """
            from __future__ import annotations

            from dataclasses import dataclass

            from confluent_kafka import Consumer, TopicPartition
            from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe


            @dataclass
            class Settings:
                start: int


            class RebalanceCallbacks(RebalanceListener):
                def __init__(self, settings: Settings) -> None:
                    self.settings = settings

                def on_partitions_assigned(self, partitions: list[TopicPartition], consumer: RebalanceConsumer) -> None:
                    for tp in partitions:
                        tp.offset = self.settings.start
                    for partition in partitions:
                        consumer.seek(partition)


            def run(settings: Settings) -> None:
                consumer = Consumer({})
                subscribe(consumer, ["a"], RebalanceCallbacks(settings))
        """
        self.assertCodemod(before, after, expected_warnings=[])

    def test_equal_partials_for_revoke_and_lost_need_no_lost_method(self) -> None:
        """on_lost=partial(f, x) equal to on_revoke's: on_partitions_lost's default; functools stays imported while used."""
        before = """
            import functools

            from confluent_kafka import Consumer


            def on_revoke(name, consumer, partitions):
                print(name, "revoked", partitions)


            def main(name):
                c = Consumer({})
                c.subscribe(["a"], on_revoke=functools.partial(on_revoke, name), on_lost=functools.partial(on_revoke, name))
                return functools.reduce(max, [1, 2])
        """
        after = """
            import functools

            from confluent_kafka import Consumer
            from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe


            class RebalanceCallbacks(RebalanceListener):
                def __init__(self, name) -> None:
                    self.name = name

                def on_partitions_revoked(self, partitions, consumer: RebalanceConsumer):
                    print(self.name, "revoked", partitions)


            def main(name):
                c = Consumer({})
                subscribe(c, ["a"], RebalanceCallbacks(name))
                return functools.reduce(max, [1, 2])
        """
        self.assertCodemod(before, after, expected_warnings=[])


    def test_a_bound_call_is_still_evaluated_once_at_the_subscribe(self) -> None:
        """partial(on_assign, load_settings()): the call moves into the constructor call, which takes the partial's place in subscribe()."""
        before = """
            from functools import partial

            from confluent_kafka import Consumer


            def on_assign(settings, consumer, partitions):
                print(settings["start"], partitions)


            def main(config):
                consumer = Consumer(config)
                consumer.subscribe(["a"], on_assign=partial(on_assign, load_settings()))
        """
        after = """
            from confluent_kafka import Consumer
            from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe


            class RebalanceCallbacks(RebalanceListener):
                def __init__(self, settings) -> None:
                    self.settings = settings

                def on_partitions_assigned(self, partitions, consumer: RebalanceConsumer):
                    print(self.settings["start"], partitions)


            def main(config):
                consumer = Consumer(config)
                subscribe(consumer, ["a"], RebalanceCallbacks(load_settings()))
        """
        self.assertCodemod(before, after, expected_warnings=[])


SITES = [
    """
    from confluent_kafka import Consumer
    def run(flag):
        c = Consumer({})
        c.subscribe(["a"], on_assign=lambda c, p: print(p, flag), on_revoke=lambda c, p: c.commit())
    """,
    """
    from functools import partial
    from confluent_kafka import Consumer
    def on_assign(tag, consumer, partitions):
        consumer.incremental_assign(partitions)
    c = Consumer({})
    c.subscribe(["a"], on_assign=partial(on_assign, "t"))
    """,
    """
    from functools import partial
    from confluent_kafka.aio import AIOConsumer
    async def on_revoke(app, consumer, partitions, *, tag):
        await consumer.commit(asynchronous=False)
    async def main(app):
        c = AIOConsumer({})
        await c.subscribe(["a"], on_revoke=partial(on_revoke, app, tag="x"))
    """,
]


@pytest.mark.parametrize("source", SITES, ids=["lambdas", "partial", "aio-partial"])
def test_krb203_is_fixable_and_gone_after_one_idempotent_run(source: str) -> None:
    data = textwrap.dedent(source).encode()
    findings = [f for f in check_source(data, "site.py").findings if f.code == "KRB203"]
    assert findings and all(f.fixable for f in findings), findings
    result = migrate_source(data, "site.py")
    assert result.status == "ok" and not result.manual and result.new_source is not None
    after = check_source(result.new_source, "site.py").findings
    assert not [f for f in after if f.code.startswith("KRB2")], after
    assert migrate_source(result.new_source, "site.py").new_source is None
