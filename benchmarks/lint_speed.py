"""How much the KRB rules cost: flake8 with vs without the plugin, rules vs ``ast.parse``, ruff.

Usage::

    python benchmarks/lint_speed.py [--megabytes 21] [--repeat 1] [--jobs 1]

The corpus is real Python from the installed site-packages: every file of the three Kafka
clients plus a deterministic stride over all other packages until ``--megabytes`` is
reached, copied into a temporary directory so every tool sees the same files.

flake8 runs every installed plugin whatever ``--select`` says, so "without the plugin" must
mean "not installed": both flake8 runs go through the same launcher, which for the
"without" run drops the ``rebalance-guard`` distribution from flake8's plugin discovery
(exactly what uninstalling it would do). Results are minima over ``--repeat`` runs, in
wall-clock and CPU seconds (CPU time is far less disturbed when other work shares the
machine); the script prints ratios, never asserts absolute times.
"""

from __future__ import annotations

import argparse
import ast
import gc
import os
import resource
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from rebalance_lint import check_source, mentions_kafka
from rebalance_lint.engine import findings_for_tree
from rebalance_lint.flake8_plugin import RebalanceChecker
from rebalance_lint.source import Parsed, load

CLIENTS = ("kafka", "aiokafka", "confluent_kafka")
MAX_FILE_BYTES = 1_000_000  # generated giants say little about real code

FLAKE8_LAUNCHER = """\
import sys
if sys.argv[1] == "without":
    import flake8.plugins.finder as finder
    found = finder._find_importlib_plugins
    finder._find_importlib_plugins = lambda: (
        p for p in found() if p.package != "rebalance-guard"
    )
from flake8.main.cli import main
sys.exit(main(sys.argv[2:]))
"""


def build_corpus(target: Path, megabytes: float) -> tuple[int, int]:
    """Copy the corpus into ``target``; return (files, bytes)."""
    site = Path(sysconfig.get_paths()["purelib"])
    files = sorted(p for p in site.rglob("*.py") if p.is_file() and "__pycache__" not in p.parts)
    files = [p for p in files if p.stat().st_size <= MAX_FILE_BYTES]
    chosen = [p for p in files if p.relative_to(site).parts[0] in CLIENTS]
    others = [p for p in files if p.relative_to(site).parts[0] not in CLIENTS]
    total = sum(p.stat().st_size for p in chosen)
    budget = megabytes * 1e6
    stride = max(1, int(sum(p.stat().st_size for p in others) // max(budget - total, 1)))
    for offset in range(stride):  # keep taking every stride-th file until the budget is met
        for path in others[offset::stride]:
            if total >= budget:
                break
            if path not in chosen:
                chosen.append(path)
                total += path.stat().st_size
        if total >= budget:
            break
    for path in chosen:
        dest = target / path.relative_to(site)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, dest)
    return len(chosen), total


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """(wall s, CPU s of the child, stdout); CPU time is less disturbed by a busy machine."""
    cpu, start = _child_cpu(), time.perf_counter()
    result = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    wall, cpu = time.perf_counter() - start, _child_cpu() - cpu
    if result.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed ({result.returncode}):\n{result.stderr[-2000:]}")
    return wall, cpu, result.stdout


def flake8_runs(corpus: Path, repeat: int, jobs: int) -> dict[str, tuple[float, float, int]]:
    """Minimum wall and CPU seconds, and KRB lines, for flake8 without and with the plugin."""
    out: dict[str, tuple[float, float, int]] = {}
    for _ in range(repeat):
        for variant in ("without", "with"):  # interleaved, so load changes hit both
            cmd = [sys.executable, "-c", FLAKE8_LAUNCHER, variant, "--isolated"]
            # every KRB code on (KRB2xx is off by default) so the plugin does all its work
            cmd += [f"--jobs={jobs}", "--extend-select=KRB", "--exit-zero", str(corpus)]
            wall, cpu, stdout = timed(cmd)
            krb = sum(" KRB" in line for line in stdout.splitlines())
            best = out.get(variant, (wall, cpu, krb))
            out[variant] = (min(wall, best[0]), min(cpu, best[1]), krb)
    return out


def checker_in_process(corpus: Path) -> float:
    """Seconds the flake8 checker itself spends on the corpus, given flake8's lines and tree."""
    inputs = []
    for path in sorted(corpus.rglob("*.py")):
        loaded = load(path.read_bytes(), str(path))
        if isinstance(loaded, Parsed):
            inputs.append((loaded.text.splitlines(keepends=True), loaded.tree))
    gc.collect()
    start = time.process_time()
    for lines, tree in inputs:
        list(RebalanceChecker(tree, lines).run())
    return time.process_time() - start


def rules_vs_parse(corpus: Path, rounds: int) -> tuple[int, int, float, float, float]:
    """(files, bytes, parse s, check_source s, rules-only s) on the Kafka-mentioning files."""
    heavy = [s for s in (p.read_bytes() for p in sorted(corpus.rglob("*.py"))) if mentions_kafka(s)]
    texts: list[tuple[bytes, str]] = []
    for source in heavy:  # keep the text only: live trees would make every GC pass slower
        loaded = load(source, "<bench>")
        if isinstance(loaded, Parsed):
            texts.append((source, loaded.text))
    clock = time.process_time  # CPU time of this process: other load disturbs it less

    def parse_only() -> float:
        start = clock()
        for _, text in texts:
            ast.parse(text)
        return clock() - start

    def check_all() -> float:
        start = clock()
        for source, _ in texts:
            check_source(source, "<bench>")
        return clock() - start

    def rules_only() -> float:  # what the flake8 plugin adds: rules on a tree it already has
        total = 0.0
        for _, text in texts:
            tree = ast.parse(text)
            start = clock()
            findings_for_tree(tree, text)
            total += clock() - start
        return total

    best = [float("inf")] * 3
    for round_ in range(rounds):
        order = [0, 1, 2] if round_ % 2 == 0 else [2, 1, 0]  # alternate: no order bias
        for index in order:
            gc.collect()
            elapsed = (parse_only, check_all, rules_only)[index]()
            best[index] = min(best[index], elapsed)
    size = sum(len(source) for source, _ in texts)
    return len(texts), size, best[0], best[1], best[2]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=21.0)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1, help="flake8 --jobs")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lint-speed-") as tmp:
        corpus = Path(tmp, "corpus")
        files, size = build_corpus(corpus, args.megabytes)
        print(f"corpus: {files} files, {size / 1e6:.1f} MB of Python from site-packages")
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, repeat={args.repeat}")

        runs = flake8_runs(corpus, args.repeat, args.jobs)
        (wall0, cpu0, krb0), (wall1, cpu1, krb1) = runs["without"], runs["with"]
        j = args.jobs
        print(f"\nflake8 -j{j} without the KRB plugin: {wall0:7.2f} s wall {cpu0:7.2f} s CPU")
        print(f"flake8 -j{j} with the KRB plugin:    {wall1:7.2f} s wall {cpu1:7.2f} s CPU")
        print(f"  ({krb1} KRB lines reported with the plugin, {krb0} without)")
        print(
            f"plugin overhead: {100 * (wall1 - wall0) / wall0:+.1f} % wall, "
            f"{100 * (cpu1 - cpu0) / cpu0:+.1f} % CPU  (goal < 5 %)"
        )
        own = checker_in_process(corpus)
        print(
            f"the checker's own work on the whole corpus, in process: {own:.2f} s "
            f"= {100 * own / cpu0:.2f} % of flake8's CPU time without it"
        )

        n, nbytes, parse, check, rules = rules_vs_parse(corpus, max(7, args.repeat))
        print(f"\nKafka-mentioning files: {n} files, {nbytes / 1e6:.2f} MB (CPU s, best of 7+)")
        print(f"ast.parse alone:                     {parse:6.3f} s")
        print(f"check_source (decode+parse+rules):   {check:6.3f} s = {check / parse:.2f}x parse")
        print(f"rules alone on the parsed tree:      {rules:6.3f} s = {rules / parse:.2f}x parse")
        print(
            f"parse + rules (flake8 path):         = {(parse + rules) / parse:.2f}x parse"
            "  (goal < 1.5x)"
        )

        env = {**os.environ, "RAYON_NUM_THREADS": "1"}
        ruff = [sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache"]
        ruff += ["--select", "E,F,W", "--exit-zero", "--quiet", str(corpus)]
        ruff_wall, _, _ = timed(ruff, env)
        cli = [sys.executable, "-m", "rebalance_cli", "check", str(corpus)]
        cli_wall, _, _ = timed(cli)
        print(f"\nruff check --select E,F,W (1 thread):  {ruff_wall:6.2f} s wall  (reference)")
        print(
            f"rebalance-guard check, whole corpus:   {cli_wall:6.2f} s wall  "
            "(interpreter start included; non-Kafka files skipped by the byte check)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
