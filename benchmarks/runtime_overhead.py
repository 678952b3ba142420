"""Runtime overhead of the guarded listener, all four consumer APIs, one broker, one run.

For each consumer API (kafka-python, aiokafka, confluent's ``Consumer`` and ``AIOConsumer``):
messages/second through a consumer whose rebalance listener is the rebalance_guard adapter
against the same consumer with a plain listener (the median of per-round guarded/plain ratios,
goal >= 0.98), the same ratio for a second plain consumer (plain/plain, the control: how
finely this run can resolve a difference), and the cost of one guarded callback dispatch in
microseconds against a plain call, the callback's timing and log record included.

Each client ends with a verdict: the goal is judged only where the control's median is
within 2 % of 1 (the run can resolve the 2 % the goal allows); otherwise it says so.

    python benchmarks/runtime_overhead.py [--clients kafka_python,aiokafka,confluent_kafka,...]
    python benchmarks/runtime_<client>.py      # the same, one client

Uses the test broker (Apache Kafka, or KAFKA_BOOTSTRAP_SERVERS), exactly as the tests do.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from runtime_rounds import CONTROL, RATIO  # noqa: E402

from tests.integration.broker import start_broker  # noqa: E402

CLIENTS = ("kafka_python", "aiokafka", "confluent_kafka", "confluent_kafka_aio")
GOAL = 0.98


def verdict(rows: dict[str, float]) -> str:
    """Whether the goal is met, where the control says the run can tell."""
    ratio, control = rows[RATIO], rows[CONTROL]
    if abs(control - 1) > 1 - GOAL:
        return (
            f"not resolvable in this run: the control is {control:.3f}, two identical "
            f"consumers differ by more than the {1 - GOAL:.0%} the goal allows "
            f"(guarded/plain {ratio:.3f})"
        )
    met = "met" if ratio >= GOAL else "NOT met"
    return f"goal {met}: guarded/plain {ratio:.3f} (control {control:.3f}, goal >= {GOAL})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", default=",".join(CLIENTS))
    args = parser.parse_args(argv)
    brokers = start_broker()
    broker = next(brokers)
    try:
        print(f"broker: {broker.description or broker.kind}")
        print(f"{'client':<20} {'measure':<50} {'value':>12}  unit")
        for client in args.clients.split(","):
            module = importlib.import_module(f"runtime_{client}")
            rows = {}
            for name, value, unit in module.measure(broker):
                rows[name] = value
                print(f"{client:<20} {name:<50} {value:>12.3f}  {unit}", flush=True)
            print(f"{client:<20} {verdict(rows)}", flush=True)
    finally:
        next(brokers, None)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
