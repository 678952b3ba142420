"""The three-member bare-commit scenario, N runs per client x protocol (issue 22, item 3).

Three consumers of one group go through four assignments (first member, two joins, one or two
leaves) while a producer writes numbered messages; auto-commit is off and the only commits are
a BARE ``commit()`` on the view in ``on_partitions_revoked`` (KIP-1306's own example), which
``close()``/``stop()`` also runs. A run is exactly-once when every message is processed and
none twice: the scenario's own assertions, from the integration tests, not a copy of them:

- confluent ``AIOConsumer``: ``_scenario(broker, protocol, "bare")`` of
  tests/integration/test_confluent_kafka_aio_commit_on_revoke.py;
- kafka-python: its test function with ``commit="bare"``
  (tests/integration/test_kafka_python_commit_on_revoke.py);
- confluent ``Consumer`` and aiokafka: their scenarios commit explicit offsets only
  (tests/integration/test_confluent_kafka_commit_on_revoke.py,
  test_aiokafka_commit_on_revoke.py ``_scenario``), so the run swaps in a subclass of the
  test's own listener whose ``on_partitions_revoked`` makes a bare commit instead, for the
  duration of the call; everything else (joins, leaves, producer, checks) is the test's.

    python benchmarks/exactly_once_series.py [--runs 10]
        [--clients kafka_python,aiokafka,confluent_kafka,confluent_kafka_aio]
        [--protocols eager,cooperative,consumer]

kafka-python 2.x: run it with the interpreter of an environment holding kafka-python 2 (CI's
.venv-kp2); it has eager only. Uses the test broker (Apache Kafka, tests/integration/broker.py)
or KAFKA_BOOTSTRAP_SERVERS. Exit status 0 when every run of every cell was exactly-once.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from tests.integration.broker import Broker, start_broker  # noqa: E402

CLIENTS = ("kafka_python", "aiokafka", "confluent_kafka", "confluent_kafka_aio")
PROTOCOLS = ("eager", "cooperative", "consumer")
MODULE = "tests.integration.test_{client}_commit_on_revoke"


@contextmanager
def swapped(module: Any, name: str, replacement: Any) -> Iterator[None]:
    """``module.name`` is ``replacement`` meanwhile; the scenario must make 3 members of it."""
    original = getattr(module, name)
    made = replacement.made = []
    setattr(module, name, replacement)
    try:
        yield
    finally:
        setattr(module, name, original)
    assert len(made) >= 3, f"{module.__name__} made {len(made)} {name}: bare commit not used"


def run_kafka_python(broker: Broker, protocol: str) -> None:
    module = importlib.import_module(MODULE.format(client="kafka_python"))
    module.test_every_message_processed_once_across_rebalances(broker, protocol, "bare")


def run_confluent_kafka_aio(broker: Broker, protocol: str) -> None:
    module = importlib.import_module(MODULE.format(client="confluent_kafka_aio"))
    asyncio.run(module._scenario(broker, protocol, "bare"))


def run_confluent_kafka(broker: Broker, protocol: str) -> None:
    module = importlib.import_module(MODULE.format(client="confluent_kafka"))

    class BareCommit(module.CommitProcessed):  # type: ignore[misc, name-defined]
        made: list[object]

        def __init__(self, *args: Any) -> None:
            super().__init__(*args)
            self.made.append(self)

        def on_partitions_revoked(self, partitions: Any, consumer: Any) -> None:
            self.events.append("revoked")
            for p in partitions:  # the test's own bookkeeping, unused by a bare commit
                self.processed.pop(p.partition, None)
            if consumer.commit():  # bare, synchronous: the consumed positions ([] if none)
                self.commits += 1

    with swapped(module, "CommitProcessed", BareCommit):
        module.test_every_message_processed_once_across_rebalances(broker, protocol)


def run_aiokafka(broker: Broker, protocol: str) -> None:
    module = importlib.import_module(MODULE.format(client="aiokafka"))

    class BareCommit(module.CommitOnRevoke):  # type: ignore[misc, name-defined]
        made: list[object]

        def __init__(self, *args: Any) -> None:
            super().__init__(*args)
            self.made.append(self)

        async def on_partitions_revoked(self, partitions: Any, consumer: Any) -> None:
            for tp in partitions:  # the test's own bookkeeping, unused by a bare commit
                self.positions.pop(tp, None)
            await consumer.commit()  # bare: the consumed positions
            self.revoked_with_partitions += bool(partitions)

    with swapped(module, "CommitOnRevoke", BareCommit):
        asyncio.run(module._scenario(broker))


RUNNERS: dict[str, Callable[[Broker, str], None]] = {
    "kafka_python": run_kafka_python,
    "aiokafka": run_aiokafka,
    "confluent_kafka": run_confluent_kafka,
    "confluent_kafka_aio": run_confluent_kafka_aio,
}


def skip_reason(client: str, protocol: str, broker: Broker) -> str | None:
    if protocol not in broker.protocols():
        return f"the {broker.kind} broker does not speak the {protocol} protocol"
    if client in ("kafka_python", "aiokafka") and protocol == "consumer":
        from tests.conformance.driver import NO_CONSUMER_PROTOCOL

        return NO_CONSUMER_PROTOCOL.format(client=client.replace("_", "-"))
    if client == "aiokafka" and protocol == "cooperative":
        return "aiokafka 0.14 has no cooperative protocol (aiokafka #1126)"
    if client == "kafka_python" and protocol == "cooperative":
        import kafka

        if not kafka.__version__.startswith("3"):
            return "kafka-python 2.x has no cooperative protocol"
    return None


def one_run(broker: Broker, client: str, protocol: str) -> tuple[bool, str, float]:
    """(exactly once, what failed, seconds). Anything raised is a failed run: confluent's
    close() can raise a ``KafkaError``, which is no BaseException (see RESULTS.md)."""
    started = time.monotonic()
    try:
        RUNNERS[client](broker, protocol)
    except KeyboardInterrupt:
        raise
    except:  # noqa: E722
        kind, exc = sys.exc_info()[:2]
        first = (str(exc) or getattr(kind, "__name__", "?")).splitlines()[0][:300]
        return False, f"{getattr(kind, '__name__', kind)}: {first}", time.monotonic() - started
    return True, "", time.monotonic() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--clients", default=",".join(CLIENTS))
    parser.add_argument("--protocols", default=",".join(PROTOCOLS))
    args = parser.parse_args(argv)
    keep_logs = [False]  # Apache Kafka's directory is kept when a run fails
    brokers = start_broker(keep_logs)
    broker = next(brokers)
    print(f"broker: {broker.kind} {broker.description}; load {os.getloadavg()}", flush=True)
    failures = 0
    summary: list[str] = []
    try:
        for client in args.clients.split(","):
            for protocol in args.protocols.split(","):
                reason = skip_reason(client, protocol, broker)
                cell = f"{client}-{protocol}"
                if reason:
                    summary.append(f"{cell:<28} skipped: {reason}")
                    print(summary[-1], flush=True)
                    continue
                good = 0
                for run in range(1, args.runs + 1):
                    ok, why, seconds = one_run(broker, client, protocol)
                    good += ok
                    keep_logs[0] |= not ok
                    print(f"{cell:<28} run {run:>2}: {'exactly once' if ok else 'FAILED'} "
                          f"in {seconds:.1f}s (load {os.getloadavg()[0]:.1f}) {why}",
                          flush=True)  # fmt: skip
                failures += args.runs - good
                summary.append(f"{cell:<28} {good}/{args.runs} exactly once")
                print(summary[-1], flush=True)
    finally:
        next(brokers, None)
    print("\n".join(["", "summary:", *summary]), flush=True)
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
