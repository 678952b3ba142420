"""`import rebalance_guard` (and each client module) loads only the stdlib and its own client.

Production consumers depend on this package: it must never drag in libcst, pyspark, flake8
or another client. Each import runs in a fresh interpreter so earlier tests cannot hide a leak.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

FORBIDDEN = ("libcst", "pyspark", "pyarrow", "pandas", "flake8", "rebalance_lint",
             "rebalance_codemods", "rebalance_scan")  # fmt: skip
CLIENT_PACKAGES = {
    "kafka": "kafka_python",
    "aiokafka": "aiokafka",
    "confluent_kafka": "confluent_kafka",
}


def _modules_after_import(module: str) -> set[str]:
    code = f"import json, sys; import {module}; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return {name.split(".")[0] for name in json.loads(out.stdout)}


#: Further client modules: rebalance_guard module -> the client package it adapts.
MORE_MODULES = {"confluent_kafka_aio": "confluent_kafka"}  # confluent's AIOConsumer


@pytest.mark.parametrize(
    "module",
    [
        "rebalance_guard",
        *(f"rebalance_guard.{m}" for m in [*CLIENT_PACKAGES.values(), *MORE_MODULES]),
    ],
)
def test_imports_only_stdlib_and_own_client(module: str) -> None:
    loaded = _modules_after_import(module)
    assert not loaded & set(FORBIDDEN)
    own_client = MORE_MODULES.get(module.rpartition(".")[2]) or next(
        (pkg for pkg, mod in CLIENT_PACKAGES.items() if module.endswith(mod)), None
    )
    other_clients = set(CLIENT_PACKAGES) - {own_client}
    assert not loaded & other_clients, f"{module} imported another client: {loaded & other_clients}"


def test_top_level_names() -> None:
    import rebalance_guard

    assert issubclass(rebalance_guard.RebalanceViewExpiredError, RuntimeError)
    assert rebalance_guard.__version__
