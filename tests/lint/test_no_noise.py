"""Precision on real code: every rule over the standard library and the installed packages.

Zero findings outside the Kafka clients' own code, and no file crashes the rules. The
cheap byte check rules out almost every file before parsing, which keeps this fast.
"""

from __future__ import annotations

import os
import sysconfig
from pathlib import Path

from rebalance_lint import check_source

CLIENT_PACKAGES = ("kafka", "aiokafka", "confluent_kafka")


def python_files() -> list[Path]:
    roots = {Path(sysconfig.get_paths()[key]) for key in ("stdlib", "purelib", "platlib")}
    files: list[Path] = []
    for root in sorted(roots):
        for directory, _dirs, names in os.walk(root):
            files.extend(Path(directory, name) for name in names if name.endswith(".py"))
    return files


def is_client_code(path: Path) -> bool:
    return any(part in CLIENT_PACKAGES for part in path.parts)


def test_no_findings_and_no_crash_outside_the_kafka_clients() -> None:
    files = python_files()
    assert len(files) > 5000  # the standard library alone has more
    noise: list[str] = []
    crashed: list[str] = []
    analysed = client_files = 0
    for path in files:
        try:
            source = path.read_bytes()
        except OSError:
            continue
        report = check_source(source, str(path))
        analysed += not report.skipped
        if report.status == "crashed":
            crashed.append(f"{path}: {report.reason}")
        if is_client_code(path):
            client_files += not report.skipped
        else:
            noise += [f"{path}:{f.line}:{f.col}: {f.code} {f.message}" for f in report.findings]
    assert crashed == []
    assert noise == []
    # the clients and some other Kafka-mentioning packages were really parsed and analysed
    assert client_files > 100 and analysed > client_files
