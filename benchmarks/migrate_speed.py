"""How fast ``rebalance-guard migrate --check`` is on a fleet that is mostly not Kafka code.

Usage::

    python benchmarks/migrate_speed.py [--megabytes 21] [--kafka-copies 4] [--skip-libcst-tool]
                                       [--with-clients]

The corpus is real Python from the installed site-packages (every file of a deterministic
stride over the packages, the Kafka clients themselves left out) plus the legacy example
programs from ``examples/legacy``, ``--kafka-copies`` times each, copied into a temporary
directory; ``--with-clients`` adds the Kafka clients' own packages (kafka, aiokafka,
confluent_kafka: a few hundred files that mention Kafka and import a client, the shape that
used to send every such file through LibCST). One run measures, on the same files:

* ``rebalance-guard check`` (the rules alone: the reference ``migrate --check`` is held to);
* ``rebalance-guard migrate --check`` with ``-j 1`` and ``-j 2``;
* the LibCST baseline: ``libcst.parse_module`` on every file (what any codemod run through
  ``python -m libcst.tool codemod`` pays at least), in a fresh interpreter;
* ``python -m libcst.tool codemod`` running the same codemod (``-j 1``, unified diff, so
  nothing is written), unless ``--skip-libcst-tool``.

On the fleet corpus nearly every file is ruled out by the byte check in the parent process,
so ``-j 2`` has little to share. A second corpus of only legacy Kafka programs
(``--busy-copies`` of each) shows what the worker processes do when every file needs
LibCST: ``migrate --check`` and a real ``migrate`` (on fresh copies), ``-j 1`` vs ``-j 2``.

Every figure is a fresh process (interpreter start included), reported as wall-clock time
and as CPU time (user + sys of the process and its workers): on a shared machine the CPU
time is the steadier measure of work done, the wall time is what ``-j`` changes. The cheap
runs are repeated (``--repeat``) and the minimum is kept. The script prints ratios and never
asserts absolute times. It checks that the ``--check`` run found exactly the Kafka files it
should, so a fast but wrong run cannot look good.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LEGACY = ROOT / "examples" / "legacy"
#: the legacy example programs copied into the corpus (each needs a migration)
LEGACY_COUNT = len(list(LEGACY.glob("*.py")))
CLIENTS = {"kafka", "aiokafka", "confluent_kafka", "rebalance_guard"}
MAX_FILE_BYTES = 1_000_000  # generated giants say little about real code

PARSE_ALL = """\
import sys
from pathlib import Path
import libcst
for name in Path(sys.argv[1]).read_text().splitlines():
    libcst.parse_module(Path(name).read_bytes())
"""


def build_corpus(
    target: Path, megabytes: float, kafka_copies: int, with_clients: bool = False
) -> tuple[list[Path], int]:
    """Copy the corpus into ``target``; return its files and its size in bytes."""
    site = Path(sysconfig.get_paths()["purelib"])
    chosen: list[Path] = []
    total = 0
    if with_clients:
        for client in sorted(CLIENTS - {"rebalance_guard"}):
            for path in sorted((site / client).rglob("*.py")):
                dest = target / "clients" / path.relative_to(site)
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, dest)
                chosen.append(dest)
                total += path.stat().st_size
    candidates = sorted(
        p
        for p in site.rglob("*.py")
        if p.is_file()
        and "__pycache__" not in p.parts
        and p.relative_to(site).parts[0] not in CLIENTS
        and p.stat().st_size <= MAX_FILE_BYTES
    )
    budget = megabytes * 1e6
    stride = max(1, int(sum(p.stat().st_size for p in candidates) // budget))
    for offset in range(stride):
        for path in candidates[offset::stride]:
            if total >= budget:
                break
            dest = target / "site" / path.relative_to(site)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dest)
            chosen.append(dest)
            total += path.stat().st_size
        if total >= budget:
            break
    for copy in range(kafka_copies):
        for legacy in sorted(LEGACY.glob("*.py")):
            dest = target / "services" / f"svc{copy}" / legacy.name
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(legacy, dest)
            chosen.append(dest)
            total += legacy.stat().st_size
    return chosen, total


Timing = tuple[float, float]  # (wall seconds, CPU seconds)


def timed(cmd: list[str], cwd: Path) -> tuple[Timing, subprocess.CompletedProcess[str]]:
    """Run ``cmd``; its wall time and the CPU time it and its children used."""
    before = os.times()
    start = time.perf_counter()
    result = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = os.times()
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    return (wall, cpu), result


def best(runs: list[Timing]) -> Timing:
    return min(w for w, _ in runs), min(c for _, c in runs)


def busy_jobs(base: Path, copies: int, repeat: int) -> None:
    """``-j 1`` vs ``-j 2`` when every file is a Kafka program that needs LibCST."""
    print(f"\nbusy corpus: {LEGACY_COUNT * copies} legacy Kafka programs, nothing else")
    for flags in (["--check"], []):
        walls = {}
        for jobs in ("1", "2"):
            runs = []
            for attempt in range(repeat if flags else 1):  # a real run rewrites its corpus
                corpus = base / f"{'check' if flags else 'write'}-{jobs}-{attempt}"
                for copy in range(copies):
                    (corpus / f"svc{copy}").mkdir(parents=True)
                    for legacy in sorted(LEGACY.glob("*.py")):
                        shutil.copyfile(legacy, corpus / f"svc{copy}" / legacy.name)
                cmd = [sys.executable, "-m", "rebalance_cli", "migrate", *flags, "-j", jobs]
                timing, result = timed([*cmd, str(corpus)], ROOT)
                if result.returncode != (1 if flags else 0):
                    print(result.stderr[-2000:], file=sys.stderr)
                    raise SystemExit(f"migrate {flags} -j {jobs} failed")
                runs.append(timing)
            walls[jobs] = best(runs)[0]
        label = "migrate --check" if flags else "migrate (writes)"
        print(f"  {label:<18} wall -j 1 {walls['1']:7.2f} s   -j 2 {walls['2']:7.2f} s   "
              f"speed-up {walls['1'] / walls['2']:.2f}x")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--megabytes", type=float, default=21.0)
    parser.add_argument("--kafka-copies", type=int, default=4)
    parser.add_argument("--skip-libcst-tool", action="store_true")
    parser.add_argument("--busy-copies", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--with-clients", action="store_true")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="migrate-bench-") as tmp:
        corpus = Path(tmp) / "corpus"
        files, size = build_corpus(corpus, args.megabytes, args.kafka_copies, args.with_clients)
        listing = Path(tmp) / "files.txt"
        listing.write_text("\n".join(str(f) for f in files))
        kafka_files = LEGACY_COUNT * args.kafka_copies
        print(f"corpus: {len(files)} files, {size / 1e6:.1f} MB "
              f"({kafka_files} legacy Kafka programs mixed in)")  # fmt: skip

        rows: list[tuple[str, Timing]] = []
        check = [sys.executable, "-m", "rebalance_cli", "check", "--select", "KRB2"]
        runs = []
        for _ in range(args.repeat):
            timing, result = timed([*check, str(corpus)], ROOT)
            if result.returncode not in (0, 1):
                print(result.stderr[-2000:], file=sys.stderr)
                raise SystemExit("check failed")
            runs.append(timing)
        check_time = best(runs)
        migrate = [sys.executable, "-m", "rebalance_cli", "migrate", "--check"]
        for jobs in ("1", "2"):
            runs = []
            for _ in range(args.repeat):
                timing, result = timed([*migrate, "-j", jobs, str(corpus)], ROOT)
                pending = sum(
                    "/services/" in line
                    for line in result.stdout.splitlines()
                    if line.startswith("would migrate ")
                )  # the clients' own files (--with-clients) may add sites: printed below
                if result.returncode != 1 or pending != kafka_files:
                    print(result.stdout[-2000:], result.stderr[-2000:], file=sys.stderr)
                    raise SystemExit(f"migrate --check -j {jobs}: expected {kafka_files} files")
                runs.append(timing)
            print(f"  -j {jobs}: {result.stderr.strip().splitlines()[-1]}")
            for line in result.stdout.splitlines():
                if "/services/" not in line:
                    print(f"    {line}")
            rows.append((f"rebalance-guard migrate --check -j {jobs}", best(runs)))

        timing, result = timed([sys.executable, "-c", PARSE_ALL, str(listing)], ROOT)
        if result.returncode != 0:
            print(result.stderr[-2000:], file=sys.stderr)  # a file LibCST cannot parse
        rows.append(("libcst.parse_module on every file (baseline)", timing))

        if not args.skip_libcst_tool:
            # The command goes first: libcst.tool's first pass would take "-j 1"'s 1 for it.
            tool = [sys.executable, "-m", "libcst.tool", "codemod", "-x",
                    "rebalance_codemods.commands.MigrateRebalanceListeners", "--no-format",
                    "-j", "1", "--unified-diff=1", str(corpus)]  # fmt: skip
            timing, result = timed(tool, ROOT)
            if result.returncode != 0 or result.stdout.count("+++ ") != kafka_files:
                print(result.stdout[-2000:], result.stderr[-2000:], file=sys.stderr)
                raise SystemExit(f"libcst.tool: expected diffs for {kafka_files} files")
            rows.append(("python -m libcst.tool codemod (same codemod) -j 1", timing))

        print()
        width = max(len(name) for name, _ in rows)
        print(f"{'':<{width}}  {'wall s':>8}  {'CPU s':>8}")
        for name, (wall, cpu) in rows:
            print(f"{name:<{width}}  {wall:8.2f}  {cpu:8.2f}")
        (j1_wall, j1_cpu), (j2_wall, _) = rows[0][1], rows[1][1]
        print()
        for name, (wall, cpu) in rows[2:]:
            print(f"{name} / migrate --check -j 1: {wall / j1_wall:6.1f}x wall, "
                  f"{cpu / j1_cpu:6.1f}x CPU")  # fmt: skip
        print(f"speed-up of -j 2 over -j 1 (wall): {j1_wall / j2_wall:.2f}x")
        check_wall, check_cpu = check_time
        print(f"check --select KRB2: {check_wall:.2f} s wall, {check_cpu:.2f} s CPU")
        print(f"migrate --check -j 1 / check: {j1_wall / check_wall:.2f}x wall, "
              f"{j1_cpu / check_cpu:.2f}x CPU (goal: within 1.5x)")  # fmt: skip

        if args.busy_copies:
            busy_jobs(Path(tmp) / "busy", args.busy_copies, args.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
