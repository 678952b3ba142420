"""rebalance_guard.confluent_kafka and rebalance_guard.confluent_kafka_aio import without
confluent-kafka: their Protocols and listener bases are usable, while the consumer classes
(which subclass confluent's) and the registration functions import it on first use, with an
ImportError naming the distribution when it is missing. Each case runs in a fresh
interpreter, so nothing imported earlier in the session hides an import."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

#: Refuses confluent_kafka as an interpreter without it does (import raises ImportError).
BLOCK = 'import sys; sys.modules["confluent_kafka"] = None\n'

MODULES = [
    ("rebalance_guard.confluent_kafka", "Consumer", "ConfluentRebalanceView"),
    ("rebalance_guard.confluent_kafka_aio", "AIOConsumer", "AIOConfluentRebalanceView"),
]


def _run(code: str, *, blocked: bool = False) -> str:
    source = (BLOCK if blocked else "") + textwrap.dedent(code)
    done = subprocess.run(
        [sys.executable, "-c", source], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.parametrize(("module", "consumer", "view"), MODULES, ids=["sync", "aio"])
def test_importing_the_module_imports_no_client(module: str, consumer: str, view: str) -> None:
    code = f"""
        import sys
        import {module} as guard
        print("confluent_kafka" in sys.modules, sorted(set(guard.__all__) & set(dir(guard))))
        """
    names = sorted(_run(f"import {module} as g; print(*g.__all__)").split())
    assert _run(code) == f"False {names}"


@pytest.mark.parametrize(("module", "consumer", "view"), MODULES, ids=["sync", "aio"])
def test_without_the_client_listeners_are_defined_and_consumers_say_what_is_missing(
    module: str, consumer: str, view: str
) -> None:
    code = f"""
        from {module} import RebalanceConsumer, RebalanceListener, set_rebalance_listener

        class Listener(RebalanceListener):
            def on_partitions_revoked(self, partitions, consumer: RebalanceConsumer):
                return None

        print(Listener().on_partitions_lost([], None), RebalanceConsumer.__name__)
        for name in ({consumer!r}, {view!r}):
            try:
                exec(f"from {module} import {{name}}")
            except ImportError as exc:
                print(type(exc).__name__, exc.name, "|", exc)
        try:
            set_rebalance_listener(object(), Listener())
        except ImportError as exc:
            print(exc)
        """
    lines = _run(code, blocked=True).splitlines()
    why = "(import of confluent_kafka halted; None in sys.modules): pip install confluent-kafka"
    assert lines == [
        "None RebalanceConsumer",
        f"ImportError confluent_kafka | {module}.{consumer} needs confluent-kafka, "
        f"which cannot be imported here {why}",
        f"ImportError confluent_kafka | {module}.{view} needs confluent-kafka, "
        f"which cannot be imported here {why}",
        f"{module}.set_rebalance_listener() needs confluent-kafka, which cannot be imported "
        f"here {why}",
    ]


@pytest.mark.parametrize(("module", "consumer", "view"), MODULES, ids=["sync", "aio"])
def test_with_the_client_the_classes_are_confluents_subclasses_under_the_public_name(
    module: str, consumer: str, view: str
) -> None:
    base = (
        "confluent_kafka.Consumer" if consumer == "Consumer" else "confluent_kafka.aio.AIOConsumer"
    )
    code = f"""
        import sys
        import confluent_kafka, confluent_kafka.aio
        import {module} as guard
        from {module} import {consumer}
        print({consumer} is guard.{consumer}, issubclass({consumer}, {base}))
        print({consumer}.__module__, guard.{view}.__module__, "{consumer}" in dir(guard))
        try:
            guard.NoSuchName
        except AttributeError as exc:
            print(exc)
        """
    assert _run(code).splitlines() == [
        "True True",
        f"{module} {module} True",
        f"module {module!r} has no attribute 'NoSuchName'",
    ]


def test_a_plain_consumer_is_refused_by_set_rebalance_listener_as_before() -> None:
    """The function imports the implementation when called, then behaves as it always did."""
    code = """
        import confluent_kafka
        from rebalance_guard.confluent_kafka import RebalanceListener, set_rebalance_listener
        try:
            set_rebalance_listener(confluent_kafka.Consumer({"group.id": "g"}), RebalanceListener())
        except TypeError as exc:
            print(str(exc).split(":")[0])
        """
    assert _run(code) == (
        "set_rebalance_listener() needs a rebalance_guard.confluent_kafka.Consumer, got "
        "cimpl.Consumer"
    )
