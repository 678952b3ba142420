"""Runtime overhead of the guarded listener, all three clients, one broker, one run.

For each client: messages/second through a consumer whose rebalance listener is the
rebalance_guard adapter against the same consumer with a plain listener (ratio, goal >= 0.98),
and the cost of one guarded callback dispatch in microseconds against a plain call.

    python benchmarks/runtime_overhead.py [--clients kafka_python,aiokafka,confluent_kafka]
    python benchmarks/runtime_<client>.py      # the same, one client

Uses the tansu test broker (or KAFKA_BOOTSTRAP_SERVERS), exactly as the integration tests.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from tests.integration.broker import start_broker  # noqa: E402

CLIENTS = ("kafka_python", "aiokafka", "confluent_kafka")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", default=",".join(CLIENTS))
    args = parser.parse_args(argv)
    brokers = start_broker()
    broker = next(brokers)
    try:
        print(f"{'client':<16} {'measure':<44} {'value':>12}  unit")
        for client in args.clients.split(","):
            module = importlib.import_module(f"runtime_{client}")
            for name, value, unit in module.measure(broker.bootstrap):
                print(f"{client:<16} {name:<44} {value:>12.3f}  {unit}", flush=True)
    finally:
        brokers.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
