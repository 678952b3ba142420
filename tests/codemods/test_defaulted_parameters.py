# ruff: noqa: E501  (the "after" strings are the codemod's exact output; LibCST does not wrap)
"""Callbacks with extra parameters after the client's own, each with a constant default
(issue 25, ``shapes/defaulted_parameters.py``): the client never passes them, so the
listener method keeps them after the view; anything not provably the same stays refused."""

from __future__ import annotations

import textwrap

import pytest
from libcst.codemod import CodemodTest
from rebalance_codemods.api import migrate_source
from rebalance_codemods.commands import MigrateRebalanceListeners


class TestDefaultedParameters(CodemodTest):
    TRANSFORM = MigrateRebalanceListeners

    def test_a_confluent_function_keeps_its_defaulted_parameter(self) -> None:
        before = """
            from confluent_kafka import Consumer


            def on_assign(consumer, partitions, verbose=False):
                if verbose:
                    print(partitions)
                consumer.pause(partitions)


            c = Consumer({})
            c.subscribe(["t"], on_assign=on_assign)
        """
        after = """
            from confluent_kafka import Consumer
            from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe


            class RebalanceCallbacks(RebalanceListener):
                def on_partitions_assigned(self, partitions, consumer: RebalanceConsumer, verbose=False):
                    if verbose:
                        print(partitions)
                    consumer.pause(partitions)


            c = Consumer({})
            subscribe(c, ["t"], RebalanceCallbacks())
        """
        self.assertCodemod(before, after, expected_warnings=[])

    def test_an_owner_method_keeps_its_defaulted_parameters(self) -> None:
        before = """
            from confluent_kafka import Consumer


            class Worker:
                def __init__(self, config):
                    self.consumer = Consumer(config)

                def _on_revoke(self, consumer, partitions, attempts=2, reason="revoke"):
                    for _ in range(attempts):
                        consumer.commit(asynchronous=False)

                def run(self):
                    self.consumer.subscribe(["t"], on_revoke=self._on_revoke)
        """
        after = """
            from confluent_kafka import Consumer
            from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe


            class Worker(RebalanceListener):
                def __init__(self, config):
                    self.consumer = Consumer(config)

                def on_partitions_revoked(self, partitions, consumer: RebalanceConsumer, attempts=2, reason="revoke"):
                    for _ in range(attempts):
                        consumer.commit(asynchronous=False)

                def run(self):
                    subscribe(self.consumer, ["t"], self)
        """
        self.assertCodemod(before, after, expected_warnings=[])

    def test_a_kafka_python_listener_gets_the_view_before_its_defaulted_parameter(self) -> None:
        before = """
            from kafka import ConsumerRebalanceListener, KafkaConsumer


            class Flush(ConsumerRebalanceListener):
                def on_partitions_revoked(self, revoked, flush=True):
                    if flush:
                        print("flush", revoked)

                def on_partitions_assigned(self, assigned, limit=-1, names=("a", "b")):
                    print(assigned, limit, names)


            consumer = KafkaConsumer()
            consumer.subscribe(["t"], listener=Flush())
        """
        after = """
            from kafka import KafkaConsumer
            from rebalance_guard.kafka_python import RebalanceConsumer, RebalanceListener, set_rebalance_listener


            class Flush(RebalanceListener):
                def on_partitions_revoked(self, revoked, consumer: RebalanceConsumer, flush=True):
                    if flush:
                        print("flush", revoked)

                def on_partitions_assigned(self, assigned, consumer: RebalanceConsumer, limit=-1, names=("a", "b")):
                    print(assigned, limit, names)


            consumer = KafkaConsumer()
            set_rebalance_listener(consumer, Flush())
            consumer.subscribe(["t"])
        """
        self.assertCodemod(before, after, expected_warnings=[])

    def test_keyword_only_parameters_with_constant_defaults_stay_keyword_only(self) -> None:
        """No positional call (the client's, the runtime's) can give them: they keep their
        defaults, after the view (aiokafka, a confluent function, an owner method)."""
        before = """
            from aiokafka import AIOKafkaConsumer
            from aiokafka.abc import ConsumerRebalanceListener
            from confluent_kafka import Consumer


            class Log(ConsumerRebalanceListener):
                async def on_partitions_assigned(self, assigned, *, verbose=False):
                    print(assigned, verbose)

                async def on_partitions_revoked(self, revoked):
                    pass


            def on_assign(consumer, partitions, retries=3, *, verbose=False):
                print(partitions, retries, verbose)


            class Service:
                def __init__(self):
                    self._consumer = Consumer({})

                def run(self):
                    self._consumer.subscribe(["t"], on_revoke=self._on_revoke)

                def _on_revoke(self, consumer, partitions, *, label="svc"):
                    print(label, partitions)


            async def main():
                a = AIOKafkaConsumer()
                a.subscribe(["t"], listener=Log())
                c = Consumer({})
                c.subscribe(["t"], on_assign=on_assign)
        """
        after = """
            from aiokafka import AIOKafkaConsumer
            from confluent_kafka import Consumer
            from rebalance_guard.confluent_kafka import RebalanceConsumer as GuardRebalanceConsumer, RebalanceListener as GuardRebalanceListener, subscribe
            from rebalance_guard.aiokafka import RebalanceConsumer, RebalanceListener, set_rebalance_listener


            class Log(RebalanceListener):
                async def on_partitions_assigned(self, assigned, consumer: RebalanceConsumer, *, verbose=False):
                    print(assigned, verbose)

                async def on_partitions_revoked(self, revoked, consumer: RebalanceConsumer):
                    pass


            class RebalanceCallbacks(GuardRebalanceListener):
                def on_partitions_assigned(self, partitions, consumer: GuardRebalanceConsumer, retries=3, *, verbose=False):
                    print(partitions, retries, verbose)


            class Service(GuardRebalanceListener):
                def __init__(self):
                    self._consumer = Consumer({})

                def run(self):
                    subscribe(self._consumer, ["t"], self)

                def on_partitions_revoked(self, partitions, consumer: GuardRebalanceConsumer, *, label="svc"):
                    print(label, partitions)


            async def main():
                a = AIOKafkaConsumer()
                set_rebalance_listener(a, Log())
                a.subscribe(["t"])
                c = Consumer({})
                subscribe(c, ["t"], RebalanceCallbacks())
        """
        self.assertCodemod(before, after, expected_warnings=[])

    def test_a_nested_callback_defaulting_to_its_method_s_self_keeps_it(self) -> None:
        """``_self=self``, the closure idiom from before closures: ``self`` is a parameter of
        the method the callback is defined in, bound nowhere else there, so the listener class
        gathered in that method reads the same object."""
        before = """
            import confluent_kafka


            class Worker:
                def start(self, topic, conf):
                    self.consumer = confluent_kafka.Consumer(conf)
                    self.assigned = 0

                    def on_assign(consumer, partitions, _self=self):
                        for part in partitions:
                            _self.assigned += 1
                            print(consumer.get_watermark_offsets(part))

                    self.consumer.subscribe([topic], on_assign=on_assign)
        """
        after = """
            import confluent_kafka
            from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe


            class Worker:
                def start(self, topic, conf):
                    self.consumer = confluent_kafka.Consumer(conf)
                    self.assigned = 0

                    class RebalanceCallbacks(RebalanceListener):
                        def on_partitions_assigned(listener, partitions, consumer: RebalanceConsumer, _self=self):
                            for part in partitions:
                                _self.assigned += 1
                                print(consumer.get_watermark_offsets(part))

                    subscribe(self.consumer, [topic], RebalanceCallbacks())
        """
        self.assertCodemod(before, after, expected_warnings=[])



CONFLUENT = "from confluent_kafka import Consumer\n\nc = Consumer({})\n"
NESTED = (
    "import confluent_kafka\n\n"
    "class W:\n    def start(self, topic):\n        c = confluent_kafka.Consumer({{}})\n"
    "{rebind}"
    "        def on_assign(consumer, partitions, _w={default}):\n            print(_w)\n\n"
    "        c.subscribe([topic], on_assign=on_assign)\n"
)
REFUSED = [
    (
        "a default naming a parameter of the enclosing method that is rebound there",
        NESTED.format(rebind="        topic = topic.strip()\n", default="topic"),
        "on_assign does not take exactly (consumer, partitions); fix its signature first (KRB109)",
    ),
    (
        "a default naming a local variable of the enclosing method (not a parameter)",
        NESTED.format(rebind="        other = 1\n", default="other"),
        "on_assign does not take exactly (consumer, partitions); fix its signature first (KRB109)",
    ),
    (
        "a default that is not a constant (evaluated where the class would be)",
        CONFLUENT
        + "LIMIT = 3\n\ndef on_assign(consumer, partitions, limit=LIMIT):\n    print(limit)\n\n"
        "c.subscribe(['t'], on_assign=on_assign)\n",
        "on_assign does not take exactly (consumer, partitions); fix its signature first (KRB109)",
    ),
    (
        "a parameter without a default after the client's",
        CONFLUENT + "def on_assign(consumer, partitions, limit):\n    print(limit)\n\n"
        "c.subscribe(['t'], on_assign=on_assign)\n",
        "on_assign does not take exactly (consumer, partitions); fix its signature first (KRB109)",
    ),
    (
        "an owner method also called elsewhere (its wrapper would drop what callers pass)",
        CONFLUENT + "class W:\n    def __init__(self):\n        self.c = Consumer({})\n\n"
        "    def _on_assign(self, consumer, partitions, limit=1):\n        print(limit)\n\n"
        "    def run(self):\n        self.c.subscribe(['t'], on_assign=self._on_assign)\n"
        "        self._on_assign(None, [], 5)\n",
        "_on_assign does not take exactly (self, consumer, partitions); fix its signature first (KRB109)",
    ),
]


@pytest.mark.parametrize(("name", "source", "reason"), REFUSED, ids=[c[0] for c in REFUSED])
def test_what_is_not_provably_the_same_stays_refused(name: str, source: str, reason: str) -> None:
    result = migrate_source(textwrap.dedent(source).encode(), "app.py")
    assert result.status == "ok" and result.new_source is None, result
    assert reason in [m.reason for m in result.manual], result.manual


def test_a_keyword_only_parameter_without_a_constant_default_stays_refused() -> None:
    source = (
        "from kafka import ConsumerRebalanceListener, KafkaConsumer\n\n"
        "class L(ConsumerRebalanceListener):\n"
        "    def on_partitions_revoked(self, revoked, *, log=print):\n        pass\n\n"
        "    def on_partitions_assigned(self, assigned, *, must):\n        pass\n\n"
        "c = KafkaConsumer()\nc.subscribe(['t'], listener=L())\n"
    )
    result = migrate_source(source.encode(), "app.py")
    assert result.new_source is None
    assert any("takes *args, keyword-only or **kwargs" in m.reason for m in result.manual)


def test_a_kafka_python_listener_with_a_computed_default_stays_refused() -> None:
    source = (
        "from kafka import ConsumerRebalanceListener, KafkaConsumer\n\n"
        "class L(ConsumerRebalanceListener):\n"
        "    def on_partitions_revoked(self, revoked, when=object()):\n        pass\n\n"
        "    def on_partitions_assigned(self, assigned):\n        pass\n\n"
        "c = KafkaConsumer()\nc.subscribe(['t'], listener=L())\n"
    )
    result = migrate_source(source.encode(), "app.py")
    assert result.new_source is None
    assert any("does not take exactly (self, partitions)" in m.reason for m in result.manual)
