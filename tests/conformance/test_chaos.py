"""The short chaos run in CI (benchmarks/rebalance_chaos.py): members in separate processes
join, leave gracefully and (sigkill) are SIGKILLed while numbered messages are produced;
listeners commit on revoke with a bare commit().

Nothing may be lost; without kills nothing may be duplicated; with kills a message may repeat
only when its earlier processor never committed past it and was killed, lost the partition or
saw its commit fail in between (the bound in the benchmark's docstring).

Every client x protocol of the conformance matrix, KIP-848's consumer protocol on both
confluent APIs included, and kafka-python 3's async listener; kafka-python 2.x eager runs in
CI's second environment (``-m kafka_python``). The coordinator-failover mode needs three
brokers and is a recorded benchmark run, not CI (benchmarks/RESULTS.md).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.conftest import TARGETS
from tests.integration.broker import Broker

CHAOS = Path(__file__).resolve().parents[2] / "benchmarks" / "rebalance_chaos.py"
#: The schedule's seed: with it every cell makes 2-3 membership changes in 14 s and every
#: sigkill cell SIGKILLs at least one member (seed 7, before, killed none in kafka-python
#: eager). The schedule depends only on the seed, client and protocol.
SEED = 42


def _chaos() -> Any:
    spec = importlib.util.spec_from_file_location("rebalance_chaos", CHAOS)
    assert spec is not None and spec.loader is not None
    module = sys.modules.get(spec.name)
    if module is None:
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
    return module


#: The conformance matrix, plus kafka-python 3's async listener (AsyncRebalanceListener, its
#: callbacks awaited on the client's IO loop: a listener API of its own on the same client).
CHAOS_TARGETS = [
    *TARGETS,
    *(
        pytest.param(("kafka_python_async", protocol), id=f"kafka_python_async-{protocol}")
        for protocol in ("eager", "cooperative")
    ),
]


@pytest.mark.parametrize("mode", ["graceful", "sigkill"])
@pytest.mark.parametrize("target", CHAOS_TARGETS)
def test_short_chaos_run(broker: Broker, target: tuple[str, str], mode: str) -> None:
    chaos = _chaos()
    client, protocol = target
    reason = chaos.skip_reason(client, protocol, broker)
    if reason:
        pytest.skip(reason)
    result = chaos.run_one(broker, client, protocol, seconds=14, seed=SEED, mode=mode)
    assert result.messages > 500, result
    assert result.changes >= 2, result
    if mode == "sigkill":
        assert result.kills >= 1, result
        assert result.unexcused == 0, result
    else:
        assert result.duplicated == 0, result
    assert result.lost == 0, result
