# ruff: noqa: E501  (a table of small source files, one per line, reads best unwrapped)
"""Never guess: every shape the codemods refuse stays byte-identical and is reported.

One case per refusal reason in ``listeners.py`` and ``confluent.py``; each asserts the file
is unchanged and the report names the right line and reason.
"""

from __future__ import annotations

import textwrap

import pytest
from rebalance_codemods.api import migrate_source

from tests.codemods.test_assign_at_offsets import REASONS as ASSIGN_AT_OFFSETS_REASONS
from tests.codemods.test_assign_committed import REASONS as ASSIGN_COMMITTED_REASONS
from tests.codemods.test_assign_in_helper import REASONS as ASSIGN_IN_HELPER_REASONS
from tests.codemods.test_callback_parameters import REASONS as CALLBACK_PARAMETER_REASONS
from tests.codemods.test_chained_listeners import REASONS as CHAINED_LISTENER_REASONS
from tests.codemods.test_chosen_callbacks import REASONS as CHOSEN_CALLBACK_REASONS
from tests.codemods.test_factory_callbacks import REASONS as FACTORY_CALLBACK_REASONS
from tests.codemods.test_listener_bases import REASONS as LISTENER_BASE_REASONS
from tests.codemods.test_listener_helper_methods import REASONS as LISTENER_HELPER_REASONS
from tests.codemods.test_optional_listeners import REASONS as OPTIONAL_LISTENER_REASONS
from tests.codemods.test_owner_lambdas import REASONS as OWNER_LAMBDA_REASONS
from tests.codemods.test_owner_method_takes_view import REASONS as OWNER_METHOD_REASONS
from tests.codemods.test_owner_two_roles import REASONS as OWNER_TWO_ROLES_REASONS
from tests.codemods.test_role_named_callbacks import REASONS as ROLE_NAMED_REASONS

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


def aio(body: str) -> str:
    return "\nfrom confluent_kafka.aio import AIOConsumer\n\n" + textwrap.dedent(body)


OWNER = """
class Worker:
    def __init__(self, config):
        self.consumer = Consumer(config)

    def start(self):
        self.consumer.subscribe(["a"], on_assign=self._on_assign, on_revoke=self._on_revoke)

    def _on_assign(self, consumer, partitions):
        consumer.assign(partitions)

    def _on_revoke(self, consumer, partitions):
        consumer.commit(asynchronous=False)
"""


def owner(tail: str = "") -> str:
    """A confluent consumer class registering its own methods, and a module tail."""
    return cf(OWNER + textwrap.dedent(tail))


CASES = [
    # --- kafka-python / aiokafka listeners -------------------------------------------------
    ("view-lacks-method", kp("self.consumer.poll(0)", REGISTER), 5,
     "a callback calls consumer.poll() (line 10), which the rebalance view does not offer"),
    ("consumer-escapes", kp("keep(self.consumer)", REGISTER), 5,
     "a callback uses the injected consumer other than to call a method (line 10): passes it to keep(); call the consumer's methods in the callback itself"),
    ("method-not-called", kp("f = self.consumer.commit", REGISTER), 5,
     "a callback uses consumer.commit without calling it (line 10); the view offers method calls only: read it outside the callbacks (in the poll loop) and keep what the callback needs on the listener, then run migrate again"),
    # a mixin listener (Mixin, ConsumerRebalanceListener) migrates: test_listener_bases.py
    ("metaclass", kp(tail=REGISTER).replace("(ConsumerRebalanceListener)", "(Mixin, ConsumerRebalanceListener, metaclass=Meta)"), 5,
     "a metaclass or class keywords; the codemod cannot rebase it safely; by hand, move its callbacks into a class deriving from rebalance_guard's RebalanceListener alone"),
    ("decorated", kp(tail=REGISTER).replace("    def on_partitions_assigned", "    @trace\n    def on_partitions_assigned"), 5,
     "on_partitions_assigned is decorated; the codemod cannot know what the decorator expects"),
    ("wrong-arity", kp(tail=REGISTER).replace("on_partitions_assigned(self, assigned)", "on_partitions_assigned(self, assigned, extra)"), 5,
     "on_partitions_assigned does not take exactly (self, partitions); fix its signature first (KRB109)"),
    ("star-args", kp(tail=REGISTER).replace("on_partitions_assigned(self, assigned)", "on_partitions_assigned(self, *assigned)"), 5,
     "on_partitions_assigned takes *args, keyword-only or **kwargs parameters"),
    ("defaults", kp(tail=REGISTER).replace("on_partitions_assigned(self, assigned)", "on_partitions_assigned(self, assigned=())"), 5,
     "on_partitions_assigned has parameter defaults"),
    ("async-kafka-python", kp(tail=REGISTER).replace("    def on_partitions_assigned", "    async def on_partitions_assigned"), 5,
     "on_partitions_assigned is async, which kafka-python listeners cannot be"),
    ("hoisting-in-a-class-body", kp(tail='class Service:\n    consumer = KafkaConsumer(group_id="g")\n    consumer.subscribe(load(), listener=make())\n'), 16,
     "registering the listener first would change the order its arguments are evaluated, and in a class body they cannot go into variables first (they would become class attributes); compute them into variables first"),
    ("called-directly", kp(tail=REGISTER + "listener = Listener(consumer)\nlistener.on_partitions_revoked(set())\n"), 5,
     "on_partitions_revoked is called directly at line 18, with one argument (on listener, which the codemod cannot tell from an instance of this class; migrated, its on_partitions_revoked takes the view too, and in another module's test rebalance-guard migrate DIR drives it through the listener test harness); move that code into a helper method both call, or give the other object's method another name, first"),
    ("subclassed", kp(tail=REGISTER + "class Sub(Listener):\n    pass\n"), 5,
     "Listener is used at line 17 in a way the codemod cannot follow"),
    ("no-instance", kp(), 5, "no instance is created in this file"),
    ("returns-a-value", kp("yield\n        return self.consumer.commit()", REGISTER), 5,
     "on_partitions_revoked returns a value (line 11), which the client ignores and a RebalanceListener method may not; drop the return value first"),
    ("returns-on-a-shared-line", kp("if revoked: return self.consumer.commit()", REGISTER), 5,
     "on_partitions_revoked returns a value (line 10) on a line it shares with other code; put that return on a line of its own first"),
    ("returned-value-used", kp("return self.consumer.commit()", REGISTER).replace("    def on_partitions_assigned(self, assigned):\n        pass", "    def on_partitions_assigned(self, assigned):\n        print(self.on_partitions_revoked(assigned))"), 5,
     "on_partitions_revoked returns a value (line 10), which the call at line 13 uses, and a RebalanceListener method returns nothing; compute that value in a helper both call first"),
    ("aiokafka-returns-maybe-a-coroutine", textwrap.dedent("""
        from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener

        class Listener(ConsumerRebalanceListener):
            def on_partitions_revoked(self, revoked):
                return self.flush()

            def on_partitions_assigned(self, assigned):
                pass

        consumer = AIOKafkaConsumer(group_id="g")
        consumer.subscribe(["a"], listener=Listener())
        """), 4,
     "on_partitions_revoked returns a value (line 6), which aiokafka awaits if it is a coroutine (the migrated listener would await it whatever it is); make on_partitions_revoked async def and await it, or drop the value, first"),
    ("not-registered", kp(tail="consumer = KafkaConsumer()\nlistener = make(Listener(consumer))\n"), 5,
     "the instance created at line 15 is not registered"),
    ("instance-escapes", kp(tail="consumer = KafkaConsumer()\nlistener = Listener(consumer)\nconsumer.subscribe(['a'], listener=listener)\nkeep(listener)\n"), 5,
     "the listener listener is used at line 17 beyond its registration"),
    ("pinned-by-its-subscribe", kp(tail="consumer = KafkaConsumer()\nok = consumer.subscribe(['a'], listener=Listener(consumer))\n"), 5,
     "its subscribe() at line 15 cannot be migrated"),
    ("no-view-name", kp("consumer = rebalance_consumer = view = 1", REGISTER), 5,
     "on_partitions_revoked already uses every name the codemod would give the view"),
    ("other-consumer", kp(tail="consumer = KafkaConsumer()\nother = KafkaConsumer()\nother.subscribe(['a'], listener=Listener(consumer))\n"), 5,
     "calls self.consumer.commit() on a consumer the codemod cannot prove is the registering one"),
    ("mixed-consumers", kp(tail="a = KafkaConsumer()\nb = KafkaConsumer()\na.subscribe(['a'], listener=Listener(a))\nb.subscribe(['b'], listener=Listener(a))\n"), 5,
     "its constructor gets the registering consumer at some instantiations but not at others"),
    ("star-instantiation", kp(tail="consumer = KafkaConsumer()\nconsumer.subscribe(['a'], listener=Listener(*[consumer]))\n"), 5,
     "instantiated with *args or **kwargs at line 15"),
    ("subscribe-as-value", kp(tail="consumer = KafkaConsumer()\nok = consumer.subscribe(['a'], listener=Listener(consumer))\n"), 15,
     "subscribe(listener=...) is used as a value (its value is None); call it as a statement of its own line, then run migrate again"),
    ("subscribe-shares-line", kp(tail="consumer = KafkaConsumer()\nconsumer.subscribe(['a'], listener=Listener(consumer)); go()\n"), 15,
     "subscribe(listener=...) shares its line with other statements"),
    ("receiver-not-a-name", "from kafka import KafkaConsumer\nmake().subscribe(['a'], listener=L())\n", 2,
     "the consumer is not a plain name, so it cannot be named twice"),
    ("subscribe-kwargs", "from kafka import KafkaConsumer\nc = KafkaConsumer()\nc.subscribe(listener=L(), **opts)\n", 3,
     "subscribe() takes *args or **kwargs"),
    ("kafka-python-async-base-def-callback", KP_HEAD.replace("ConsumerRebalanceListener", "AsyncConsumerRebalanceListener") + "class Listener(AsyncConsumerRebalanceListener):\n    def on_partitions_revoked(self, revoked):\n        pass\n" + REGISTER.replace("Listener(consumer)", "Listener()"), 4,
     "on_partitions_revoked is a plain def (kafka-python calls it on its IO loop, where a blocking consumer call raises); make it async def, or derive from ConsumerRebalanceListener, then run migrate again"),
    ("kafka-python-async-nested-blocking-call", KP_HEAD.replace("ConsumerRebalanceListener", "AsyncConsumerRebalanceListener") + "class Listener(AsyncConsumerRebalanceListener):\n    def __init__(self, consumer):\n        self.consumer = consumer\n\n    async def on_partitions_revoked(self, revoked):\n        def go():\n            self.consumer.commit()\n        go()\n" + REGISTER, 4,
     "calls consumer.commit() inside a nested function (line 10): it blocks kafka-python 3's IO loop, and on the async view it must be awaited in the callback itself; move it there, then run migrate again"),
    ("kafka-python-async-generator", KP_HEAD.replace("ConsumerRebalanceListener", "AsyncConsumerRebalanceListener") + "class Listener(AsyncConsumerRebalanceListener):\n    def __init__(self, consumer):\n        self.consumer = consumer\n\n    async def on_partitions_revoked(self, revoked):\n        print(sum(self.consumer.position(tp) for tp in revoked))\n" + REGISTER, 4,
     "calls consumer.position() inside a generator expression (line 9), where an await would make it an async generator; use a list comprehension or a loop, then run migrate again"),
    ("kafka-python-async-consumer-handed-on", KP_HEAD.replace("ConsumerRebalanceListener", "AsyncConsumerRebalanceListener") + "class Listener(AsyncConsumerRebalanceListener):\n    def __init__(self, consumer):\n        self.consumer = consumer\n\n    async def on_partitions_revoked(self, revoked):\n        flush(self.consumer)\n\n\ndef flush(consumer):\n    consumer.commit()\n" + REGISTER, 4,
     "hands the consumer on (line 9); on the async view its blocking methods are coroutines the receiver would have to await: pass it only what it needs, then run migrate again"),
    ("duck-typed-listener", KP_HEAD + "class Listener:\n    def on_partitions_revoked(self, revoked):\n        pass\n" + REGISTER.replace("Listener(consumer)", "Listener()"), 9,
     "listener class Listener derives from no client listener base, which kafka-python's and aiokafka's subscribe() reject (an isinstance check raises); derive it from the client's ConsumerRebalanceListener first (KRB114), then run migrate again"),
    ("listener-unbased-through-file", KP_HEAD + "class Base:\n    pass\n\n\nclass Listener(Base):\n    def on_partitions_revoked(self, revoked):\n        pass\n" + REGISTER.replace("Listener(consumer)", "Listener()"), 13,
     "listener class Listener derives, through Base (of this file), from no client listener base, which kafka-python's and aiokafka's subscribe() reject (an isinstance check raises); derive Base from the client's ConsumerRebalanceListener first (KRB114), then run migrate again"),
    ("listener-imported-base", KP_HEAD + "from mylib import BaseListener\n\n\nclass Listener(BaseListener):\n    def on_partitions_revoked(self, revoked):\n        pass\n" + REGISTER.replace("Listener(consumer)", "Listener()"), 12,
     "listener class Listener derives from BaseListener, which the codemod cannot tell derives from the client's ConsumerRebalanceListener (kafka-python's and aiokafka's subscribe() reject any other listener); if it does, run rebalance-guard migrate on a directory holding that base's module too, else derive the class from the client's ConsumerRebalanceListener first, then run migrate again"),
    ("self-unbased", "from aiokafka import AIOKafkaConsumer\n\n\nclass Reader:\n    def open(self):\n        self.consumer = AIOKafkaConsumer(group_id='g')\n        self.consumer.subscribe(['a'], listener=self)\n\n    def on_partitions_revoked(self, revoked):\n        pass\n\n    def on_partitions_assigned(self, assigned):\n        pass\n", 7,
     "listener=self: class Reader derives from no client listener base (nor does any class of this file derive from it), which kafka-python's and aiokafka's subscribe() reject (an isinstance check raises); derive it from the client's ConsumerRebalanceListener first (KRB114), then run migrate again"),
    ("which-client", "import kafka\nimport aiokafka\nc = make()\nc.subscribe(['a'], listener=L())\n", 4,
     "cannot tell which Kafka client this subscribe() belongs to"),
    # --- confluent-kafka callbacks ---------------------------------------------------------
    ("cf-view-lacks-method", cf("""
        def on_assign(consumer, partitions):
            consumer.poll(0)
        c = Consumer({})
        c.subscribe(["a"], on_assign=on_assign)
        """), 8, "on_assign calls consumer.poll() (line 6), which the rebalance view does not offer"),
    ("cf-lambda-calls-poll", cf("""
        c = Consumer({})
        c.subscribe(["a"], on_assign=lambda consumer, partitions: consumer.poll(0))
        """), 6, "the on_assign= lambda calls consumer.poll() (line 6), which the rebalance view does not offer (KIP-1306); move that call out of the callback first"),
    ("cf-lambda-passes-consumer", cf("""
        def reset(consumer, partitions, flag):
            consumer.poll(0)
        c = Consumer({})
        c.subscribe(["a"], on_assign=lambda c, p: reset(c, p, True))
        """), 8, "the on_assign= lambda uses the consumer other than to call a method (line 8): passes it to reset(), which uses consumer.poll (line 6) other than as a call the view offers as written; move that out of reset() (or call the consumer's methods in the callback itself)"),
    ("cf-lambda-defaults", cf("""
        c = Consumer({})
        for t in ["a", "b"]:
            c.subscribe([t], on_assign=lambda consumer, partitions, t=t: print(t))
        """), 7, "the on_assign= lambda takes default arguments (values bound when it was created); bind them with functools.partial on a def on_assign(..., consumer, partitions) instead"),
    ("cf-lambda-not-a-statement", cf("""
        c = Consumer({})
        if True: c.subscribe(["a"], on_lost=lambda consumer, partitions: None)
        """), 6, "the lambda's subscribe() (or assignment) is not a statement of its own in a function or module body, so the listener class has no place next to it; put it on a line of its own there first"),
    ("cf-lambda-elsewhere", cf("""
        def on_revoke(consumer, partitions):
            consumer.commit(asynchronous=False)
        def run(flag):
            c = Consumer({})
            c.subscribe(["a"], on_revoke=on_revoke, on_lost=lambda consumer, partitions: print(flag))
        """), 9, "the on_lost= lambda is not defined next to the other callbacks (another block or function), where the listener class goes; define them in one place first"),
    ("cf-lambda-variable-used-twice", cf("""
        c = Consumer({})
        on_lost = lambda consumer, partitions: None
        c.subscribe(["a"], on_lost=on_lost)
        keep(on_lost)
        """), 7, "on_lost is used elsewhere too; moving it into a listener class would break those uses; make them call a helper both use first"),
    ("cf-variable-not-a-lambda", cf("""
        import functools
        def revoke(tag, consumer, partitions):
            pass
        c = Consumer({})
        on_revoke = functools.partial(revoke, "t")
        c.subscribe(["a"], on_revoke=on_revoke)
        """), 10, "on_revoke= is the variable on_revoke, assigned at line 9 from something other than a lambda or a def's name; pass that function, lambda or functools.partial(...) to subscribe() directly first"),
    ("cf-callback-parameter", cf("""
        def start(topics, callback):
            c = Consumer({})
            c.subscribe(topics, on_assign=callback)
        """), 7, "the callbacks are parameters of start(), which nothing in this file calls: its callers (an API's users, or other modules) pass callbacks the codemod cannot see; make it take a rebalance_guard RebalanceListener and register it with rebalance_guard's subscribe() by hand, or call subscribe() where the callbacks are defined"),
    ("cf-def-variable-used-twice", cf("""
        def on_assign(consumer, partitions):
            pass
        cb = on_assign
        c = Consumer({})
        c.subscribe(["a"], on_assign=cb)
        keep(cb)
        """), 9, "on_assign= is the variable cb (line 7), which is bound again or used elsewhere too; pass on_assign to subscribe() directly first"),
    ("cf-def-variable-in-another-block", cf("""
        def on_assign(consumer, partitions):
            pass
        def run():
            cb = on_assign
            c = Consumer({})
            c.subscribe(["a"], on_assign=cb)
        """), 10, "on_assign= is the variable cb (line 8), assigned outside the block defining on_assign (where the listener class goes) or not on a line of its own; pass on_assign to subscribe() directly first"),
    ("aio-lambda", aio("""
        async def main():
            c = AIOConsumer({})
            await c.subscribe(["a"], on_assign=lambda consumer, partitions: consumer.incremental_assign(partitions))
        """), 7, "on_assign= is a lambda, and AIOConsumer awaits what its callbacks return (a lambda cannot await); define it with async def on_assign(consumer, partitions) next to the subscribe() and pass its name, then run migrate again"),
    ("cf-partial-of-imported", cf("""
        import functools
        from handlers import on_assign
        c = Consumer({})
        c.subscribe(["a"], on_assign=functools.partial(on_assign, "t"))
        """), 8, "on_assign= is a functools.partial of on_assign, which is imported, not a function defined in this file; write def on_assign(consumer, partitions) calling it with the bound arguments next to the subscribe() and pass its name, then run migrate again"),
    ("cf-super-subscribe", cf("""
        def reset(consumer, partitions):
            consumer.assign(partitions)
        class Resetting(Consumer):
            def subscribe(self, topics, **kwargs):
                super().subscribe(topics, on_assign=reset)
        """), 9, "super().subscribe() in a consumer subclass: the subclass's own subscribe() wraps the registration; register a listener there by hand with rebalance_guard.confluent_kafka.subscribe(super(), topics, listener)"),
    ("kp-optional-dependency-nested-try", kp(tail=REGISTER).replace("from kafka import ConsumerRebalanceListener, KafkaConsumer", "try:\n    try:\n        from kafka import ConsumerRebalanceListener, KafkaConsumer\n    except AttributeError:\n        raise\nexcept (ImportError, AttributeError):\n    ConsumerRebalanceListener = object"), 11,
     "listener class Listener: kafka is an optional dependency here, imported only inside try/except ImportError below the module level (in a function, an if or another try); the codemod adds rebalance_guard.kafka_python's import only next to a module-level one: import kafka in a try block at module level (the except binding the names used), then run migrate again"),
    ("closure-bound-twice", """
from kafka import ConsumerRebalanceListener, KafkaConsumer
def main(topics):
    consumer = KafkaConsumer(group_id="g")
    if not topics:
        consumer = KafkaConsumer(group_id="fallback")
    class Committing(ConsumerRebalanceListener):
        def on_partitions_revoked(self, revoked):
            consumer.commit()
        def on_partitions_assigned(self, assigned):
            pass
    consumer.subscribe(topics, listener=Committing())
""", 7, "listener class Committing: its callbacks use main()'s consumer through a closure and main() binds consumer more than once, so the codemod cannot turn it into the view; derive from the rebalance_guard RebalanceListener by hand and use the consumer argument its callbacks then get"),
    ("closure-bound-in-a-loop", """
from kafka import ConsumerRebalanceListener, KafkaConsumer
def main(topics):
    class Committing(ConsumerRebalanceListener):
        def on_partitions_revoked(self, revoked):
            consumer.commit()
        def on_partitions_assigned(self, assigned):
            pass
    for topic in topics:
        consumer = KafkaConsumer(group_id=topic)
        consumer.subscribe([topic], listener=Committing())
""", 4, "listener class Committing: its callbacks use main()'s consumer through a closure and consumer is bound in a loop (line 9), once per iteration, so the codemod cannot turn it into the view; derive from the rebalance_guard RebalanceListener by hand and use the consumer argument its callbacks then get"),
    ("closure-rebound-nonlocal", """
from kafka import ConsumerRebalanceListener, KafkaConsumer
def main(topics):
    consumer = KafkaConsumer(group_id="g")
    def reconnect():
        nonlocal consumer
        consumer = KafkaConsumer(group_id="g")
    class Committing(ConsumerRebalanceListener):
        def on_partitions_revoked(self, revoked):
            consumer.commit()
        def on_partitions_assigned(self, assigned):
            pass
    consumer.subscribe(topics, listener=Committing())
    return reconnect
""", 8, "listener class Committing: its callbacks use main()'s consumer through a closure and a function nested in main() rebinds consumer (nonlocal, line 6), so the codemod cannot turn it into the view; derive from the rebalance_guard RebalanceListener by hand and use the consumer argument its callbacks then get"),
    ("cf-partial-star-args", cf("""
        import functools
        def on_assign(tag, consumer, partitions):
            pass
        c = Consumer({})
        c.subscribe(["a"], on_assign=functools.partial(on_assign, *tags))
        """), 9, "on_assign= is a functools.partial given *args or **kwargs; pass the function and the bound arguments one by one first"),
    ("cf-partial-of-a-method", cf("""
        import functools
        class Rewinder:
            def __init__(self, conf):
                self.consumer = Consumer(conf)
            def _rewind(self, when, consumer, partitions):
                pass
            def start(self, when):
                self.consumer.subscribe(["a"], on_assign=functools.partial(self._rewind, when))
        """), 12, "on_assign= is a functools.partial of the method self._rewind; store the bound values on self and register the method itself (on_assign=self._rewind, taking (self, consumer, partitions)) first"),
    ("cf-partial-signature", cf("""
        import functools
        def on_assign(tag, consumer, partitions, extra=None):
            pass
        c = Consumer({})
        c.subscribe(["a"], on_assign=functools.partial(on_assign, "t"))
        """), 9, "functools.partial(on_assign, ...) does not leave exactly (consumer, partitions) of on_assign unbound (or on_assign has defaults, *args or **kwargs); bind the parameters before the consumer positionally and the ones after the partitions by keyword, without defaults, first (KRB109)"),
    ("cf-partial-binds-calls-out-of-order", cf("""
        from functools import partial
        def on_assign(settings, consumer, partitions):
            pass
        def on_revoke(log, consumer, partitions):
            pass
        c = Consumer({})
        c.subscribe(["a"], on_revoke=partial(on_revoke, make_log()), on_assign=partial(on_assign, load_settings()))
        """), 11, "functools.partial(on_assign, ...) binds load_settings(), which has side effects and would be evaluated twice or in another order by the listener's constructor; assign it to a variable before the subscribe() and bind that, then run migrate again"),
    ("cf-partial-binds-a-call-twice", cf("""
        from functools import partial
        def on_assign(settings, consumer, partitions):
            pass
        def on_revoke(settings, consumer, partitions):
            pass
        c = Consumer({})
        c.subscribe(["a"], on_assign=partial(on_assign, load()), on_revoke=partial(on_revoke, load()))
        """), 11, "functools.partial(on_revoke, ...) binds load(), which has side effects and would be evaluated twice"),
    ("cf-partial-binds-two-values", cf("""
        from functools import partial
        def on_assign(tag, consumer, partitions):
            pass
        def on_revoke(tag, consumer, partitions):
            pass
        c = Consumer({})
        c.subscribe(["a"], on_assign=partial(on_assign, "x"), on_revoke=partial(on_revoke, "y"))
        """), 11, "two functools.partial callbacks bind tag to different values; rename the parameter in one of the functions first"),
    ("cf-partial-rebinds", cf("""
        from functools import partial
        def on_assign(tag, consumer, partitions):
            tag = tag.upper()
        c = Consumer({})
        c.subscribe(["a"], on_assign=partial(on_assign, "x"))
        """), 9, "on_assign rebinds tag, which functools.partial binds (it becomes an attribute of the listener); use a new name first"),
    ("cf-callback-deleted", cf("""
        def on_assign(consumer, partitions):
            pass
        c = Consumer({})
        c.subscribe(["a"], on_assign=on_assign)
        del on_assign
        """), 8, "on_assign is deleted (del, line 9), but the listener method that replaces its registration calls it by name when a rebalance runs; remove the del, then run migrate again"),
    ("cf-partial-used-twice", cf("""
        from functools import partial
        def on_assign(tag, consumer, partitions):
            pass
        c = Consumer({})
        c.subscribe(["a"], on_assign=partial(on_assign, "x"))
        c.subscribe(["b"], on_assign=partial(on_assign, "y"))
        """), 9, "on_assign is used elsewhere too; moving it into a listener class would break those uses"),
    ("cf-partial-calls-close", cf("""
        from functools import partial
        def on_revoke(tag, consumer, partitions):
            consumer.close()
        c = Consumer({})
        c.subscribe(["a"], on_revoke=partial(on_revoke, "x"))
        """), 9, "on_revoke calls consumer.close() (line 7), which the rebalance view does not offer (KIP-1306)"),
    ("cf-not-a-name", cf("""
        handlers = {}
        c = Consumer({})
        c.subscribe(["a"], on_assign=handlers["assign"])
        """), 7, "on_assign= is not a function, lambda or functools.partial defined in this file (imported, an attribute, a container item, a call); define it with def on_assign(consumer, partitions)"),
    ("cf-imported", cf("""
        from handlers import on_revoke
        c = Consumer({})
        c.subscribe(["a"], on_revoke=on_revoke)
        """), 7, "on_revoke= is imported (on_revoke); the codemod migrates callbacks defined in the file that registers them"),
    ("cf-used-twice-annotated", cf("""
        def on_revoke(consumer: TracingConsumer, partitions):
            consumer.commit(asynchronous=False)
        c = Consumer({})
        c.subscribe(["a"], on_revoke=on_revoke)
        keep(on_revoke)
        """), 8, "on_revoke is used elsewhere too, so it stays and the listener calls it with the view, which its consumer parameter's annotation (TracingConsumer) does not accept; drop the annotation or annotate it with the rebalance_guard RebalanceConsumer first"),
    # shapes/assign_at_times.py (issue 25): an assign of what offsets_for_times answered
    ("cf-at-times-answer-used", cf("""
        def on_assign(consumer, partitions):
            offsets = consumer.offsets_for_times(partitions)
            print(offsets)
            consumer.assign(offsets)
        c = Consumer({})
        c.subscribe(["a"], on_assign=on_assign)
        """), 10, "consumer.assign() of offsets_for_times()'s answer: offsets is also used on line 7; the seek loop replacing the assign must be its only use (but for loops before it setting its items' offsets) (line 8); migrate it by hand: in its place, seek each of the callback's partitions to its offset on the callback's consumer (the rebalance view), which the adapter assigns when the callback returns"),
    ("cf-at-times-answer-under-if", cf("""
        def on_assign(consumer, partitions):
            if partitions:
                offsets = consumer.offsets_for_times(partitions)
            consumer.assign(offsets)
        c = Consumer({})
        c.subscribe(["a"], on_assign=on_assign)
        """), 10, "offsets is not bound once, directly in the callback's own body (not under an if, a loop, a with or a try)"),
    ("cf-at-times-other-consumer", cf("""
        def on_assign(consumer, partitions):
            consumer.assign(OTHER.offsets_for_times(partitions))
        c = Consumer({})
        c.subscribe(["a"], on_assign=on_assign)
        """), 8, "consumer.assign() of offsets_for_times()'s answer: offsets_for_times() is called on OTHER, not on the callback's consumer (line 6)"),
    ("cf-at-times-other-partitions", cf("""
        def on_assign(consumer, partitions):
            consumer.assign(consumer.offsets_for_times(partitions[:1]))
        c = Consumer({})
        c.subscribe(["a"], on_assign=on_assign)
        """), 8, "offsets_for_times(partitions[:1]) does not ask for the callback's partitions parameter (partitions) itself, so its answer may not be exactly the callback's partitions (line 6)"),
    ("cf-at-times-not-last", cf("""
        def on_assign(consumer, partitions):
            consumer.assign(consumer.offsets_for_times(partitions))
            ready.set()
        c = Consumer({})
        c.subscribe(["a"], on_assign=on_assign)
        """), 9, "consumer.assign() of offsets_for_times()'s answer is not the last statement of on_assign's own body (or followed by nothing but logging), with no return in it (the seek loop replacing it must run whenever the callback completes, and nothing after it may see that the adapter assigns once the callback returns) (line 6)"),
    ("cf-at-times-partitions-changed", cf("""
        def on_assign(consumer, partitions):
            partitions.append(TopicPartition("b", 0))
            consumer.assign(consumer.offsets_for_times(partitions))
        c = Consumer({})
        c.subscribe(["a"], on_assign=on_assign)
        """), 9, "on_assign changes or aliases its partitions list (line 6), which the adapter assigns after the callback (line 7)"),
    ("aio-at-times-answer-not-awaited", aio("""
        async def on_assign(consumer, partitions):
            offsets = consumer.offsets_for_times(partitions)
            await consumer.assign(offsets)
        async def main(c: AIOConsumer):
            await c.subscribe(["a"], on_assign=on_assign)
        """), 9, "consumer.assign() of offsets_for_times()'s answer: one of offsets_for_times() and assign() is awaited, the other not (line 7)"),
    ("cf-assign-subset", cf("""
        def on_assign(consumer, partitions):
            consumer.assign(partitions[:1])
        c = Consumer({})
        c.subscribe(["a"], on_assign=on_assign)
        """), 8, "consumer.assign() does not assign exactly the callback's partitions, which the adapter assigns after the callback (line 6); assign those (pause on the view the ones not to be consumed), or use assign() without subscribe() for partitions of your choosing, then run migrate again"),
    ("cf-assign-not-last", cf("""
        def on_assign(consumer, partitions):
            for attempt in range(3):
                consumer.assign(partitions)
        c = Consumer({})
        c.subscribe(["a"], on_assign=on_assign)
        """), 9, "consumer.assign() is not a statement on_assign runs at most once (it sits in a loop, an except, else or finally block or an expression) (line 7); call it once, outside those, then run migrate again"),
    ("cf-unassign-not-last", cf("""
        def on_revoke(consumer, partitions):
            consumer.unassign()
            print(consumer.assignment())
        c = Consumer({})
        c.subscribe(["a"], on_revoke=on_revoke)
        """), 9, "consumer.unassign() is not the last thing on_revoke does (only logging may follow a release, which the adapter makes after the callback) (line 6); move what follows it before it, then run migrate again"),
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
    ("cf-none-callback", cf("""
        def on_revoke(consumer, partitions):
            print(partitions)
        c = Consumer({})
        c.subscribe(["a"], on_revoke=on_revoke, on_lost=None)
        """), 8, "on_lost=None is not a callback: confluent's subscribe() raises TypeError (on_lost expects a callable; AIOConsumer given it by keyword fails at the first rebalance instead); drop it (pass the callbacks after it by keyword), then run migrate again"),
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
        """), 8, "on_revoke uses the consumer other than to call a method (line 6): passes it to helper(); call the consumer's methods in the callback itself (inline that call, or make it return what the callback should do), then run migrate again"),
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
        """), 9, "on_assign is decorated; the codemod cannot know what the decorator expects"),
    ("cf-arity", cf("""
        def on_assign(consumer, partitions, extra):
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
        """), 8, "subscribe() has arguments the codemod does not know (it moves the topics and the on_assign=/on_revoke=/on_lost= callbacks only); pass just those, then run migrate again"),
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
    ("cf-data-flow", cf("""
        def on_revoke(consumer, partitions):
            pass
        async def main(loop, pool):
            c = Consumer({})
            await loop.run_in_executor(pool, c.subscribe, ["a"], None, on_revoke)
        """), 9, "the callbacks reach subscribe() through data flow"),
    ("cf-returns-a-value", cf("""
        def on_revoke(consumer, partitions):
            return consumer.commit(asynchronous=False)
        c = Consumer({})
        c.subscribe(["a"], on_revoke=on_revoke)
        """), 8, "on_revoke returns a value (line 6), which confluent ignores and a RebalanceListener method may not; drop the return value first"),
    ("cf-two-roles", cf("""
        import functools
        def rebalanced(tag, consumer, partitions):
            pass
        c = Consumer({})
        c.subscribe(["a"], on_assign=functools.partial(rebalanced, 1), on_revoke=functools.partial(rebalanced, 2))
        """), 9, "rebalanced is registered for two roles; split it into one per role"),
    ("cf-two-roles-assigning", cf("""
        def rebalanced(consumer, partitions):
            consumer.assign(partitions)
        c = Consumer({})
        c.subscribe(["a"], on_assign=rebalanced, on_revoke=rebalanced)
        """), 8, "rebalanced is registered for two roles and calls consumer.assign() (line 6), which each role replaces differently; split it into one per role"),
    # --- confluent-kafka AIOConsumer ---------------------------------------------------------
    ("aio-positional-plain-def", aio("""
        def on_assign(consumer, partitions):
            consumer.commit()
        async def main():
            c = AIOConsumer({})
            await c.subscribe(["a"], on_assign)
        """), 9, "on_assign= on_assign is passed positionally to AIOConsumer.subscribe(), which runs a plain def synchronously with the underlying Consumer; the migrated listener's methods are async def taking the async view: make it async def awaiting the consumer's calls and pass it by keyword (on_assign=...) first"),
    ("aio-sync-callback", aio("""
        def on_revoke(consumer, partitions):
            pass
        async def main():
            c = AIOConsumer({})
            await c.subscribe(["a"], on_revoke=on_revoke)
        """), 9, "on_revoke is not async def, so AIOConsumer cannot call it (TypeError); make it async def first"),
    ("aio-not-awaited", aio("""
        async def on_revoke(consumer, partitions):
            consumer.commit()
        async def main():
            c = AIOConsumer({})
            await c.subscribe(["a"], on_revoke=on_revoke)
        """), 9, "on_revoke calls consumer.commit() without await (line 6), so the call never ran (KRB106); add the await first"),
    ("aio-unknown-consumer", cf("""
        async def on_revoke(consumer, partitions):
            await consumer.commit()
        def main(c):
            c.subscribe(["a"], on_revoke=on_revoke)
        """), 8, "on_revoke is async, but the model sees this subscribe() on a confluent Consumer, not an AIOConsumer; create or annotate the consumer"),
    ("aio-view-lacks-method", aio("""
        async def on_assign(consumer, partitions):
            await consumer.poll(0)
        async def main():
            c = AIOConsumer({})
            await c.subscribe(["a"], on_assign=on_assign)
        """), 9, "on_assign calls consumer.poll() (line 6), which the rebalance view does not offer"),
    # --- confluent-kafka bound methods: the owner becomes the listener -----------------------
    ("owner-not-a-method", cf("""
        class Worker:
            def start(self, c):
                c.subscribe(["a"], on_assign=self.handlers.on_assign)
        """), 7, "on_assign= is not a method of the class that makes this call, reached through its self"),
    ("owner-different-classes", cf("""
        class Other:
            def _on_assign(self, consumer, partitions):
                pass
        class Worker:
            def start(self, c, other):
                c.subscribe(["a"], on_assign=self._on_assign, on_revoke=other._on_assign)
            def _on_assign(self, consumer, partitions):
                pass
        """), 10, "on_revoke= is not a method of the class that makes this call"),
    ("owner-two-roles", owner().replace("on_revoke=self._on_revoke", "on_revoke=self._on_assign"), 10,
     "_on_assign is registered for two roles and calls consumer.assign() (line 13), which each role replaces differently; split it into one method per role"),
    ("owner-different-sets", owner("""
        def restart(worker: Worker) -> None:
            pass
        """).replace("    def _on_assign(self, consumer, partitions):", "    def again(self):\n        self.consumer.subscribe(['a'], on_assign=self._on_assign)\n\n    def _on_assign(self, consumer, partitions):"), 10,
     "the class registers different sets of its methods as callbacks at different subscribe() calls"),
    ("owner-clash", owner().replace("    def _on_revoke(self, consumer, partitions):", "    def on_partitions_lost(self, partitions):\n        pass\n\n    def _on_revoke(self, consumer, partitions):"), 10,
     "Worker already defines on_partitions_lost; it cannot become its own listener"),
    ("owner-assigns-itself", owner().replace("        consumer.assign(partitions)", "        self.consumer.incremental_assign(partitions)").replace("    def start(self):", "    def reconnect(self, config):\n        self.consumer = Consumer(config)\n\n    def start(self):"), 13,
     "_on_assign calls self.consumer.incremental_assign() on the registering consumer itself (line 16), which the adapter does after the callback; call it on the callback's consumer argument instead (consumer.incremental_assign(partitions) as its last statement) first"),
    ("closure-assigns-itself", cf("""
        def run():
            consumer = Consumer({})
            def on_assign(c, partitions):
                consumer.assign(partitions)
            consumer.subscribe(["a"], on_assign=on_assign)
        """), 9, "on_assign calls consumer.assign() on the registering consumer itself (line 8)"),
    ("owner-decorated", owner().replace("class Worker:", "@register\nclass Worker:"), 11,
     "Worker has class decorators, class keywords or a metaclass of enum, typing or ctypes; make a RebalanceListener class that calls its methods by hand"),
    ("owner-special-base", owner().replace("class Worker:", "import typing\nclass Worker(typing.NamedTuple):"), 11,
     "Worker derives from typing.NamedTuple, which cannot take RebalanceListener as another base"),
    ("owner-inherited", cf("""
        class Worker(Base):
            def start(self, c):
                c.subscribe(["a"], on_assign=self._on_assign)
        """), 7, "self._on_assign is not defined in Worker itself (inherited or assigned); define the callback in the class that registers it"),
    ("owner-annotated-and-used", owner("""
        def flush(w: Worker, c: Consumer) -> None:
            w._on_revoke(c, [])
        """).replace("def _on_revoke(self, consumer, partitions)", "def _on_revoke(self, consumer: Consumer, partitions)"), 10,
     "_on_revoke is also used at line 19 and its consumer parameter is annotated with the full consumer; drop the annotation or that use first"),
    ("owner-used-and-assigns", owner("""
        def again(w: Worker, c: Consumer) -> None:
            w._on_assign(c, [])
        """), 10,
     "_on_assign is also used elsewhere, so its consumer.assign() cannot become the view's (line 13); move that call out of it, then run migrate again"),
    ("aiokafka-dropped-coroutine", textwrap.dedent("""
        from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener

        class Listener(ConsumerRebalanceListener):
            def __init__(self, consumer):
                self.consumer = consumer

            async def on_partitions_revoked(self, revoked):
                self.consumer.commit()

            async def on_partitions_assigned(self, assigned):
                pass

        consumer = AIOKafkaConsumer(group_id="g")
        consumer.subscribe(["a"], listener=Listener(consumer))
        """), 4,
     "listener class Listener: a callback calls consumer.commit() without await (line 9), so the call never ran (KRB106); add the await first"),
    ("global-consumer-two-receivers", KP_HEAD + textwrap.dedent("""
        a = KafkaConsumer(group_id="g")
        b = KafkaConsumer(group_id="g")

        class Listener(ConsumerRebalanceListener):
            def on_partitions_revoked(self, revoked):
                a.commit()

            def on_partitions_assigned(self, assigned):
                pass

        a.subscribe(["x"], listener=Listener())
        b.subscribe(["y"], listener=Listener())
        """), 8,
     "listener class Listener: a callback uses the consumer a (line 10), and the instances are not all registered on it; register every instance on that consumer, or use the callbacks' consumer argument instead, then run migrate again"),
    ("global-consumer-outside-callbacks", KP_HEAD + textwrap.dedent("""
        consumer = KafkaConsumer(group_id="g")

        class Listener(ConsumerRebalanceListener):
            def on_partitions_revoked(self, revoked):
                consumer.commit()

            def on_partitions_assigned(self, assigned):
                pass

            def drain(self):
                consumer.poll(0)

        consumer.subscribe(["x"], listener=Listener())
        """), 7,
     "listener class Listener: drain() uses the registering consumer consumer too (line 15), which only the callbacks can replace with the view; move that use into a callback or out of the class first"),
    ("owner-static-used-elsewhere", cf("""
        class Worker:
            def __init__(self, config):
                self.consumer = Consumer(config)
                self.consumer.subscribe(["a"], on_revoke=self._on_revoke)

            @staticmethod
            def _on_revoke(consumer, partitions):
                consumer.commit(asynchronous=False)

            def close(self):
                Worker._on_revoke(self.consumer, [])
        """), 8,
     "_on_revoke is a staticmethod also used at line 15; make it a plain method taking (self, consumer, partitions) first"),
    ("owner-callbacks-of-two-classes", cf("""
        class Handler:
            def on_revoke(self, consumer, partitions):
                consumer.commit(asynchronous=False)

        class Worker:
            def __init__(self, config):
                self.consumer = Consumer(config)
                handler = Handler()
                self.consumer.subscribe(["a"], on_assign=self._on_assign, on_revoke=handler.on_revoke)

            def _on_assign(self, consumer, partitions):
                print(partitions)
        """), 13,
     "the callbacks are methods of different classes; register methods of the class that subscribes (one may call the other object's), then run migrate again"),
    ("owner-class-function-used-elsewhere", cf("""
        class Worker:
            def __init__(self, config):
                self.consumer = Consumer(config)
                self.consumer.subscribe(["a"], on_revoke=Worker.on_revoke)

            def on_revoke(consumer, partitions):
                consumer.commit(asynchronous=False)

            def close(self):
                Worker.on_revoke(self.consumer, [])
        """), 8,
     "on_revoke is a function also used at line 14; make it a plain method taking (self, consumer, partitions) first"),
    ("owner-class-function-through-an-instance", cf("""
        class Worker:
            def __init__(self, config):
                self.consumer = Consumer(config)
                self.consumer.subscribe(["a"], on_revoke=Worker.on_revoke)

            def on_revoke(consumer, partitions):
                consumer.commit(asynchronous=False)

            def close(self):
                self.on_revoke([])
        """), 8,
     "on_revoke= is not a method of the class that makes this call, reached through its self"),
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


NESTED_REASON = (
    "listener class Listener: it is created through an attribute, other.Listener(...) at line "
    "17, which the codemod cannot follow; move the class to module level and create it by its "
    "name there first"
)


def test_a_nested_listener_created_through_another_object_says_so() -> None:
    """``listener=other.Listener(...)`` with ``other`` a parameter: it may be any object with a
    ``Listener`` attribute (``self.Listener(...)`` names the nested class and migrates:
    tests/codemods/test_nested_listener_classes.py). The class is refused with the real reason,
    not "no instance is created"; its registration still moves, as for any listener the runtime
    takes unchanged."""
    nested = textwrap.indent(LISTENER.format(revoked="self.consumer.commit()"), "    ")
    source = (
        KP_HEAD
        + "class Runner:\n"
        + nested
        + (
            "\n    def run(self, consumer, other):\n"
            "        consumer.subscribe(['a'], listener=other.Listener(consumer))\n"
        )
    )
    result = migrate_source(source.encode(), "legacy.py")
    assert result.new_source is not None
    assert nested in result.new_source.decode()  # the class is untouched
    assert (6, NESTED_REASON) in [(m.line, m.reason) for m in result.manual]


#: A listener class registering itself (``listener=self``) that cannot be migrated: its
#: registrations still move (the runtime takes legacy listeners), the class stays as it is.
OWN_LISTENER_CASES = [
    ("own-listener-two-consumers", KP_HEAD + textwrap.dedent("""
        class Tailer(ConsumerRebalanceListener):
            def run(self):
                self._a = KafkaConsumer()
                self._b = KafkaConsumer()
                self._a.subscribe(["a"], listener=self)
                self._b.subscribe(["b"], listener=self)
            def on_partitions_revoked(self, revoked):
                self._a.commit()
            def on_partitions_assigned(self, assigned):
                pass
        """), 5, "listener class Tailer: it registers itself on 2 consumers (self._a, self._b); register one listener instance per consumer (each on its own self.<attr>) first"),
    ("own-listener-local-consumer", KP_HEAD + textwrap.dedent("""
        class Tailer(ConsumerRebalanceListener):
            def make(self):
                consumer = KafkaConsumer()
                consumer.subscribe(["a"], listener=self)
                return consumer
            def on_partitions_revoked(self, revoked):
                self._consumer.commit()
            def on_partitions_assigned(self, assigned):
                pass
        """), 5, "listener class Tailer: it registers itself on consumer, which is not an attribute of its own; store that consumer on self (self.consumer = ...) and register on it first"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "source", "line", "reason"), OWN_LISTENER_CASES, ids=[c[0] for c in OWN_LISTENER_CASES])
def test_an_own_listener_refusal_keeps_the_class(name: str, source: str, line: int, reason: str) -> None:
    result = migrate_source(source.encode(), "legacy.py")
    assert result.status == "ok", result.reason
    new = (result.new_source or source.encode()).decode()
    assert "class Tailer(ConsumerRebalanceListener):" in new
    assert (line, reason) in [(m.line, m.reason) for m in result.manual]


def test_each_refusal_reason_in_the_code_has_a_case() -> None:
    """Every ``return "..."`` refusal message in the planners and their confluent and listener
    shape modules is exercised above."""
    import ast
    import inspect

    from rebalance_lint.analysis import migration_confluent, migration_listeners, shapes

    covered = " | ".join(
        [
            *(reason for *_, reason in CASES + OWN_LISTENER_CASES),
            NESTED_REASON,
            PRIVATE_READ_REASON,
            *OWNER_METHOD_REASONS,
            *CALLBACK_PARAMETER_REASONS,
            *CHOSEN_CALLBACK_REASONS,
            *FACTORY_CALLBACK_REASONS,
            *OPTIONAL_LISTENER_REASONS,
            *LISTENER_BASE_REASONS,
            *ASSIGN_AT_OFFSETS_REASONS,
            *ASSIGN_COMMITTED_REASONS,
            *ASSIGN_IN_HELPER_REASONS,
            *LISTENER_HELPER_REASONS,
            *ROLE_NAMED_REASONS,
            *OWNER_LAMBDA_REASONS,
            *OWNER_TWO_ROLES_REASONS,
            *CHAINED_LISTENER_REASONS,
        ]
    )
    missing = []
    migration_shapes = [
        module
        for module in shapes.modules()
        if module.SHAPE.planner in ("confluent", "listeners")
    ]
    for module in (migration_listeners, migration_confluent, *migration_shapes):
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


def test_a_migrated_listener_that_still_reaches_a_consumer_through_an_owner_says_so() -> None:
    """REAL_WORLD.md's indirect injection next to a direct one: the class is migrated (the
    injected consumer becomes the view) but ``self.offsets.commit_offsets()`` still commits
    through the consumer the offset manager holds. That KRB201 is not fixable, and migrate
    must say so with the next step instead of leaving it without a reason. (An offset manager
    built here on the registering consumer is rewritten to take the view:
    tests/codemods/test_owner_method_takes_view.py; one built on another consumer is not
    rewritten.)"""
    source = KP_HEAD + textwrap.dedent(
        """
        class OffsetManager:
            def __init__(self, consumer):
                self.consumer = consumer

            def commit_offsets(self, partitions):
                self.consumer.commit()


        class Listener(ConsumerRebalanceListener):
            def __init__(self, consumer, offsets):
                self.consumer = consumer
                self.offsets = offsets

            def on_partitions_revoked(self, revoked):
                self.offsets.commit_offsets(revoked)

            def on_partitions_assigned(self, assigned):
                self.consumer.seek_to_beginning()


        consumer = KafkaConsumer(group_id="g")
        offsets = OffsetManager(KafkaConsumer(group_id="h"))
        consumer.subscribe(["a"], listener=Listener(consumer, offsets))
        """
    )
    result = migrate_source(source.encode(), "legacy.py")
    assert result.new_source is not None
    assert b"class Listener(RebalanceListener):" in result.new_source
    assert [(m.line, m.reason) for m in result.manual] == [
        (
            14,
            "listener class Listener is migrated, but its callbacks still reach a consumer "
            "through self.offsets.commit_offsets(), which the codemod cannot turn into the "
            "view; the object Listener() gets as offsets at line 27 is not provably an owner "
            "holding the consumer the listener is registered on; pass the callback's consumer "
            "argument along to the owner's method by hand",
        )
    ]


PRIVATE_READ_REASON = (
    "listener class Listener is migrated, but its callbacks still reach a consumer through "
    "self._thread._ensure_consumer() and read its private _coordinator, which the view does "
    "not offer; read it outside the callbacks (in the poll loop) or drop that read, by hand"
)


def test_a_private_read_through_an_owner_says_the_view_lacks_it() -> None:
    """REAL_WORLD.md: a consumer thread creating its consumer lazily, the listener reaching it as
    ``self._thread._ensure_consumer()._coordinator`` to log the generation. The view has no
    private attributes, so "pass the consumer argument along" cannot serve it: the reason says
    what the view lacks and the step that is left."""
    source = KP_HEAD + textwrap.dedent(
        """
        class Listener(ConsumerRebalanceListener):
            def __init__(self, thread):
                self._thread = thread

            def on_partitions_revoked(self, revoked):
                print(self._thread._ensure_consumer()._coordinator.generation)

            def on_partitions_assigned(self, assigned):
                pass


        class Follower:
            def __init__(self):
                self._consumer = None

            def _ensure_consumer(self):
                if self._consumer is None:
                    self._consumer = KafkaConsumer(group_id="g")
                return self._consumer

            def run(self):
                consumer = self._ensure_consumer()
                consumer.subscribe(["a"], listener=Listener(self))
        """
    )
    result = migrate_source(source.encode(), "legacy.py")
    assert result.new_source is not None
    assert b"class Listener(RebalanceListener):" in result.new_source
    reasons = [m.reason for m in result.manual]
    assert PRIVATE_READ_REASON in reasons, reasons
    again = migrate_source(result.new_source, "legacy.py")
    assert again.new_source is None  # idempotent


def test_a_registration_waits_for_its_class() -> None:
    """The cascade (issue 25): a registration refused only because its listener class is
    refused says the class's reason, in the class's words, not a second message pointing at
    the first; both sites group under the one thing to change."""
    source = textwrap.dedent(
        """
        from kafka import ConsumerRebalanceListener, KafkaConsumer


        class Mixin:
            pass


        class Listener(Mixin, ConsumerRebalanceListener, metaclass=type):
            def on_partitions_revoked(self, revoked):
                pass

            def on_partitions_assigned(self, assigned):
                pass


        consumer = KafkaConsumer()
        consumer.subscribe(["t"], listener=Listener())
        """
    )
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok" and result.new_source is None
    message = (
        "listener class Listener: a metaclass or class keywords; the codemod cannot rebase "
        "it safely; by hand, move its callbacks into a class deriving from rebalance_guard's "
        "RebalanceListener alone"
    )
    assert [(m.line, m.reason) for m in result.manual] == [(9, message), (18, message)]
