# ruff: noqa: E501  (the "after" strings are the codemod's exact output; LibCST does not wrap)
"""A migrated listener whose callback calls a method of its owner (``self.worker.flush()``)
that commits through the consumer the owner stored (REAL_WORLD.md's indirect injection,
``shapes/owner_method_takes_view.py``): the method takes the view as a keyword-only
parameter defaulted to None, used instead of the stored consumer when given, and the callback
passes its view; every other caller keeps the stored consumer. Where the rewrite cannot be
proven sound the class is still migrated and the site names what is left by hand."""

from __future__ import annotations

import textwrap

import pytest
from rebalance_codemods.api import migrate_source
from rebalance_codemods.repository import migrate_repository
from rebalance_lint import check_repository
from rebalance_lint.api import check_source

HEAD = """\
import threading

from kafka import KafkaConsumer
from kafka.consumer.subscription_state import ConsumerRebalanceListener

"""

WORKER = """
class Worker:
    def __init__(self, topics):
        self.consumer = KafkaConsumer(group_id="g")
        self.topics = topics
        self.rows = []

    def flush(self, reason="manual"):
        self.rows.clear()
        self._commit(reason=reason)

    def _commit(self, reason):
        if self.consumer is None:
            return
        self.consumer.commit()

    def run(self):
        self.consumer.subscribe(self.topics, listener=Flush(self))
        for record in self.consumer:
            self.rows.append(record)
            if len(self.rows) > 100:
                self.flush(reason="full")
"""

LISTENER = """
class Flush(ConsumerRebalanceListener):
    def __init__(self, worker):
        self.worker = worker

    def on_partitions_revoked(self, revoked):
        self.worker.flush(reason="revoke")

    def on_partitions_assigned(self, assigned):
        pass
"""


def _source(worker: str = WORKER, listener: str = LISTENER, extra: str = "") -> str:
    return HEAD + textwrap.dedent(worker) + textwrap.dedent(listener) + textwrap.dedent(extra)


def _migrate(source: str) -> tuple[str, list[tuple[int, str]]]:
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok", result
    assert result.new_source is not None
    assert migrate_source(result.new_source, "app.py").new_source is None  # idempotent
    return result.new_source.decode(), [(m.line, m.reason) for m in result.manual]


def _krb201(source: str) -> list[bool]:
    findings = check_source(source.encode(), "app.py").findings
    return [f.fixable for f in findings if f.code == "KRB201"]


def test_the_owner_method_takes_the_view_and_the_callback_passes_it() -> None:
    source = _source()
    assert _krb201(source) == [True]  # check says fixable exactly where migrate rewrites
    after, manual = _migrate(source)
    assert manual == []
    assert (
        '    def flush(self, reason="manual", *, consumer=None):\n        self.rows.clear()\n        self._commit(reason=reason, consumer=consumer)\n'
        in after
    )
    assert (
        "    def _commit(self, reason, *, consumer=None):\n        if self.consumer is None:\n            return\n        (self.consumer if consumer is None else consumer).commit()\n"
        in after
    )
    assert '        self.worker.flush(reason="revoke", consumer=consumer)\n' in after
    assert '                self.flush(reason="full")\n' in after  # other callers unchanged
    findings = check_source(after.encode(), "app.py").findings
    assert [f.code for f in findings if f.code in ("KRB201", "KRB105", "KRB112")] == []


def test_an_owner_built_on_the_registering_consumer_takes_the_view() -> None:
    """The search indexer's shape: ``offsets = OffsetManager(consumer)`` handed to the
    listener registered on that same ``consumer``."""
    source = HEAD + textwrap.dedent(
        """
        class OffsetManager:
            def __init__(self, consumer):
                self.consumer = consumer

            def commit_offsets(self, partitions=None):
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
        offsets = OffsetManager(consumer)
        consumer.subscribe(["a"], listener=Listener(consumer, offsets))
        """
    )
    assert _krb201(source) == [True, True]
    after, manual = _migrate(source)
    assert manual == []
    assert (
        "    def commit_offsets(self, partitions=None, *, consumer=None):\n        (self.consumer if consumer is None else consumer).commit()\n"
        in after
    )
    assert "        self.offsets.commit_offsets(revoked, consumer=consumer)\n" in after
    assert "listener=Listener(offsets)" not in after
    assert "set_rebalance_listener(consumer, Listener(offsets))\n" in after


def test_a_typed_owner_method_gets_an_annotated_parameter() -> None:
    worker = WORKER.replace(
        'def flush(self, reason="manual"):', 'def flush(self, reason: str = "manual") -> None:'
    )
    after, _ = _migrate(_source(worker))
    assert (
        '    def flush(self, reason: str = "manual", *, consumer: RebalanceConsumer | None = None) -> None:\n'
        in after
    )
    assert (
        "from rebalance_guard.kafka_python import RebalanceConsumer, RebalanceListener, set_rebalance_listener\n"
        in after
    )


def test_an_async_owner_method_is_awaited_with_the_view() -> None:
    source = textwrap.dedent(
        """\
        from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener


        class Worker:
            def __init__(self):
                self.consumer = AIOKafkaConsumer(group_id="g")

            async def flush(self):
                await self.consumer.commit()

            async def run(self):
                self.consumer.subscribe(["a"], listener=Flush(self))
                async for record in self.consumer:
                    await self.flush()


        class Flush(ConsumerRebalanceListener):
            def __init__(self, worker):
                self.worker = worker

            async def on_partitions_revoked(self, revoked):
                await self.worker.flush()

            async def on_partitions_assigned(self, assigned):
                pass
        """
    )
    after, manual = _migrate(source)
    assert manual == []
    assert (
        "    async def flush(self, *, consumer=None):\n        await (self.consumer if consumer is None else consumer).commit()\n"
        in after
    )
    assert "        await self.worker.flush(consumer=consumer)\n" in after


_STEP = "listener class Flush is migrated, but its callbacks still reach a consumer through self.worker.flush(), which the codemod cannot turn into the view; "

#: (case id, source, line of the refusal, its reason): the class is migrated, the owner's
#: method is left as it was, and the site says why with the next step.
REFUSED = [
    ("another-consumer", _source(extra="""
        other = KafkaConsumer(group_id="h")
        other.subscribe(["b"], listener=Flush(Worker(["a"])))
        """), 30,
     _STEP + "the object Flush() gets as worker at line 40 is not provably an owner holding the consumer the listener is registered on; pass the callback's consumer argument along to the owner's method by hand"),
    ("two-owner-classes", _source(extra="""
        class Other(Worker):
            def run(self):
                self.consumer.subscribe(self.topics, listener=Flush(self))
        """), 30,
     _STEP + "Flush() gets owners of different classes as worker; pass the callback's consumer argument along to their methods by hand"),
    ("decorated", _source(WORKER.replace("    def _commit", "    @staticmethod\n    def helper():\n        pass\n\n    @trace\n    def _commit")), 35,
     _STEP + "Worker._commit() is decorated, which may change how it is called; pass the consumer by hand"),
    ("kwargs", _source(WORKER.replace("def _commit(self, reason)", "def _commit(self, reason, **options)")), 30,
     _STEP + "Worker._commit() takes *args or **kwargs; pass the consumer along to it by hand"),
    ("every-name", _source(WORKER.replace("        self.rows.clear()\n", "        consumer = rebalance_consumer = view = None\n        self.rows.clear()\n")), 31,
     _STEP + "Worker.flush() already uses every name the codemod would give the view's parameter; rename one first"),
    ("overridden", _source(extra="""
        class Quiet(Worker):
            def _commit(self, reason):
                pass
        """), 30,
     _STEP + "Quiet (line 39) overrides Worker._commit(); give the override the same consumer parameter by hand"),
    ("unknown-base", _source(WORKER.replace("class Worker:", "class Worker(BaseWorker):")), 30,
     _STEP + "the owner's class Worker derives from BaseWorker, whose methods the codemod does not follow; pass the callback's consumer argument along to its methods by hand"),
    ("nested", _source(WORKER.replace("        self.consumer.commit()", "        self.consumer.commit()\n        threading.Thread(target=lambda: self.consumer.commit()).start()")), 31,
     _STEP + "Worker._commit() uses self.consumer in a nested function (line 21), which may run after the callback; pass the consumer along by hand"),
    ("not-called", _source(WORKER.replace("        self._commit(reason=reason)", "        self._commit(reason=reason)\n        threading.Timer(1, self._commit, [reason]).start()")), 31,
     _STEP + "Worker.flush() uses self._commit without calling it (line 16), where the consumer cannot be passed along; pass it by hand"),
    ("generator", _source(WORKER.replace("        self.consumer.commit()", "        self.consumer.commit()\n        yield reason")), 31,
     _STEP + "Worker._commit() is a generator, whose body runs when it is iterated, maybe after the callback; pass the consumer along by hand"),
    ("not-offered", _source(WORKER.replace("        self.consumer.commit()", "        self.consumer.commit()\n        self.consumer.close()")), 31,
     _STEP + "Worker._commit() uses self.consumer other than to call a method the view offers as written (line 21); change that use by hand"),
    ("direct-attribute-kept", _source(listener=LISTENER.replace("        pass", "        kept = self.worker.consumer\n        kept.seek_to_beginning()")), 30,
     _STEP + "the listener uses self.worker.consumer other than to call a method the view offers in a callback's own body (line 37); pass the callback's consumer argument along by hand"),
    ("direct-attribute-not-offered", _source(listener=LISTENER.replace("        pass", "        self.worker.consumer.close()")), 30,
     "listener class Flush is migrated, but its callbacks still reach a consumer through self.worker.consumer, which the codemod cannot turn into the view; " + "the listener uses self.worker.consumer other than to call a method the view offers in a callback's own body (line 37); pass the callback's consumer argument along by hand"),
    ("direct-attribute-nested", _source(listener=LISTENER.replace("        pass", "        threading.Thread(target=lambda: self.worker.consumer.seek_to_beginning()).start()")), 30,
     _STEP + "the listener uses self.worker.consumer other than to call a method the view offers in a callback's own body (line 37); pass the callback's consumer argument along by hand"),
    ("outside-callback", _source(listener=LISTENER + "\n    def close(self):\n        self.worker.flush()\n"), 30,
     _STEP + "self.worker.flush() at line 40 reaches the consumer outside a callback's own body, where no view is at hand; call it from the callback itself first"),
    ("another-route", _source(WORKER.replace("        self.rows = []", "        self.rows = []\n        self.sink = Sink(self.consumer)").replace("        self.rows.clear()", "        self.sink.close()"), extra="""
        class Sink:
            def __init__(self, consumer):
                self.consumer = consumer

            def close(self):
                self.consumer.commit_async()
        """), 31,
     _STEP + "on_partitions_revoked() via self.worker.flush() -> self.sink.close() at line 45 reaches a consumer other than through the owner's stored consumer; pass the callback's consumer argument along to that call by hand"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("source", "line", "reason"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED]
)
def test_what_cannot_be_proven_stays_and_names_its_next_step(
    source: str, line: int, reason: str
) -> None:
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok" and result.new_source is not None
    new = result.new_source.decode()
    assert "class Flush(RebalanceListener):" in new  # the class itself is migrated
    assert 'self.worker.flush(reason="revoke")\n' in new  # the call is left as it was
    assert "consumer=None" not in new
    assert (line, reason) in [(m.line, m.reason) for m in result.manual]


def test_the_owners_consumer_called_in_a_callback_becomes_the_view() -> None:
    """``self.worker.consumer.seek_to_beginning()`` in a callback, where the owner's
    ``self.consumer`` is provably the registering consumer: the callback's view is called
    (``shapes/owner_consumer_in_callbacks.py``), beside the owner's method taking it."""
    source = _source(listener=LISTENER.replace("        pass", "        self.worker.consumer.seek_to_beginning()"))
    assert _krb201(source) == [True]
    after, manual = _migrate(source)
    assert manual == []
    assert "    def on_partitions_assigned(self, assigned, consumer: RebalanceConsumer):\n        consumer.seek_to_beginning()\n" in after
    assert '        self.worker.flush(reason="revoke", consumer=consumer)\n' in after
    assert [f.code for f in check_source(after.encode(), "app.py").findings if f.code in ("KRB201", "KRB105", "KRB112")] == []


def test_an_aiokafka_runner_pausing_through_itself_in_a_callback_migrates() -> None:
    """The runner shape of an aiokafka transformer: the listener holds its runner, reads and
    sets the runner's data (a lock, a fatal slot, pending partitions), awaits a runner method
    that does not touch the consumer, and pauses through ``self.runner.consumer``."""
    source = textwrap.dedent(
        """
        import asyncio

        from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener


        class TaskListener(ConsumerRebalanceListener):
            def __init__(self, runner: "Runner") -> None:
                self.runner = runner

            async def on_partitions_revoked(self, revoked):
                try:
                    async with self.runner.batch_lock:
                        await self.runner.close_tasks()
                except Exception as e:
                    self.runner.fatal = e

            def on_partitions_assigned(self, assigned):
                try:
                    self.runner.consumer.pause(*assigned)
                    self.runner.pending = {tp.partition for tp in assigned}
                except Exception as e:
                    self.runner.fatal = e


        class Runner:
            def __init__(self, topics):
                self.consumer = AIOKafkaConsumer(group_id="g")
                self.topics = topics
                self.batch_lock = asyncio.Lock()
                self.fatal = None
                self.pending = set()

            async def close_tasks(self):
                self.pending.clear()

            async def run(self):
                self.consumer.subscribe(self.topics, listener=TaskListener(self))
                await self.consumer.start()
                async for record in self.consumer:
                    print(record)
        """
    )
    assert _krb201(source) == [True]
    after, manual = _migrate(source)
    assert manual == []
    assert (
        "    def on_partitions_assigned(self, assigned, consumer: RebalanceConsumer):\n        try:\n            consumer.pause(*assigned)\n            self.runner.pending = {tp.partition for tp in assigned}\n"
        in after
    )
    assert "                await self.runner.close_tasks()\n" in after  # reaches no consumer
    assert "        set_rebalance_listener(self.consumer, TaskListener(self))\n" in after


def test_an_unawaited_coroutine_method_stays() -> None:
    source = textwrap.dedent(
        """\
        from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener


        class Worker:
            def __init__(self):
                self.consumer = AIOKafkaConsumer(group_id="g")

            async def flush(self):
                await self.consumer.commit()

            async def run(self):
                self.consumer.subscribe(["a"], listener=Flush(self))


        class Flush(ConsumerRebalanceListener):
            def __init__(self, worker):
                self.worker = worker

            async def on_partitions_revoked(self, revoked):
                self.worker.flush()

            async def on_partitions_assigned(self, assigned):
                pass
        """
    )
    result = migrate_source(source.encode(), "app.py")
    reasons = [m.reason for m in result.manual]
    assert any(
        "on_partitions_revoked() calls the coroutine method flush() without awaiting it (line 20), so it would run after the view expired; await it first"
        in reason
        for reason in reasons
    ), reasons


def test_a_signature_one_parameter_a_line_stays_so() -> None:
    worker = WORKER.replace(
        'def flush(self, reason="manual"):',
        'def flush(\n        self,\n        reason="manual",\n    ):',
    )
    after, _ = _migrate(_source(worker))
    assert (
        '    def flush(\n        self,\n        reason="manual",\n        *,\n        consumer=None,\n    ):\n'
        in after
    )


_WORKER_MODULE = (
    HEAD.replace("import threading\n\n", "") + textwrap.dedent(WORKER) + textwrap.dedent(LISTENER)
)


def test_migrate_dir_rewrites_the_owner_next_to_its_listener() -> None:
    """``migrate DIR``: the worker module holds the owner and the listener it registers,
    another module only starts the worker; ``check DIR`` agrees that KRB201 is fixable."""
    files = {
        "app/worker.py": _WORKER_MODULE.encode(),
        "app/main.py": b"from app.worker import Worker\n\nWorker(['orders']).run()\n",
    }
    findings = check_repository(files)["app/worker.py"].findings
    assert [f.fixable for f in findings if f.code == "KRB201"] == [True]
    done = migrate_repository(files)
    result = done.results["app/worker.py"]
    assert result.status == "ok" and result.manual == ()
    assert result.new_source is not None
    assert b'        self.worker.flush(reason="revoke", consumer=consumer)\n' in result.new_source
    assert b"        self._commit(reason=reason, consumer=consumer)\n" in result.new_source
    assert done.results["app/main.py"].new_source is None


CROSS_MODULE_REASON = (
    "listener class Listener is migrated, but its callbacks still reach a consumer through "
    "self.offsets.commit_offsets(), which the codemod cannot turn into the view; Listener is "
    "created in another module, where the codemod does not follow the owner it gets as "
    "offsets; give the owner's method a consumer=None parameter used instead of its own "
    "consumer, and pass the callback's consumer to it, by hand"
)


def test_an_owner_in_another_module_stays_and_names_the_step() -> None:
    """The search indexer's layout: the listener, the offset manager and the code creating
    both are three modules. The listener migrates; the owner's module is left as it is and
    the site says what is left by hand (check DIR: KRB201 not fixable there)."""
    offsets = textwrap.dedent(
        """\
        import kafka


        class OffsetManager:
            def __init__(self, consumer):
                self.consumer = consumer

            def commit_offsets(self, partitions=None):
                self.consumer.commit()
        """
    )
    listeners = textwrap.dedent(
        """\
        import kafka


        class Listener(kafka.ConsumerRebalanceListener):
            def __init__(self, offsets):
                self.offsets = offsets

            def on_partitions_revoked(self, revoked):
                self.offsets.commit_offsets(revoked)

            def on_partitions_assigned(self, assigned):
                pass
        """
    )
    main = textwrap.dedent(
        """\
        import kafka

        from app.listeners import Listener
        from app.offsets import OffsetManager

        consumer = kafka.KafkaConsumer(group_id="g")
        offsets = OffsetManager(consumer)
        consumer.subscribe(["a"], listener=Listener(offsets))
        """
    )
    files = {
        "app/offsets.py": offsets.encode(),
        "app/listeners.py": listeners.encode(),
        "app/main.py": main.encode(),
    }
    findings = check_repository(files)["app/listeners.py"].findings
    assert [f.fixable for f in findings if f.code == "KRB201"] == [False]
    done = migrate_repository(files)
    assert done.results["app/offsets.py"].new_source is None
    result = done.results["app/listeners.py"]
    assert result.new_source is not None and b"(RebalanceListener)" in result.new_source
    assert [(m.line, m.reason) for m in result.manual] == [(5, CROSS_MODULE_REASON)]


#: What ``tests/codemods/test_refusals.py`` counts as covered for this shape's refusals.
REASONS = [reason for *_, reason in REFUSED] + [
    "calls the coroutine method flush() without awaiting it (line 20), so it would run after the view expired; await it first",
    CROSS_MODULE_REASON,
]


def test_two_owners_of_one_class_rewrite_its_method_once() -> None:
    source = HEAD + textwrap.dedent(
        """
        class OffsetManager:
            def __init__(self, consumer):
                self.consumer = consumer

            def commit_offsets(self, partitions=None):
                self.consumer.commit()


        class Listener(ConsumerRebalanceListener):
            def __init__(self, first, second):
                self.first = first
                self.second = second

            def on_partitions_revoked(self, revoked):
                self.first.commit_offsets(revoked)
                self.second.commit_offsets(revoked)

            def on_partitions_assigned(self, assigned):
                pass


        consumer = KafkaConsumer(group_id="g")
        first = OffsetManager(consumer)
        second = OffsetManager(consumer)
        consumer.subscribe(["a"], listener=Listener(first, second))
        """
    )
    after, manual = _migrate(source)
    assert manual == []
    compile(after, "app.py", "exec")
    assert "    def commit_offsets(self, partitions=None, *, consumer=None):\n" in after
    assert "        self.second.commit_offsets(revoked, consumer=consumer)\n" in after


HANDED_ON = '''
from kafka import ConsumerRebalanceListener, KafkaConsumer


class Handler(ConsumerRebalanceListener):
    def __init__(self, worker):
        self.worker = worker

    def on_partitions_revoked(self, revoked):
        pass

    def on_partitions_assigned(self, assigned):
        self.worker.restore(assigned)


def connect(topic: str, listener: Handler) -> KafkaConsumer:
    consumer = KafkaConsumer(group_id="g")
    consumer.subscribe([topic], listener=listener)
    return consumer


class Worker:
    def __init__(self, topic: str) -> None:
        self.consumer = connect(topic, Handler(self))

    def restore(self, partitions):
        for tp in partitions:
            self.consumer.seek(tp, 0)
{tail}'''


def test_an_unannotated_owner_created_with_self_is_followed() -> None:
    """helper-44's program (2026-11-27): ``worker`` unannotated, every ``Handler(self)`` made
    in Worker's methods, so ``self.worker`` holds a Worker (program.Unit._creator_of). The
    callback's seek through it on the raw consumer is reported (the migration's note and
    check's KRB112), as with ``worker: Worker``; before, both were silent."""
    source = textwrap.dedent(HANDED_ON.format(tail=""))
    assert "KRB201" in [f.code for f in check_source(source.encode(), "app.py").findings]
    after, manual = _migrate(source)
    assert any(
        m.startswith("listener class Handler is migrated, but its callbacks still reach a consumer through self.worker.restore()")
        for _, m in manual
    ), manual
    assert [f.code for f in check_source(after.encode(), "app.py").findings] == ["KRB112"]


def test_an_owner_also_created_with_something_else_is_not_guessed() -> None:
    """One creation given another object: what ``self.worker`` holds is not known, so the
    consumer reached through it is not reported (as before the inference)."""
    source = textwrap.dedent(HANDED_ON.format(tail="\n\nSPARE = Handler(object())\n"))
    assert "KRB201" not in [f.code for f in check_source(source.encode(), "app.py").findings]
