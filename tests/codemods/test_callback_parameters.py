# ruff: noqa: E501  (the "after" strings are the codemod's exact output; LibCST does not wrap)
"""A helper that registers the callbacks its callers pass (issue 25 item 3, REAL_WORLD.md: "a
helper that takes the callback as a parameter"; app-corpus 035's ``consumer_subscribe(conf,
topic_name, on_assign)``): where every call of the helper is in the file and passes None, a
def of the file or a lambda the view will do for, the helper registers a listener calling its
parameters with the view, and the callers' defs take the view
(``shapes/callback_parameters.py``); refused, naming the next step, where a callback it may be
given is not known."""

from __future__ import annotations

import textwrap

import pytest
from libcst.codemod import CodemodTest
from rebalance_codemods.api import migrate_source
from rebalance_codemods.commands import MigrateRebalanceListeners


class TestCallbackParameters(CodemodTest):
    TRANSFORM = MigrateRebalanceListeners

    def test_a_helper_called_with_a_def_that_assigns(self) -> None:
        before = """
            from confluent_kafka import Consumer


            def consumer_subscribe(conf, topic_name, on_assign):
                consumer = Consumer(conf)
                consumer.subscribe(topic_name, on_assign=on_assign)
                return consumer


            def on_assign(consumer, partitions):
                print("assigned", [p.partition for p in partitions])
                consumer.assign(partitions)


            if __name__ == "__main__":
                consumer = consumer_subscribe(conf={}, topic_name=["t"], on_assign=on_assign)
                consumer.poll(1.0)
        """
        after = """
            from confluent_kafka import Consumer, TopicPartition
            from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe


            def consumer_subscribe(conf, topic_name, on_assign):
                consumer = Consumer(conf)

                class RebalanceCallbacks(RebalanceListener):
                    def on_partitions_assigned(self, partitions: list[TopicPartition], consumer: RebalanceConsumer) -> None:
                        on_assign(consumer, partitions)

                subscribe(consumer, topic_name, RebalanceCallbacks())
                return consumer


            def on_assign(consumer, partitions):
                print("assigned", [p.partition for p in partitions])
                for partition in partitions:
                    consumer.seek(partition)


            if __name__ == "__main__":
                consumer = consumer_subscribe(conf={}, topic_name=["t"], on_assign=on_assign)
                consumer.poll(1.0)
        """
        self.assertCodemod(before, after, expected_warnings=[])

    def test_a_nested_helper_with_defaults_called_with_a_lambda_and_shared_defs(self) -> None:
        before = """
            from confluent_kafka import Consumer


            def track(consumer, partitions):
                print(consumer.assignment(), partitions)


            def run(config):
                def start(consumer, topics, on_assign=None, on_revoke=None):
                    consumer.subscribe(topics, on_assign=on_assign, on_revoke=on_revoke)

                first = Consumer(config)
                start(first, ["a"], track, lambda c, p: c.commit(asynchronous=False))
                second = Consumer(config)
                start(second, ["b"], on_assign=track, on_revoke=track)
                track(first, [])
        """
        after = """
            from confluent_kafka import Consumer, TopicPartition
            from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe


            def track(consumer, partitions):
                print(consumer.assignment(), partitions)


            def run(config):
                def start(consumer, topics, on_assign=None, on_revoke=None):
                    class RebalanceCallbacks(RebalanceListener):
                        def on_partitions_assigned(self, partitions: list[TopicPartition], consumer: RebalanceConsumer) -> None:
                            if on_assign is not None:
                                on_assign(consumer, partitions)

                        def on_partitions_revoked(self, partitions: list[TopicPartition], consumer: RebalanceConsumer) -> None:
                            if on_revoke is not None:
                                on_revoke(consumer, partitions)

                    subscribe(consumer, topics, RebalanceCallbacks())

                first = Consumer(config)
                start(first, ["a"], track, lambda c, p: c.commit(asynchronous=False))
                second = Consumer(config)
                start(second, ["b"], on_assign=track, on_revoke=track)
                track(first, [])
        """
        self.assertCodemod(before, after, expected_warnings=[])

    def test_an_aio_helper_awaits_the_callbacks_it_was_given(self) -> None:
        before = """
            from confluent_kafka.aio import AIOConsumer


            async def start(consumer: AIOConsumer, topics, on_assign=None, on_revoke=None):
                await consumer.subscribe(topics, on_assign=on_assign, on_revoke=on_revoke)


            async def committing(consumer, partitions):
                await consumer.commit(asynchronous=False)


            async def pausing(consumer, partitions):
                await consumer.pause(partitions)


            async def main():
                consumer = AIOConsumer({"group.id": "g"})
                await start(consumer, ["t"], on_assign=pausing, on_revoke=committing)
        """
        after = """
            from confluent_kafka.aio import AIOConsumer
            from confluent_kafka import TopicPartition
            from rebalance_guard.confluent_kafka_aio import RebalanceConsumer, RebalanceListener, subscribe


            async def start(consumer: AIOConsumer, topics, on_assign=None, on_revoke=None):
                class RebalanceCallbacks(RebalanceListener):
                    async def on_partitions_assigned(self, partitions: list[TopicPartition], consumer: RebalanceConsumer) -> None:
                        if on_assign is not None:
                            await on_assign(consumer, partitions)

                    async def on_partitions_revoked(self, partitions: list[TopicPartition], consumer: RebalanceConsumer) -> None:
                        if on_revoke is not None:
                            await on_revoke(consumer, partitions)

                await subscribe(consumer, topics, RebalanceCallbacks())


            async def committing(consumer, partitions):
                await consumer.commit(asynchronous=False)


            async def pausing(consumer, partitions):
                await consumer.pause(partitions)


            async def main():
                consumer = AIOConsumer({"group.id": "g"})
                await start(consumer, ["t"], on_assign=pausing, on_revoke=committing)
        """
        self.assertCodemod(before, after, expected_warnings=[])


HEAD = "from confluent_kafka import Consumer\n\n\ndef handler(consumer, partitions):\n    consumer.commit(asynchronous=False)\n\n\n"
REFUSED = [
    ("not called in the file", "def helper(c, cb):\n    c.subscribe(['t'], on_revoke=cb)\n",
     "parameters of helper()"),
    ("an API", "def helper(c, cb):\n    c.subscribe(['t'], on_revoke=cb)\n",
     "which nothing in this file calls"),
    ("passed as a value", "def helper(c, cb):\n    c.subscribe(['t'], on_revoke=cb)\n\n\nhooks = [helper]\n",
     "helper() is used at line 12 other than by a call"),
    ("an imported callback", "from hooks import on_revoke\n\n\ndef helper(c, cb):\n    c.subscribe(['t'], on_revoke=cb)\n\n\nhelper(Consumer({}), on_revoke)\n",
     "helper() is called at line 15 with cb=on_revoke, a callback the codemod cannot see"),
    ("a callback the view will not do for", "def helper(c, cb):\n    c.subscribe(['t'], on_revoke=cb)\n\n\ndef closing(consumer, partitions):\n    consumer.close()\n\n\nhelper(Consumer({}), closing)\n",
     "closing calls consumer.close()"),
    ("a lambda that assigns", "def helper(c, cb):\n    c.subscribe(['t'], on_assign=cb)\n\n\nhelper(Consumer({}), lambda c, p: c.assign(p))\n",
     "the on_assign= lambda calls assign() (line 12)"),
    ("used by the helper too", "def helper(c, cb):\n    c.subscribe(['t'], on_revoke=cb)\n    cb(c, [])\n\n\nhelper(Consumer({}), handler)\n",
     "a parameter of helper() that it also uses at line 10"),
    ("annotated", "from typing import Callable\n\n\ndef helper(c, cb: Callable[..., None]):\n    c.subscribe(['t'], on_revoke=cb)\n\n\nhelper(Consumer({}), handler)\n",
     "annotated Callable[..., None]"),
    ("a callable default", "def helper(c, cb=handler):\n    c.subscribe(['t'], on_revoke=cb)\n\n\nhelper(Consumer({}))\n",
     "whose default is not None"),
    ("a method", "class Worker:\n    def start(self, c, cb):\n        c.subscribe(['t'], on_revoke=cb)\n\n\nWorker().start(Consumer({}), handler)\n",
     "parameters of the method start()"),
    ("mixed with a def", "def helper(c, cb):\n    c.subscribe(['t'], on_assign=cb, on_revoke=handler)\n\n\nhelper(Consumer({}), handler)\n",
     "some of this subscribe()'s callbacks are parameters"),
    ("a shared def annotated", "def typed(consumer: Consumer, partitions):\n    consumer.commit(asynchronous=False)\n\n\ndef helper(c, cb):\n    c.subscribe(['t'], on_revoke=cb)\n\n\nhelper(Consumer({}), typed)\ntyped(Consumer({}), [])\n",
     "typed is used elsewhere too"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "tail", "reason"), REFUSED, ids=[r[0] for r in REFUSED])
def test_helpers_whose_callbacks_are_not_all_known_are_refused(
    name: str, tail: str, reason: str
) -> None:
    source = textwrap.dedent(HEAD + tail).encode()
    result = migrate_source(source, "app.py")
    assert result.status == "ok" and result.new_source is None, result
    assert any(reason in m.reason for m in result.manual), result.manual
    next_step = ("first", "by hand", "instead", "then run migrate again")
    assert all(any(w in m.reason for w in next_step) for m in result.manual), result.manual


def test_a_method_of_the_callers_class_takes_the_view_and_stays() -> None:
    """REAL_WORLD.md's most common confluent callback (a method of the class owning the
    consumer), passed to a helper by a method of that class (the feature-pipeline shape)."""
    source = textwrap.dedent("""\
        from confluent_kafka import Consumer


        def subscribe_with_commit(consumer, topics, on_revoke):
            consumer.subscribe(topics, on_revoke=on_revoke)


        class Stage:
            def __init__(self, consumer, topics):
                self.consumer = consumer
                self.topics = topics

            def on_revoke(self, consumer, partitions):
                consumer.commit(asynchronous=False)

            def run(self):
                subscribe_with_commit(self.consumer, self.topics, self.on_revoke)
    """).encode()
    result = migrate_source(source, "app.py")
    assert result.status == "ok" and not result.manual, result
    assert result.new_source is not None
    after = result.new_source.decode()
    assert "    subscribe(consumer, topics, RebalanceCallbacks())\n" in after
    assert "            on_revoke(consumer, partitions)\n" in after
    assert after.split("class Stage:")[1] == source.decode().split("class Stage:")[1]
    assert migrate_source(result.new_source, "app.py").new_source is None


MORE_REFUSED = [
    ("exported", "__all__ = ['helper']\n\n\ndef helper(c, cb):\n    c.subscribe(['t'], on_revoke=cb)\n\n\nhelper(Consumer({}), handler)\n",
     "which __all__ exports"),
    ("assigns through another consumer", "c = Consumer({})\n\n\ndef helper(c, cb):\n    c.subscribe(['t'], on_assign=cb)\n\n\ndef rewind(consumer, partitions):\n    c.assign(partitions)\n\n\nhelper(c, rewind)\n",
     "rewind calls c.assign() (line 16), not on its consumer argument"),
    ("a lambda's parameter", "register = lambda c, cb: c.subscribe(['t'], on_revoke=cb)\n",
     "on_revoke= is cb, a parameter of a lambda: the callback is whatever its callers pass"),
    ("a handler parameter's methods", "class Backend:\n    def subscribe(self, c, handler=None):\n        c.subscribe(['t'], on_assign=handler.on_assign, on_revoke=handler.on_revoke)\n",
     "on_assign=handler.on_assign, on_revoke=handler.on_revoke: methods of handler, a parameter of Backend.subscribe(), so the callbacks are whatever objects its callers pass"),
    ("a decorated helper", "import functools\n\n\n@functools.cache\ndef helper(c, cb):\n    c.subscribe(['t'], on_revoke=cb)\n\n\nhelper(Consumer({}), handler)\n",
     "helper() is decorated"),
    ("not a statement of its own", "def helper(c, cb):\n    return c.subscribe(['t'], on_revoke=cb)\n\n\nhelper(Consumer({}), handler)\n",
     "the subscribe() in helper() is not a statement of its own"),
    ("bound twice", "def helper(c, cb):\n    c.subscribe(['t'], on_revoke=cb)\n\n\nhelper(Consumer({}), handler)\nhelper = print\n",
     "helper() is bound more than once in this file"),
    ("**kwargs", "def helper(c, **cb):\n    c.subscribe(['t'], on_revoke=cb)\n\n\nhelper(Consumer({}))\n",
     "on_revoke= is cb, a parameter of helper() (*args or **kwargs)"),
    ("named like the method's own", "def helper(c, partitions):\n    c.subscribe(['t'], on_revoke=partitions)\n\n\nhelper(Consumer({}), handler)\n",
     "named like a listener method's parameter"),
    ("called with *args", "def helper(c, cb):\n    c.subscribe(['t'], on_revoke=cb)\n\n\nhelper(*[Consumer({}), handler])\n",
     "helper() is called with *args or **kwargs at line 12"),
    ("not passed, no default", "def helper(c, cb, other=None):\n    c.subscribe(['t'], on_revoke=cb)\n\n\nhelper(Consumer({}), other=1)\n",
     "helper() is called at line 12 without cb="),
    ("None left out", "def helper(c, cb=None):\n    c.subscribe(['t'], on_revoke=cb)\n\n\nhelper(Consumer({}), handler)\nhelper(Consumer({}))\n",
     "helper() is called at line 13 without cb= (its default None reaches subscribe() as on_revoke=None), which confluent does not take as no callback (Consumer.subscribe() raises TypeError: on_revoke expects a callable; AIOConsumer calls None at the rebalance); pass a def there (def on_revoke(consumer, partitions) doing what confluent's default does, e.g. consumer.assign(partitions) for on_assign), first"),
    ("None passed", "def helper(c, cb=None):\n    c.subscribe(['t'], on_assign=cb)\n\n\nhelper(Consumer({}), None)\n",
     "helper() is called at line 12 with cb=None (subscribe() gets on_assign=None), which confluent does not take as no callback"),
    ("AIOConsumer, None left out", "from confluent_kafka.aio import AIOConsumer\n\n\nasync def helper(c, cb=None):\n    await c.subscribe(['t'], on_assign=cb)\n\n\nasync def main():\n    await helper(AIOConsumer({}))\n",
     "helper() is called at line 16 without cb= (its default None reaches subscribe() as on_assign=None), which confluent does not take as no callback"),
    ("a decorated method", "import functools\n\n\ndef helper(c, cb):\n    c.subscribe(['t'], on_revoke=cb)\n\n\nclass A:\n    @functools.cache\n    def revoke(self, consumer, partitions):\n        pass\n\n    def run(self, c):\n        helper(c, self.revoke)\n",
     "a decorated method, which the codemod cannot follow"),
    ("an overridable method", "def helper(c, cb):\n    c.subscribe(['t'], on_revoke=cb)\n\n\nclass A:\n    def revoke(self, consumer, partitions):\n        pass\n\n    def run(self, c):\n        helper(c, self.revoke)\n\n\nclass B(A):\n    pass\n",
     "a method that class B (line 20) may override"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "tail", "reason"), MORE_REFUSED, ids=[r[0] for r in MORE_REFUSED])
def test_more_helpers_are_refused(name: str, tail: str, reason: str) -> None:
    test_helpers_whose_callbacks_are_not_all_known_are_refused(name, tail, reason)


#: Every refusal these cases give, in full (test_refusals checks each reason in the code has one).
REASONS = [
    m.reason
    for _, tail, _ in REFUSED + MORE_REFUSED
    for m in migrate_source(textwrap.dedent(HEAD + tail).encode(), "app.py").manual
]
