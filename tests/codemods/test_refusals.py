# ruff: noqa: E501  (a table of small source files, one per line, reads best unwrapped)
"""Never guess: every shape the codemods refuse stays byte-identical and is reported.

One case per refusal reason in ``listeners.py`` and ``confluent.py``; each asserts the file
is unchanged and the report names the right line and reason.
"""

from __future__ import annotations

import textwrap

import pytest
from rebalance_codemods.api import migrate_source

KP_HEAD = """
from kafka import ConsumerRebalanceListener, KafkaConsumer

"""

LISTENER = """
class Listener(ConsumerRebalanceListener):
    def __init__(self, consumer):
        self.consumer = consumer

    def on_partitions_revoked(self, revoked):
        {revoked}

    def on_partitions_assigned(self, assigned):
        pass
"""


def kp(revoked: str = "self.consumer.commit()", tail: str = "") -> str:
    """A kafka-python file with one listener whose revoke body and module tail vary."""
    return KP_HEAD + LISTENER.format(revoked=revoked) + textwrap.dedent(tail)


REGISTER = """
consumer = KafkaConsumer(group_id="g")
consumer.subscribe(["a"], listener=Listener(consumer))
"""

CONFLUENT_HEAD = """
from confluent_kafka import Consumer

"""


def cf(body: str) -> str:
    return CONFLUENT_HEAD + textwrap.dedent(body)


CASES = [
    # --- kafka-python / aiokafka listeners -------------------------------------------------
    ("view-lacks-method", kp("self.consumer.poll(0)", REGISTER), 5,
     "a callback calls consumer.poll() (line 10), which the rebalance view does not offer"),
    ("consumer-escapes", kp("keep(self.consumer)", REGISTER), 5,
     "a callback uses the injected consumer other than to call a method (line 10)"),
    ("method-not-called", kp("f = self.consumer.commit", REGISTER), 5,
     "a callback uses consumer.commit without calling it (line 10)"),
    ("other-bases", kp(tail=REGISTER).replace("(ConsumerRebalanceListener)", "(Mixin, ConsumerRebalanceListener)"), 5,
     "other base classes or a metaclass"),
    ("decorated", kp(tail=REGISTER).replace("    def on_partitions_assigned", "    @trace\n    def on_partitions_assigned"), 5,
     "on_partitions_assigned is decorated; the codemod cannot know what the decorator expects"),
    ("wrong-arity", kp(tail=REGISTER).replace("on_partitions_assigned(self, assigned)", "on_partitions_assigned(self, assigned, extra)"), 5,
     "on_partitions_assigned does not take exactly (self, partitions)"),
    ("star-args", kp(tail=REGISTER).replace("on_partitions_assigned(self, assigned)", "on_partitions_assigned(self, *assigned)"), 5,
     "on_partitions_assigned takes *args, keyword-only or **kwargs parameters"),
    ("defaults", kp(tail=REGISTER).replace("on_partitions_assigned(self, assigned)", "on_partitions_assigned(self, assigned=())"), 5,
     "on_partitions_assigned has parameter defaults"),
    ("async-kafka-python", kp(tail=REGISTER).replace("    def on_partitions_assigned", "    async def on_partitions_assigned"), 5,
     "on_partitions_assigned is async, which kafka-python listeners cannot be"),
    ("called-directly", kp(tail=REGISTER + "listener = Listener(consumer)\nlistener.on_partitions_revoked(set())\n"), 5,
     "on_partitions_revoked is called directly at line 18"),
    ("subclassed", kp(tail=REGISTER + "class Sub(Listener):\n    pass\n"), 5,
     "Listener is used at line 17 in a way the codemod cannot follow"),
    ("no-instance", kp(), 5, "no instance is created in this file"),
    ("not-registered", kp(tail="consumer = KafkaConsumer()\nlistener = make(Listener(consumer))\n"), 5,
     "the instance created at line 15 is not registered"),
    ("instance-escapes", kp(tail="consumer = KafkaConsumer()\nlistener = Listener(consumer)\nconsumer.subscribe(['a'], listener=listener)\nkeep(listener)\n"), 5,
     "the listener listener is used at line 17 beyond its registration"),
    ("pinned-by-its-subscribe", kp(tail="consumer = KafkaConsumer()\nok = consumer.subscribe(['a'], listener=Listener(consumer))\n"), 5,
     "its subscribe() at line 15 cannot be migrated"),
    ("no-callbacks", KP_HEAD + "class Listener(ConsumerRebalanceListener):\n    x = 1\n" + REGISTER.replace("Listener(consumer)", "Listener()"), 4,
     "defines no on_partitions_* callback"),
    ("no-view-name", kp("consumer = rebalance_consumer = view = 1", REGISTER), 5,
     "on_partitions_revoked already uses every name the codemod would give the view"),
    ("other-consumer", kp(tail="consumer = KafkaConsumer()\nother = KafkaConsumer()\nother.subscribe(['a'], listener=Listener(consumer))\n"), 5,
     "calls self.consumer.commit() on a consumer the codemod cannot prove is the registering one"),
    ("mixed-consumers", kp(tail="a = KafkaConsumer()\nb = KafkaConsumer()\na.subscribe(['a'], listener=Listener(a))\nb.subscribe(['b'], listener=Listener(a))\n"), 5,
     "its constructor gets the registering consumer at some instantiations but not at others"),
    ("star-instantiation", kp(tail="consumer = KafkaConsumer()\nconsumer.subscribe(['a'], listener=Listener(*[consumer]))\n"), 5,
     "instantiated with *args or **kwargs at line 15"),
    ("subscribe-as-value", kp(tail="consumer = KafkaConsumer()\nok = consumer.subscribe(['a'], listener=Listener(consumer))\n"), 15,
     "subscribe(listener=...) is used as a value"),
    ("subscribe-shares-line", kp(tail="consumer = KafkaConsumer()\nconsumer.subscribe(['a'], listener=Listener(consumer)); go()\n"), 15,
     "subscribe(listener=...) shares its line with other statements"),
    ("receiver-not-a-name", "from kafka import KafkaConsumer\nmake().subscribe(['a'], listener=L())\n", 2,
     "the consumer is not a plain name, so it cannot be named twice"),
    ("subscribe-kwargs", "from kafka import KafkaConsumer\nc = KafkaConsumer()\nc.subscribe(listener=L(), **opts)\n", 3,
     "subscribe() takes *args or **kwargs"),
    ("evaluation-order", "from kafka import KafkaConsumer\nc = KafkaConsumer()\nc.subscribe(topics(), listener=make())\n", 3,
     "registering the listener first would change the order its arguments are evaluated"),
    ("kafka-python-async-base", KP_HEAD.replace("ConsumerRebalanceListener", "AsyncConsumerRebalanceListener") + "class Listener(AsyncConsumerRebalanceListener):\n    async def on_partitions_revoked(self, revoked):\n        pass\n" + REGISTER.replace("Listener(consumer)", "Listener()"), 4,
     "derives from kafka-python's AsyncConsumerRebalanceListener"),
    ("duck-typed-listener", KP_HEAD + "class Listener:\n    def on_partitions_revoked(self, revoked):\n        pass\n" + REGISTER.replace("Listener(consumer)", "Listener()"), 9,
     "listener class Listener derives from no client listener base"),
    ("which-client", "import kafka\nimport aiokafka\nc = make()\nc.subscribe(['a'], listener=L())\n", 4,
     "cannot tell which Kafka client this subscribe() belongs to"),
    # --- confluent-kafka callbacks ---------------------------------------------------------
    ("cf-view-lacks-method", cf("""
        def on_assign(consumer, partitions):
            consumer.poll(0)
        c = Consumer({})
        c.subscribe(["a"], on_assign=on_assign)
        """), 8, "on_assign calls consumer.poll() (line 6), which the rebalance view does not offer"),
    ("cf-lambda", cf("""
        c = Consumer({})
        c.subscribe(["a"], on_assign=lambda consumer, partitions: None)
        """), 6, "on_assign= is not a function defined in this file"),
    ("cf-used-twice", cf("""
        def on_revoke(consumer, partitions):
            consumer.commit(asynchronous=False)
        c = Consumer({})
        c.subscribe(["a"], on_revoke=on_revoke)
        keep(on_revoke)
        """), 8, "on_revoke is used elsewhere too"),
    ("cf-assign-subset", cf("""
        def on_assign(consumer, partitions):
            consumer.assign(partitions[:1])
        c = Consumer({})
        c.subscribe(["a"], on_assign=on_assign)
        """), 8, "consumer.assign() does not assign exactly the callback's partitions (line 6)"),
    ("cf-assign-not-last", cf("""
        def on_assign(consumer, partitions):
            consumer.assign(partitions)
            print(consumer.position(partitions))
        c = Consumer({})
        c.subscribe(["a"], on_assign=on_assign)
        """), 9, "consumer.assign() is not the last thing on_assign does (line 6)"),
    ("cf-assign-in-revoke", cf("""
        def on_revoke(consumer, partitions):
            consumer.assign(partitions)
        c = Consumer({})
        c.subscribe(["a"], on_revoke=on_revoke)
        """), 8, "consumer.assign() does not assign exactly the callback's partitions"),
    ("cf-unassign-in-assign", cf("""
        def on_assign(consumer, partitions):
            consumer.unassign()
        c = Consumer({})
        c.subscribe(["a"], on_assign=on_assign)
        """), 8, "consumer.unassign() does not release exactly the callback's partitions"),
    ("cf-unassign-args", cf("""
        def on_revoke(consumer, partitions):
            consumer.unassign(partitions)
        c = Consumer({})
        c.subscribe(["a"], on_revoke=on_revoke)
        """), 8, "consumer.unassign() with arguments"),
    ("cf-consumer-escapes", cf("""
        def on_revoke(consumer, partitions):
            helper(consumer)
        c = Consumer({})
        c.subscribe(["a"], on_revoke=on_revoke)
        """), 8, "on_revoke uses the consumer other than to call a method (line 6)"),
    ("cf-different-blocks", cf("""
        def on_assign(consumer, partitions):
            pass
        def main():
            def on_revoke(consumer, partitions):
                pass
            c = Consumer({})
            c.subscribe(["a"], on_assign=on_assign, on_revoke=on_revoke)
        """), 11, "the callbacks are defined in different blocks"),
    ("cf-decorated", cf("""
        @trace
        def on_assign(consumer, partitions):
            pass
        c = Consumer({})
        c.subscribe(["a"], on_assign=on_assign)
        """), 9, "on_assign is decorated or async"),
    ("cf-arity", cf("""
        def on_assign(consumer, partitions, extra=None):
            pass
        c = Consumer({})
        c.subscribe(["a"], on_assign=on_assign)
        """), 8, "on_assign does not take exactly (consumer, partitions)"),
    ("cf-rebinds", cf("""
        def on_assign(consumer, partitions):
            partitions = partitions[:1]
            consumer.assign(partitions)
        c = Consumer({})
        c.subscribe(["a"], on_assign=on_assign)
        """), 9, "on_assign rebinds its consumer or partitions parameter"),
    ("cf-positional-commit", cf("""
        def on_revoke(consumer, partitions):
            consumer.commit(None, None, False)
        c = Consumer({})
        c.subscribe(["a"], on_revoke=on_revoke)
        """), 8, "on_revoke passes commit() positional arguments (line 6)"),
    ("cf-unknown-arguments", cf("""
        def on_revoke(consumer, partitions):
            pass
        c = Consumer({})
        c.subscribe(on_revoke=on_revoke)
        """), 8, "subscribe() has arguments the codemod does not know"),
    ("cf-receiver", cf("""
        def on_revoke(consumer, partitions):
            pass
        make().subscribe(["a"], on_revoke=on_revoke)
        """), 7, "the consumer is not a plain name, so the codemod cannot pass it along"),
    ("cf-star-args", cf("""
        def on_revoke(consumer, partitions):
            pass
        c = Consumer({})
        c.subscribe(*topics, on_revoke=on_revoke)
        """), 8, "subscribe() takes *args or **kwargs"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("source", "line", "reason"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_refused_shape_is_byte_identical_and_reported(source: str, line: int, reason: str) -> None:
    result = migrate_source(source.encode(), "legacy.py")
    assert result.status == "ok", result.reason
    assert result.new_source is None, "a refused shape must stay byte-identical"
    reported = [(site.line, site.reason) for site in result.manual]
    assert any(at == line and reason in why for at, why in reported), reported


def test_listener_class_bound_twice_is_refused_but_its_registration_still_moves() -> None:
    """The registration does not depend on the class: the runtime takes legacy listeners."""
    source = kp(tail=REGISTER + "Listener = wrap(Listener)\n")
    result = migrate_source(source.encode(), "legacy.py")
    assert result.new_source is not None
    new = result.new_source.decode()
    assert LISTENER.format(revoked="self.consumer.commit()") in new  # the class is untouched
    assert 'set_rebalance_listener(consumer, Listener(consumer))\nconsumer.subscribe(["a"])' in new
    reported = [(m.line, m.reason) for m in result.manual]
    assert (5, "listener class Listener: the name Listener is bound more than once") in reported


def test_each_refusal_reason_in_the_code_has_a_case() -> None:
    """Every ``return "..."`` refusal message in the planners is exercised above."""
    import ast
    import inspect

    from rebalance_lint.analysis import migration_confluent, migration_listeners

    covered = " | ".join(reason for *_, reason in CASES)
    missing = []
    for module in (migration_listeners, migration_confluent):
        for node in ast.walk(ast.parse(inspect.getsource(module))):
            if isinstance(node, ast.Return) and isinstance(
                node.value, ast.JoinedStr | ast.Constant
            ):
                parts = [node.value] if isinstance(node.value, ast.Constant) else node.value.values
                texts = [v.value for v in parts if isinstance(v, ast.Constant)]
                probe = max((t for t in texts if isinstance(t, str)), key=len, default="").strip()
                if len(probe) > 12 and probe[:15] not in covered:
                    missing.append(probe)
    assert not missing, missing
