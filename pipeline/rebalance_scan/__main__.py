"""``python -m rebalance_scan ARGS`` and ``spark-submit .../rebalance_scan/__main__.py ARGS``:
the same as ``rebalance-guard scan ARGS`` (spark-submit needs a Python file to run)."""

from __future__ import annotations

import sys

from rebalance_scan.scan_command import run

if __name__ == "__main__":
    raise SystemExit(run(sys.argv[1:]))
