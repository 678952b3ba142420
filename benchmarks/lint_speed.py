"""How much the KRB rules cost: flake8 with vs without the plugin, rules vs ``ast.parse``, ruff.

Usage::

    python benchmarks/lint_speed.py [--megabytes 21] [--repeat 1] [--jobs 1]

The corpus is real Python from the installed site-packages: every file of the three Kafka
clients plus a deterministic stride over all other packages until ``--megabytes`` is
reached, copied into a temporary directory so every tool sees the same files.

flake8 runs every installed plugin whatever ``--select`` says, so "without the plugin" must
mean "not installed": both flake8 runs go through the same launcher, which for the
"without" run drops the ``rebalance-guard`` distribution from flake8's plugin discovery
(exactly what uninstalling it would do). Results are wall-clock minima over ``--repeat``
runs; the script prints ratios, never asserts absolute times.
"""

from __future__ import annotations

import argparse
import ast
import gc
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from rebalance_lint import check_source, mentions_kafka
from rebalance_lint.engine import findings_for_tree
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


def timed(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, str]:
    start = time.perf_counter()
    result = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    elapsed = time.perf_counter() - start
    if result.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed ({result.returncode}):\n{result.stderr[-2000:]}")
    return elapsed, result.stdout


def flake8_runs(corpus: Path, repeat: int, jobs: int) -> dict[str, tuple[float, int]]:
    """Minimum wall time and KRB line count for flake8 with and without the plugin."""
    out: dict[str, tuple[float, int]] = {}
    for _ in range(repeat):
        for variant in ("without", "with"):
            cmd = [sys.executable, "-c", FLAKE8_LAUNCHER, variant, "--isolated"]
            cmd += [f"--jobs={jobs}", "--exit-zero", str(corpus)]
            elapsed, stdout = timed(cmd)
            krb = sum(" KRB" in line for line in stdout.splitlines())
            best = out.get(variant)
            out[variant] = (min(elapsed, best[0]) if best else elapsed, krb)
    return out


def rules_vs_parse(corpus: Path, repeat: int) -> tuple[int, int, float, float, float]:
    """(files, bytes, parse s, check_source s, rules-only s) on the Kafka-mentioning files."""
    sources = [p.read_bytes() for p in sorted(corpus.rglob("*.py"))]
    heavy = [s for s in sources if mentions_kafka(s)]
    parsed = [load(s, "<bench>") for s in heavy]
    texts = [(s, p.text) for s, p in zip(heavy, parsed, strict=True) if isinstance(p, Parsed)]
    best = [float("inf")] * 3
    clock = time.perf_counter
    for _ in range(max(3, repeat)):
        gc.collect()
        parse = rules = 0.0
        for _, text in texts:  # trees are dropped at once, as in a linter run
            start = clock()
            tree = ast.parse(text)
            parsed_at = clock()
            findings_for_tree(tree, text)
            parse, rules = parse + parsed_at - start, rules + clock() - parsed_at
        start = clock()
        for source, _ in texts:
            check_source(source, "<bench>")
        check = clock() - start
        best = [min(b, t) for b, t in zip(best, (parse, check, rules), strict=True)]
    return len(texts), sum(len(s) for s, _ in texts), best[0], best[1], best[2]


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
        without, with_ = runs["without"][0], runs["with"][0]
        print(f"\nflake8 -j{args.jobs} without the KRB plugin: {without:8.2f} s")
        print(
            f"flake8 -j{args.jobs} with the KRB plugin:    {with_:8.2f} s "
            f"({runs['with'][1]} KRB lines reported; {runs['without'][1]} without)"
        )
        print(f"plugin overhead: {100 * (with_ - without) / without:+.1f} %  (goal < 5 %)")

        n, nbytes, parse, check, rules = rules_vs_parse(corpus, args.repeat)
        print(f"\nKafka-mentioning files: {n} files, {nbytes / 1e6:.2f} MB")
        print(f"ast.parse alone:                      {parse:6.3f} s")
        print(
            f"check_source (decode+parse+rules):    {check:6.3f} s  = {check / parse:.2f}x parse "
            "(goal < 1.5x)"
        )
        print(f"rules on an existing tree (flake8):   {rules:6.3f} s  = {rules / parse:.2f}x parse")

        env = {**os.environ, "RAYON_NUM_THREADS": "1"}
        ruff = [sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache"]
        ruff += ["--select", "E,F,W", "--exit-zero", "--quiet", str(corpus)]
        ruff_1, _ = timed(ruff, env)
        cli, _ = timed([sys.executable, "-m", "rebalance_lint.cli", "check", str(corpus)])
        print(f"\nruff check --select E,F,W (1 thread): {ruff_1:6.2f} s  (reference)")
        print(
            f"rebalance-guard check (whole corpus):  {cli:6.2f} s  "
            "(byte check skips non-Kafka files)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
