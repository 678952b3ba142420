"""LibCST parses a file only when the plan (from the ast model) has an edit for it.

Each case runs in a fresh interpreter and reports whether ``libcst`` was ever imported: a
file with manual sites only, a file with nothing to migrate, and ``--check`` (plan only) on a
migratable file never load it; a real migration of the same file does.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.codemods.examples import ROOT

LEGACY = ROOT / "examples" / "legacy" / "kafka_python_consumer.py"

MANUAL_ONLY = b"""\
from kafka import ConsumerRebalanceListener


class Elsewhere(ConsumerRebalanceListener):  # registered in another module: manual
    def on_partitions_revoked(self, revoked):
        pass

    def on_partitions_assigned(self, assigned):
        pass
"""

NOTHING_TO_DO = b"import kafka\n\nprint(kafka.__name__)\n"

PROBE = """\
import json, sys
from pathlib import Path
from rebalance_codemods.api import migrate_source
source = Path(sys.argv[1]).read_bytes()
result = migrate_source(source, sys.argv[1], plan_only=sys.argv[2] == "plan")
print(json.dumps({
    "libcst": "libcst" in sys.modules,
    "changed": result.new_source is not None,
    "sites": result.migrated_sites,
    "manual": len(result.manual),
    "status": result.status,
}))
"""


def _probe(path: str, mode: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, path, mode],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


@pytest.mark.parametrize(("name", "source"), [("manual", MANUAL_ONLY), ("none", NOTHING_TO_DO)])
def test_no_planned_edit_no_libcst(tmp_path: Path, name: str, source: bytes) -> None:
    path = tmp_path / f"{name}.py"
    path.write_bytes(source)
    seen = _probe(str(path), "full")
    assert seen["status"] == "ok"
    assert seen["changed"] is False and seen["sites"] == 0
    assert seen["manual"] == (1 if name == "manual" else 0)
    assert seen["libcst"] is False


def test_plan_only_never_loads_libcst() -> None:
    seen = _probe(str(LEGACY), "plan")
    assert seen["sites"] == 2 and seen["libcst"] is False


def test_a_planned_edit_is_applied_with_libcst() -> None:
    seen = _probe(str(LEGACY), "full")
    assert seen["changed"] is True and seen["libcst"] is True
