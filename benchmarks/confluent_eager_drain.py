"""The eager "fetch stall" of test_confluent_kafka_commit_on_revoke.py, measured: the scenario
N times, counting deliveries per 10 s of the drain.

    python benchmarks/confluent_eager_drain.py 6            # the old drain: poll_until
    python benchmarks/confluent_eager_drain.py 6 --batch    # the test's drain() (batches)

With poll_until (one message per poll(0.2) per member in turn) slow runs read
[982, 50, 50, 50, 50, 50, 0]: librdkafka delivers 5 a second to the deadline, no stall.
See benchmarks/RESULTS.md, "confluent cooperative stall on tansu: root cause".
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]

import tests.integration.test_confluent_kafka_commit_on_revoke as scenario  # noqa: E402
from tests.integration.broker import start_broker  # noqa: E402
from tests.integration.confluent_kafka_support import poll_until  # noqa: E402

batch_drain = scenario.drain


def measured_drain(consumers: Any, done: Any, on_message: Any) -> None:
    stamps: list[float] = []
    started = time.monotonic()

    def record(consumer: Any, message: Any) -> None:
        stamps.append(time.monotonic() - started)
        on_message(consumer, message)

    try:
        if "--batch" in sys.argv:
            batch_drain(consumers, done, record)
        else:
            poll_until(consumers, done, record, what="drain")
    finally:
        per10 = [sum(1 for s in stamps if a <= s < a + 10) for a in range(0, 70, 10)]
        print(f"   drain: {len(stamps)} delivered in {time.monotonic() - started:.1f} s; "
              f"per 10 s: {per10}", flush=True)  # fmt: skip


def main() -> int:
    runs = int(next((a for a in sys.argv[1:] if a.isdigit()), "6"))
    scenario.drain = measured_drain
    brokers = start_broker()
    broker = next(brokers)
    outcomes = {"passed": 0, "FetchStalled": 0, "other": 0}
    try:
        for i in range(runs):
            started = time.time()
            try:
                scenario.test_every_message_processed_once_across_rebalances(broker, "range")
                outcome, detail = "passed", ""
            except scenario.FetchStalled as exc:
                outcome, detail = "FetchStalled", str(exc)[:300]
            except Exception as exc:  # reported, the loop goes on
                outcome, detail = "other", repr(exc)[:300]
            outcomes[outcome] += 1
            print(f"run {i}: {outcome} in {time.time() - started:.0f} s {detail}", flush=True)
    finally:
        next(brokers, None)
    print(outcomes)
    return 0 if outcomes["passed"] == runs else 1


if __name__ == "__main__":
    sys.exit(main())
