# ruff: noqa: E501  (sources and messages as the codemod prints them)
"""Lambdas registered next to the owner's bound methods (``shapes/owner_lambdas.py``): each
becomes a method of the owner named by its role, where it reads only its own parameters, the
enclosing method's ``self`` and module-level or builtin names; ``lambda c, p: self.m(c, p)``
is ``self.m``. Anything else stays refused with its next step (the migrated reader runs on
Apache Kafka: tests/integration/test_confluent_kafka_owner_lambdas.py)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from rebalance_codemods.api import migrate_source
from rebalance_lint import check_source

FIXTURES = Path(__file__).parent / "fixtures"
NAMES = ["owner_lambdas.py", "owner_lambdas_disguised.py", "owner_lambdas_aio.py"]


def _migrated(source: str) -> str:
    result = migrate_source(textwrap.dedent(source).encode(), "source.py")
    assert result.status == "ok" and not result.manual, result.manual
    assert result.new_source is not None
    again = migrate_source(result.new_source, "source.py")
    assert again.new_source is None and not again.manual, "not idempotent"
    left = [f for f in check_source(result.new_source, "source.py").findings if f.code.startswith("KRB2")]
    assert not left, left
    return result.new_source.decode()


@pytest.mark.parametrize("name", NAMES)
def test_the_fixtures_migrate_to_their_twins_and_check_clean(name: str) -> None:
    before = (FIXTURES / name).read_bytes()
    result = migrate_source(before, name)
    assert not result.manual, result.manual
    assert result.new_source == (FIXTURES / "migrated" / name).read_bytes()
    codes = {f.code for f in check_source(before, name).findings}
    assert "KRB203" in codes
    assert not [f for f in check_source(result.new_source, name).findings if f.code.startswith("KRB2")]


def test_the_issue_example_becomes_a_method_named_by_its_role() -> None:
    after = _migrated('''
        import logging

        import confluent_kafka

        logger = logging.getLogger(__name__)
        config = {}


        class Reader:
            def __init__(self, topic):
                self.topic = topic
                self.__consumer = confluent_kafka.Consumer(config)
                self.__consumer.subscribe(
                    topics=[topic],
                    on_assign=self.on_assign_cb,
                    on_revoke=lambda consumer, partitions: logger.info(f"{self.topic}: revoked {len(partitions)}"),
                )

            def on_assign_cb(self, _, partitions):
                self.__partition = partitions
        ''')
    assert after == textwrap.dedent('''
        import logging

        import confluent_kafka
        from confluent_kafka import TopicPartition
        from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe

        logger = logging.getLogger(__name__)
        config = {}


        class Reader(RebalanceListener):
            def __init__(self, topic):
                self.topic = topic
                self.__consumer = confluent_kafka.Consumer(config)
                subscribe(self.__consumer, [topic], self)

            def on_partitions_revoked(self, partitions: list[TopicPartition], consumer: RebalanceConsumer) -> None:
                logger.info(f"{self.topic}: revoked {len(partitions)}")

            def on_partitions_assigned(self, partitions, _: RebalanceConsumer):
                self.__partition = partitions
        ''')


def test_a_final_assign_becomes_seeks_and_names_map() -> None:
    """The lambda's parameter names are the method's; its whole-body assign is a seek per
    partition on the view (the adapter assigns), as for any lambda."""
    after = _migrated('''
        from confluent_kafka import Consumer


        class Source:
            def __init__(self, conf):
                self.consumer = Consumer(conf)

            def start(self):
                self.consumer.subscribe(["t"], on_assign=lambda c, ps: c.assign(ps), on_revoke=self._revoke)

            def _revoke(self, consumer, partitions):
                consumer.commit(asynchronous=False)
        ''')
    assert "class Source(RebalanceListener):" in after
    assert "        subscribe(self.consumer, [\"t\"], self)\n\n    def on_partitions_assigned(self, ps: list[TopicPartition], c: RebalanceConsumer) -> None:\n        for partition in ps:\n            c.seek(partition)\n" in after
    assert "    def on_partitions_revoked(self, partitions, consumer: RebalanceConsumer):\n" in after


def test_a_lambda_in_a_nested_function_of_the_method_reading_builtins_and_globals() -> None:
    after = _migrated('''
        from confluent_kafka import Consumer

        PREFIX = "reader"


        class Source:
            def __init__(self, conf):
                self.consumer = Consumer(conf)
                self.seen = []

            def start(self):
                def go():
                    self.consumer.subscribe(
                        ["t"],
                        on_assign=self._assign,
                        on_lost=lambda c, p: self.seen.extend(f"{PREFIX}-{tp.partition}" for tp in sorted(p, key=str)),
                    )
                go()

            def _assign(self, consumer, partitions):
                print(partitions)
        ''')
    assert "        go()\n\n    def on_partitions_lost(self, p: list[TopicPartition], c: RebalanceConsumer) -> None:\n        self.seen.extend(f\"{PREFIX}-{tp.partition}\" for tp in sorted(p, key=str))\n" in after


def test_a_method_in_disguise_is_the_method() -> None:
    after = _migrated('''
        from confluent_kafka import Consumer


        class Source:
            def __init__(self, conf):
                self.consumer = Consumer(conf)
                self.consumer.subscribe(["t"], on_assign=self._assign, on_revoke=lambda c, p: self._revoke(c, p))

            def _assign(self, consumer, partitions):
                print(partitions)

            def _revoke(self, consumer, partitions):
                consumer.commit(asynchronous=False)
        ''')
    assert "    def on_partitions_revoked(self, partitions, consumer: RebalanceConsumer):\n        consumer.commit(asynchronous=False)\n" in after
    assert "lambda" not in after and "_revoke(" not in after


SOURCE = '''
from confluent_kafka import Consumer
{head}

class Source{bases}:
    def __init__(self, conf, topic):
        self.consumer = Consumer(conf)
        self.consumer.subscribe(["t"], on_assign=self._assign, on_revoke={revoke})

    def _assign(self, consumer, partitions):
        print(partitions)
{more}'''

AIO = '''
from confluent_kafka.aio import AIOConsumer


class Source:
    def __init__(self, conf):
        self.consumer = AIOConsumer(conf)

    async def start(self):
        await self.consumer.subscribe(["t"], on_assign=self._assign, on_revoke={revoke})

    async def _assign(self, consumer, partitions):
        print(partitions)

    async def _revoke(self, consumer, partitions):
        await consumer.commit(asynchronous=False)
'''

OUTSIDE = '''
from confluent_kafka import Consumer


class Source:
    def __init__(self, conf):
        self.consumer = Consumer(conf)

    def _assign(self, consumer, partitions):
        print(partitions)
{more}'''

REFUSED = [
    ("a closure over a parameter of the method",
     SOURCE.format(head="", bases="", revoke="lambda c, p: print(topic, p)", more=""), 8,
     "the on_revoke= lambda reads topic (line 8), a local or parameter of __init__, which a method of the class cannot see; store topic on self first (and read self.topic in the lambda), then run migrate again"),
    ("a closure over a local of the method",
     SOURCE.format(head="", bases="", revoke="lambda c, p: print(n, p)", more="").replace("        self.consumer = Consumer(conf)\n", "        self.consumer = Consumer(conf)\n        n = 3\n"), 9,
     "the on_revoke= lambda reads n (line 9), a local or parameter of __init__, which a method of the class cannot see; store n on self first (and read self.n in the lambda), then run migrate again"),
    ("the role name defined in the class",
     SOURCE.format(head="", bases="", revoke="lambda c, p: print(p)", more="\n    def on_partitions_revoked(self):\n        pass\n"), 8,
     "Source already defines on_partitions_revoked; it cannot become its own listener"),
    ("the role name set on the instance",
     SOURCE.format(head="", bases="", revoke="lambda c, p: print(p)", more="\n    def later(self):\n        self.on_partitions_revoked = print\n"), 8,
     "Source already has a member on_partitions_revoked (line 14), the name the on_revoke= lambda would take as a method; rename that member first, then run migrate again"),
    ("the role name defined in an in-file base",
     SOURCE.format(head="\n\nclass Base:\n    def on_partitions_revoked(self):\n        pass\n", bases="(Base)", revoke="lambda c, p: print(p)", more=""), 13,
     "Source already has a member on_partitions_revoked (line 5), the name the on_revoke= lambda would take as a method; rename that member first, then run migrate again"),
    ("the consumer used beyond the view",
     SOURCE.format(head="", bases="", revoke="lambda c, p: c.poll(0)", more=""), 8,
     "the on_revoke= lambda calls consumer.poll() (line 8), which the rebalance view does not offer (KIP-1306); move that call out of the callback first"),
    ("the consumer passed on",
     SOURCE.format(head="", bases="", revoke="lambda c, p: keep(c)", more=""), 8,
     "the on_revoke= lambda uses the consumer other than to call a method (line 8): passes it to keep(); call the consumer's methods in the callback itself (inline that call, or make it return what the callback should do), then run migrate again"),
    ("the registering consumer released in the lambda",
     SOURCE.format(head="", bases="", revoke="lambda c, p: self.consumer.unassign()", more=""), 8,
     "the on_revoke= lambda calls self.consumer.unassign() on the registering consumer itself (line 8), which the adapter does after the callback; call it on the callback's consumer argument instead (consumer.unassign(partitions) as its last statement) first"),
    ("a lambda parameter named self",
     SOURCE.format(head="", bases="", revoke="lambda self, p: print(p)", more=""), 8,
     "the on_revoke= lambda names a parameter self, the name of Source's instance in __init__; rename that parameter first"),
    ("super in the lambda",
     SOURCE.format(head="", bases="", revoke="lambda c, p: super().close()", more=""), 8,
     "the on_revoke= lambda uses super (line 8), which means another thing in a method; write it as a method by hand"),
    ("a yielding lambda",
     SOURCE.format(head="", bases="", revoke="lambda c, p: (yield p)", more=""), 8,
     "the on_revoke= lambda yields (line 8), which makes it a generator that never runs; drop the yield first"),
    ("a lambda outside the owner's methods",
     OUTSIDE.format(more="\n\nsource = Source({})\nsource.consumer.subscribe(['t'], on_assign=source._assign, on_revoke=lambda c, p: print(p))\n"), 14,
     "the on_revoke= lambda is not written in a method of Source, whose methods are the other callbacks and which becomes the listener; make it a method of Source taking (self, consumer, partitions) and register self.<method> instead, then run migrate again"),
    ("a lambda in a subclass of the owner",
     OUTSIDE.format(more="\n\nclass Sub(Source):\n    def start(self):\n        self.consumer.subscribe(['t'], on_assign=self._assign, on_revoke=lambda c, p: print(p))\n"), 15,
     "the on_revoke= lambda is not written in a method of Source, whose methods are the other callbacks and which becomes the listener; make it a method of Source taking (self, consumer, partitions) and register self.<method> instead, then run migrate again"),
    ("another instance's methods next to the lambda",
     OUTSIDE.format(more="\n    def clone(self):\n        other = Source({})\n        other.consumer.subscribe(['t'], on_assign=other._assign, on_revoke=lambda c, p: print(p))\n"), 14,
     "the on_revoke= lambda and the other callbacks reach Source through different names; register them all through self first"),
    ("a lambda on an AIOConsumer",
     AIO.format(revoke="lambda c, p: print(p)"), 10,
     "on_revoke= is a lambda, and AIOConsumer awaits what its callbacks return: only one returning an async method's coroutine (lambda c, p: self.m(c, p)) is that method; make it an async def method of Source taking (self, consumer, partitions) and register self.<method>, then run migrate again"),
]
REASONS = [reason for *_, reason in REFUSED]


@pytest.mark.parametrize(("name", "source", "line", "reason"), REFUSED, ids=[c[0] for c in REFUSED])
def test_what_is_not_the_same_stays_refused(name: str, source: str, line: int, reason: str) -> None:
    result = migrate_source(source.encode(), "source.py")
    assert result.status == "ok", result.reason
    assert result.new_source is None, name
    assert [(m.line, m.reason) for m in result.manual] == [(line, reason)], result.manual
    findings = check_source(source.encode(), "source.py").findings
    assert not any("fixable" in f.message for f in findings if f.code.startswith("KRB2")), findings


def test_an_aio_method_in_disguise_migrates() -> None:
    after = _migrated(AIO.format(revoke="lambda c, p: self._revoke(c, p)"))
    assert "        await subscribe(self.consumer, [\"t\"], self)\n" in after
    assert "    async def on_partitions_revoked(self, partitions, consumer: RebalanceConsumer):\n        await consumer.commit(asynchronous=False)\n" in after
