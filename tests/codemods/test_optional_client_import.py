# ruff: noqa: E501  (the sources and the codemod's exact output read best unwrapped)
"""REAL_WORLD.md: "the listener's module imports the client only inside try/except
ImportError". The migration puts its imports of that client (``rebalance_guard.<client>``,
``TopicPartition``) into the same ``try:`` block, after the client's import, so a missing
client is still caught by the same ``except``; names the migrated module uses when imported
(a module-level listener class's base, its methods' view annotation) are bound in each
``except`` block too. The migrated fixtures are imported in a subprocess where the client
cannot be imported, and behave as the originals do there.

Issue 25: a client imported only inside a function (lazily, in a ``try`` or not) gets the
migration's imports right after that import, in the same block; where an edit naming them is
not reached by it (an owner class's base, a callback before the import, after an ``except``
that goes on), the names whose import imports no client (``rebalance_guard.confluent_kafka``'s
listener, view and ``subscribe``: ``ClientFacts.guard_names_importing_client``) are imported at
module level, and the file is refused, saying where, only for a name that imports it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest
from rebalance_codemods.api import migrate_source
from rebalance_codemods.results import MigrationResult
from rebalance_guard._client_facts import CLIENTS, CONFLUENT
from rebalance_lint import check_source

FIXTURES = Path(__file__).parent / "fixtures"
MIGRATION_CODES = {"KRB201", "KRB202", "KRB203"}

#: In the child: a finder before every other one that refuses the client's package, so
#: importing it raises ModuleNotFoundError (an ImportError) as on a machine without it.
#: Then the module is imported from its path and what it does is printed as JSON.
PROBE = """
import asyncio, importlib.abc, importlib.util, inspect, json, sys

BLOCKED = {blocked!r}

class Missing(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None

if BLOCKED:
    sys.meta_path.insert(0, Missing())
spec = importlib.util.spec_from_file_location("probed", {path!r})
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
seen = {{}}
for name in {names!r}:
    value = getattr(module, name, "<unbound>")
    seen[name] = [c.__name__ for c in value.__mro__] if isinstance(value, type) else repr(value)
try:
    result = module.consume(*{args!r})
    if inspect.iscoroutine(result):
        result = asyncio.run(result)
    seen["consume"] = repr(result)
except Exception as error:
    seen["consume"] = f"{{type(error).__name__}}: {{error}}"
print(json.dumps(seen))
"""


def _probe(
    path: Path, blocked: tuple[str, ...], names: tuple[str, ...], args: tuple[object, ...]
) -> dict[str, object]:
    code = PROBE.format(blocked=set(blocked), path=str(path), names=list(names), args=args)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    out: dict[str, object] = json.loads(done.stdout)
    return out


CASES = [
    # fixture, client package, module names observed, consume()'s arguments without the client
    ("optional_confluent", "confluent_kafka", ("Consumer",), ({}, ["t"])),
    ("optional_kafka_python", "kafka", ("HAS_KAFKA", "KafkaConsumer", "CommitOnRevoke"), (["t"],)),
    ("optional_aiokafka", "aiokafka", ("aiokafka", "AIOKafkaConsumer"), ("t",)),
    # issue 25: imported inside the function (consume() fails there without the client)
    ("local_import_confluent_init", "confluent_kafka", ("KafkaSource",), ("b:9092", "t")),
    ("local_import_confluent", "confluent_kafka", ("log",), ({"group.id": "g"}, ["t"])),
    ("local_import_kafka_python", "kafka", (), (["t"],)),
    ("local_import_annotated_helper", "confluent_kafka", ("Source",), ({"group.id": "g"}, ["t"])),
    # its guard module imports no client: the import goes to module level
    ("local_import_aiokafka_listener_factory", "aiokafka", ("Source",), ("t",)),
    ("local_import_confluent_owner", "confluent_kafka", ("log",), ("b:9092", "t")),
]


@pytest.mark.parametrize(("name", "package", "names", "args"), CASES, ids=[c[0] for c in CASES])
def test_the_migrated_module_behaves_the_same_without_the_client(
    name: str, package: str, names: tuple[str, ...], args: tuple[object, ...]
) -> None:
    before = FIXTURES / f"{name}.py"
    after = FIXTURES / "migrated" / f"{name}.py"
    result = migrate_source(before.read_bytes(), before.name)
    assert result.status == "ok" and not result.manual, result
    assert result.new_source == after.read_bytes()
    without_before = _probe(before, (package,), names, args)
    without_after = _probe(after, (package,), names, args)
    assert without_after == without_before
    assert "consume" in without_before and "<unbound>" not in without_before.values()
    assert migrate_source(after.read_bytes(), after.name).new_source is None  # idempotent


def test_the_probe_sees_an_import_of_the_client_outside_the_try_block_fail(
    tmp_path: Path,
) -> None:
    """Not vacuous: ``Consumer`` of ``rebalance_guard.confluent_kafka`` imports the client on
    access, so the same migrated module importing it at the top does not import without the
    client; importing the guard's listener, view and ``subscribe`` there does."""
    after = (FIXTURES / "migrated" / "optional_confluent.py").read_text()
    guard = "    from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe\n"
    assert guard in after
    (tmp_path / "hoisted.py").write_text(guard.strip() + "\n" + after.replace(guard, ""))
    seen = _probe(tmp_path / "hoisted.py", ("confluent_kafka",), ("Consumer",), ({}, ["t"]))
    assert seen["Consumer"] == "None"
    consumer = "from rebalance_guard.confluent_kafka import Consumer as GuardConsumer\n"
    (tmp_path / "consumer.py").write_text(consumer + after)
    with pytest.raises(
        AssertionError,
        match=re.escape(
            "ImportError: rebalance_guard.confluent_kafka.Consumer needs confluent-kafka"
        ),
    ):
        _probe(tmp_path / "consumer.py", ("confluent_kafka",), ("Consumer",), ({}, ["t"]))


@pytest.mark.parametrize("name", [c[0] for c in CASES if c[0].startswith("optional_")])
def test_with_the_client_the_migrated_module_imports_the_guard(name: str) -> None:
    after = FIXTURES / "migrated" / f"{name}.py"
    seen = _probe(after, (), ("RebalanceListener",), ())
    assert seen["RebalanceListener"] == ["RebalanceListener", "object"]


def test_a_module_level_listeners_base_is_the_stand_in_without_the_client() -> None:
    """The class is evaluated on import: without the client it derives from ``object``, as
    the original did through ``ConsumerRebalanceListener = object``."""
    after = FIXTURES / "migrated" / "optional_kafka_python.py"
    seen = _probe(after, ("kafka",), ("CommitOnRevoke", "RebalanceListener"), (["t"],))
    assert seen["CommitOnRevoke"] == ["CommitOnRevoke", "object"]
    assert seen["RebalanceListener"] == ["object"]


@pytest.mark.parametrize("name", [c[0] for c in CASES])
def test_check_calls_every_site_fixable_and_none_is_left(name: str) -> None:
    source = (FIXTURES / f"{name}.py").read_bytes()
    findings = [f for f in check_source(source, f"{name}.py").findings if f.code in MIGRATION_CODES]
    assert findings and all(f.fixable for f in findings), findings
    after = (FIXTURES / "migrated" / f"{name}.py").read_bytes()
    assert not [f for f in check_source(after, f"{name}.py").findings if f.code in MIGRATION_CODES]


def _migrate(source: str) -> MigrationResult:
    result = migrate_source(textwrap.dedent(source).encode(), "optional.py")
    assert result.status == "ok", result.reason
    return result


def test_a_lambdas_topic_partition_joins_the_clients_import_in_the_try_block() -> None:
    result = _migrate(
        """
        try:
            from confluent_kafka import Consumer
        except (ImportError, ModuleNotFoundError):
            Consumer = None


        def consume(conf):
            consumer = Consumer(conf)
            consumer.subscribe(["t"], on_assign=lambda c, partitions: print(partitions))
            return consumer
        """
    )
    assert not result.manual, result.manual
    assert result.new_source is not None
    assert result.new_source.decode().startswith(
        textwrap.dedent(
            """
            from typing import TYPE_CHECKING

            try:
                from confluent_kafka import Consumer, TopicPartition
                from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe
            except (ImportError, ModuleNotFoundError):
                Consumer = None
                if TYPE_CHECKING:  # type checkers: confluent_kafka is installed
                    raise
            """
        )
    )


def test_names_only_annotations_use_need_no_stand_in_with_postponed_annotations() -> None:
    """``from __future__ import annotations``: the view's annotation is never evaluated, so
    only the base is bound in the except block; an except block ending in raise gets nothing."""
    result = _migrate(
        """
        from __future__ import annotations

        try:
            from kafka import ConsumerRebalanceListener, KafkaConsumer
        except ImportError:
            ConsumerRebalanceListener = object
            KafkaConsumer = None
        except AttributeError:
            raise


        class Listener(ConsumerRebalanceListener):
            def __init__(self, consumer):
                self.consumer = consumer

            def on_partitions_revoked(self, revoked):
                self.consumer.commit()

            def on_partitions_assigned(self, assigned):
                pass


        def consume():
            consumer = KafkaConsumer(group_id="g")
            consumer.subscribe(["t"], listener=Listener(consumer))
        """
    )
    assert not result.manual, result.manual
    assert result.new_source is not None
    assert (
        textwrap.dedent(
            """
        try:
            from kafka import KafkaConsumer
            from rebalance_guard.kafka_python import RebalanceConsumer, RebalanceListener, set_rebalance_listener
        except ImportError:
            ConsumerRebalanceListener = object
            KafkaConsumer = None
            if TYPE_CHECKING:  # type checkers: kafka is installed
                raise
            RebalanceListener = object  # type: ignore[misc]
        except AttributeError:
            raise
        """
        )
        in result.new_source.decode()
    )


def test_one_line_try_and_except_blocks_are_opened_up() -> None:
    result = _migrate(
        """
        try: from kafka import ConsumerRebalanceListener, KafkaConsumer  # optional
        except ImportError: ConsumerRebalanceListener = object; KafkaConsumer = None


        class Listener(ConsumerRebalanceListener):
            def on_partitions_revoked(self, revoked):
                pass

            def on_partitions_assigned(self, assigned):
                pass


        def consume():
            consumer = KafkaConsumer(group_id="g")
            consumer.subscribe(["t"], listener=Listener())
        """
    )
    assert not result.manual, result.manual
    assert result.new_source is not None
    assert result.new_source.decode().startswith(
        textwrap.dedent(
            """
            from typing import TYPE_CHECKING

            try:
                from kafka import KafkaConsumer  # optional
                from rebalance_guard.kafka_python import RebalanceConsumer, RebalanceListener, set_rebalance_listener
            except ImportError:
                ConsumerRebalanceListener = object; KafkaConsumer = None
                if TYPE_CHECKING:  # type checkers: kafka is installed
                    raise
                RebalanceConsumer = object  # type: ignore[misc]
                RebalanceListener = object  # type: ignore[misc]
            """
        )
    )


def test_listener_classes_inside_functions_need_no_stand_in() -> None:
    after = (FIXTURES / "migrated" / "optional_aiokafka.py").read_text()
    assert (
        "except ImportError:\n    aiokafka = None\n    AIOKafkaConsumer = None\n"
        "    if TYPE_CHECKING:  # type checkers: aiokafka is installed\n        raise\n\n"
    ) in after


@pytest.mark.parametrize(
    "source",
    [
        # the module-level try inside an if
        """
        import sys
        if sys.platform != "win32":
            try:
                from confluent_kafka import Consumer
            except ImportError:
                Consumer = None
        def consume(conf):
            def on_assign(consumer, partitions):
                consumer.assign(partitions)
            c = Consumer(conf)
            c.subscribe(["a"], on_assign=on_assign)
        """,
    ],
    ids=["in-an-if"],
)
def test_a_client_imported_below_the_module_level_is_refused(source: str) -> None:
    result = _migrate(source)
    assert result.new_source is None
    assert [m.reason for m in result.manual] == [
        "confluent_kafka is an optional dependency here, imported only inside try/except ImportError below the module level (in a function, an if or another try); the codemod adds rebalance_guard.confluent_kafka's import only next to a module-level one: import confluent_kafka in a try block at module level (the except binding the names used), then run migrate again"
    ]


def test_module_level_confluent_callbacks_become_a_class_defined_without_the_client(
    tmp_path: Path,
) -> None:
    """The callbacks are module-level defs: the listener class they become is evaluated on
    import, so its base and annotations are bound in the except block."""
    before = tmp_path / "before.py"
    before.write_text(
        textwrap.dedent(
            """
            try:
                from confluent_kafka import Consumer
            except ImportError:
                Consumer = None


            def on_assign(consumer, partitions):
                print("assigned", partitions)


            def on_revoke(consumer, partitions):
                consumer.commit(asynchronous=False)


            def consume(conf):
                if Consumer is None:
                    return "no client"
                consumer = Consumer(conf)
                consumer.subscribe(["t"], on_assign=on_assign, on_revoke=on_revoke)
                return consumer
            """
        )
    )
    result = migrate_source(before.read_bytes(), "before.py")
    assert result.status == "ok" and not result.manual and result.new_source is not None
    after = tmp_path / "after.py"
    after.write_bytes(result.new_source)
    assert (
        "    RebalanceConsumer = object  # type: ignore[misc]\n    RebalanceListener = object  # type: ignore[misc]\n\n\nclass RebalanceCallbacks(RebalanceListener):"
        in after.read_text()
    )
    assert _probe(before, ("confluent_kafka",), ("Consumer",), ({},)) == {
        "Consumer": "None",
        "consume": "'no client'",
    }
    assert _probe(after, ("confluent_kafka",), ("Consumer",), ({},)) == {
        "Consumer": "None",
        "consume": "'no client'",
    }
    assert _probe(after, ("confluent_kafka",), ("RebalanceCallbacks",), ({},))[
        "RebalanceCallbacks"
    ] == ["RebalanceCallbacks", "object"]


#: The guard's imports stay in the function (they are reached there) or go to module level.
HOISTED = ["local_import_aiokafka_listener_factory", "local_import_confluent_owner"]
LOCAL = [c[0] for c in CASES if c[0].startswith("local_import_") and c[0] not in HOISTED]


@pytest.mark.parametrize("name", LOCAL)
def test_a_function_local_client_import_gains_no_module_level_dependency(name: str) -> None:
    """Imported without the client, the migrated module binds nothing from rebalance_guard
    (its imports are in the function); consume() fails as before, at the client's import."""
    after = FIXTURES / "migrated" / f"{name}.py"
    package = next(c[1] for c in CASES if c[0] == name)
    args = next(c[3] for c in CASES if c[0] == name)
    seen = _probe(after, (package,), ("RebalanceListener", "subscribe"), args)
    assert seen["RebalanceListener"] == seen["subscribe"] == repr("<unbound>")
    assert str(seen["consume"]).startswith(("ModuleNotFoundError", "RuntimeError"))
    guard = "from rebalance_guard."
    assert all(line.startswith(" ") for line in after.read_text().splitlines() if guard in line)


@pytest.mark.parametrize("name", [n for n in LOCAL + HOISTED if "confluent" in n])
def test_with_the_client_the_functions_import_the_guard(name: str) -> None:
    """With the client, consume() runs the migrated registration (no broker: confluent
    subscribes without connecting; kafka-python's consumer connects when created)."""
    after = FIXTURES / "migrated" / f"{name}.py"
    args = next(c[3] for c in CASES if c[0] == name)
    seen = _probe(after, (), (), args)
    assert "Error" not in str(seen["consume"]), seen


@pytest.mark.parametrize("name", HOISTED)
def test_a_guard_module_importing_no_client_may_go_to_module_level(name: str) -> None:
    """aiokafka imported in two methods, the listener made in one and registered in the
    other; confluent-kafka imported in ``__init__`` of a class that becomes its own listener:
    no local import reaches every use, but rebalance_guard.aiokafka and
    rebalance_guard.confluent_kafka import no client (tests/lint/test_client_facts.py), so
    their import goes to module level; imported without the client the module binds the
    guard's names and consume() fails at the client's import, as before."""
    package, _, args = next(c[1:] for c in CASES if c[0] == name)
    after = FIXTURES / "migrated" / f"{name}.py"
    guard = (
        "rebalance_guard.aiokafka" if package == "aiokafka" else "rebalance_guard.confluent_kafka"
    )
    assert f"\nfrom {guard} import " in after.read_text()
    seen = _probe(after, (package,), ("RebalanceListener",), args)
    assert seen["RebalanceListener"] == ["RebalanceListener", "object"]
    assert str(seen["consume"]).startswith(("ModuleNotFoundError", "RuntimeError")), seen


def test_a_try_in_a_function_whose_except_returns_takes_the_imports() -> None:
    result = _migrate(
        """
        def consume(conf):
            try:
                from confluent_kafka import Consumer
            except ImportError:
                return None
            def on_assign(consumer, partitions):
                consumer.assign(partitions)
            c = Consumer(conf)
            c.subscribe(["a"], on_assign=on_assign)
        """
    )
    assert not result.manual, result.manual
    assert result.new_source is not None
    assert result.new_source.decode() == textwrap.dedent(
        """
        def consume(conf):
            try:
                from confluent_kafka import Consumer
                from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe
            except ImportError:
                return None
            class RebalanceCallbacks(RebalanceListener):
                def on_partitions_assigned(self, partitions, consumer: RebalanceConsumer):
                    for partition in partitions:
                        consumer.seek(partition)
            c = Consumer(conf)
            subscribe(c, ["a"], RebalanceCallbacks())
        """
    )


def test_each_function_importing_the_client_gets_the_imports_after_its_own() -> None:
    result = _migrate(
        """
        def one(conf):
            from confluent_kafka import Consumer
            def on_assign(consumer, partitions):
                print(partitions)
            c = Consumer(conf)
            c.subscribe(["a"], on_assign=on_assign)
        def two(conf):
            import confluent_kafka
            c = confluent_kafka.Consumer(conf)
            c.subscribe(["a"], on_revoke=lambda c, p: c.commit(asynchronous=False))
        """
    )
    assert not result.manual, result.manual
    assert result.new_source is not None
    text = result.new_source.decode()
    guard = "    from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe\n"
    assert "    from confluent_kafka import Consumer, TopicPartition\n" + guard in text
    assert (
        "    import confluent_kafka\n    from confluent_kafka import TopicPartition\n" + guard
        in text
    )
    assert text.startswith("\ndef one(conf):")


GUARD = "rebalance_guard.confluent_kafka"
NEXT = (
    "import confluent_kafka at module level (in a try block, the except binding the names "
    "used) or register callbacks defined inside {where} after its import, then run migrate again"
)

#: Refused before ``rebalance_guard.confluent_kafka`` imported without confluent-kafka; its
#: import goes to module level now (``facts.guard_imports_client``, facts' row, False).
UNREACHED = [
    (
        # holdout 035: the owner class becomes its own listener, a base evaluated on import
        """
        class Source:
            def __init__(self, brokers: str, topic: str, group: str) -> None:
                try:
                    from confluent_kafka import Consumer  # type: ignore
                except ImportError as exc:  # pragma: no cover
                    raise SystemExit("confluent-kafka is not installed") from exc
                self._consumer = Consumer({"bootstrap.servers": brokers, "group.id": group})
                self._consumer.subscribe([topic], on_revoke=self._on_revoke)

            def _on_revoke(self, consumer, partitions) -> None:
                consumer.commit(asynchronous=False)
        """,
        9,
        f"confluent_kafka is imported only inside Source.__init__() (line 5), where the codemod adds {GUARD}'s import, but the migration uses RebalanceListener as Source's base, evaluated when the module is imported (line 2), which that import does not reach; "
        + NEXT.format(where="Source.__init__()"),
    ),
    (
        # an except that goes on without the client: the names are not bound after the try
        """
        def consume(conf):
            try:
                from confluent_kafka import Consumer
            except ImportError:
                Consumer = None
            if Consumer is None:
                return None
            def on_assign(consumer, partitions):
                print(partitions)
            c = Consumer(conf)
            c.subscribe(["a"], on_assign=on_assign)
        """,
        12,
        f"confluent_kafka is imported only inside consume() (line 4), where the codemod adds {GUARD}'s import, but the migration uses RebalanceConsumer at line 9, which that import does not reach; the except at line 5 goes on without it: end it with raise or return; "
        + NEXT.format(where="consume()"),
    ),
    (
        # the callback defined before the import: its class would be too
        """
        def consume(conf):
            def on_assign(consumer, partitions):
                print(partitions)
            from confluent_kafka import Consumer
            c = Consumer(conf)
            c.subscribe(["a"], on_assign=on_assign)
        """,
        7,
        f"confluent_kafka is imported only inside consume() (line 5), where the codemod adds {GUARD}'s import, but the migration uses RebalanceConsumer at line 3, which that import does not reach; "
        + NEXT.format(where="consume()"),
    ),
    (
        # a helper's annotation evaluated when the class is defined (no postponed annotations)
        """
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            from confluent_kafka import Consumer
        class Source:
            def start(self, conf):
                from confluent_kafka import Consumer
                def on_revoke(consumer, partitions):
                    self._commit(consumer)
                c = Consumer(conf)
                c.subscribe(["t"], on_revoke=on_revoke)
            def _commit(self, consumer: "Consumer") -> None:
                consumer.commit(asynchronous=False)
        """,
        11,
        f"confluent_kafka is imported only inside Source.start() (line 7), where the codemod adds {GUARD}'s import, but the migration uses RebalanceConsumer at line 12, in Source._commit(), which that import does not reach; "
        + NEXT.format(where="Source.start()"),
    ),
]
UNREACHED_IDS = ["owner-base", "except-goes-on", "def-before", "annotation-evaluated"]
GUARD_IMPORT = f"\nfrom {GUARD} import RebalanceConsumer, RebalanceListener, subscribe\n"


@pytest.mark.parametrize(("source", "line", "reason"), UNREACHED, ids=UNREACHED_IDS)
def test_a_use_the_local_import_does_not_reach_gets_the_guards_import_at_module_level(
    source: str, line: int, reason: str, tmp_path: Path
) -> None:
    """Without confluent-kafka the migrated module imports, and behaves, as the original."""
    result = _migrate(source)
    assert not result.manual and result.new_source is not None, result.manual
    assert GUARD_IMPORT in result.new_source.decode()
    before, after = tmp_path / "before.py", tmp_path / "after.py"
    before.write_text(textwrap.dedent(source))
    after.write_bytes(result.new_source)
    without = _probe(before, ("confluent_kafka",), (), ({},))
    assert _probe(after, ("confluent_kafka",), (), ({},)) == without
    findings = check_source(textwrap.dedent(source).encode(), "optional.py").findings
    assert [f for f in findings if f.code in MIGRATION_CODES and f.fixable], findings
    assert migrate_source(result.new_source, "optional.py").new_source is None


@pytest.mark.parametrize(("source", "line", "reason"), UNREACHED, ids=UNREACHED_IDS)
def test_a_guard_module_importing_its_client_keeps_the_refusal(
    source: str, line: int, reason: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The decision reads the client facts: were rebalance_guard.confluent_kafka to import
    confluent-kafka, these files would be refused as before, saying where."""
    monkeypatch.setitem(CLIENTS, "confluent", replace(CONFLUENT, guard_imports_client=True))
    _assert_refused(source, line, reason)


def test_a_name_importing_the_client_on_access_stays_with_the_local_import(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Per name (``guard_names_importing_client``): were ``RebalanceListener`` one, the owner
    class using it as a base would be refused; where the local import reaches its uses, it
    stays there while the other names go to module level."""
    heavy = replace(CONFLUENT, guard_names_importing_client=frozenset({"RebalanceListener"}))
    monkeypatch.setitem(CLIENTS, "confluent", heavy)
    _assert_refused(*UNREACHED[0])
    result = _migrate(UNREACHED[3][0])
    assert not result.manual and result.new_source is not None, result.manual
    text = result.new_source.decode()
    assert f"\nfrom {GUARD} import RebalanceConsumer, subscribe\n" in text
    assert (
        f"        from confluent_kafka import Consumer\n        from {GUARD} import RebalanceListener\n"
        in text
    )


REFUSED_LOCAL = [
    (
        # the lambda's class annotates its partitions with confluent's TopicPartition, which
        # only the client's import binds, and the except goes on without it
        """
        def consume(conf):
            try:
                from confluent_kafka import Consumer
            except ImportError:
                Consumer = None
            if Consumer is None:
                return None
            c = Consumer(conf)
            c.subscribe(["a"], on_revoke=lambda c, p: c.commit(asynchronous=False))
        """,
        10,
        f"confluent_kafka is imported only inside consume() (line 4), where the codemod adds {GUARD}'s import, but the migration uses TopicPartition at line 10, which that import does not reach; the except at line 5 goes on without it: end it with raise or return; "
        + NEXT.format(where="consume()"),
    ),
]


@pytest.mark.parametrize(("source", "line", "reason"), REFUSED_LOCAL, ids=["client-name"])
def test_a_use_the_local_import_does_not_reach_refuses_the_file(
    source: str, line: int, reason: str
) -> None:
    _assert_refused(source, line, reason)


def _assert_refused(source: str, line: int, reason: str) -> None:
    result = _migrate(source)
    assert result.new_source is None
    assert [(m.line, m.reason) for m in result.manual] == [(line, reason)]
    findings = check_source(textwrap.dedent(source).encode(), "optional.py").findings
    assert not [f for f in findings if f.code in MIGRATION_CODES and f.fixable], findings
