"""What repository mode costs: ``check_repository`` vs checking each file on its own.

Usage::

    python benchmarks/repository_speed.py [--megabytes 21] [--repeat 3] [--before TREE]

The corpus is the one ``benchmarks/lint_speed.py`` builds (every file of the three Kafka
clients plus a deterministic stride over the rest of site-packages up to ``--megabytes``).
In process, with every file already read into memory, it times the single-file path
(``check_source`` on each file, what ``rebalance-guard check`` did per file before issue 11)
against ``check_repository`` on all of them at once (one repository: the worst case, every
module can import every other). ``--before TREE`` also times the whole command,
``rebalance-guard check CORPUS``, with the packages of an older checkout (a ``git worktree``)
against this one. Minima over ``--repeat`` runs, wall-clock and CPU seconds; prints ratios.
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lint_speed import build_corpus
from rebalance_lint import check_repository, check_source

ROOT = Path(__file__).resolve().parent.parent


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def in_process(files: dict[str, bytes], repeat: int) -> dict[str, tuple[float, float, int]]:
    """(wall, cpu, findings) minima for each mode."""

    def single() -> int:
        return sum(len(check_source(src, path).findings) for path, src in files.items())

    def repository() -> int:
        return sum(len(r.findings) for r in check_repository(files).values())

    out: dict[str, tuple[float, float, int]] = {}
    for name, run in (("single-file", single), ("repository", repository)):
        best_wall = best_cpu = float("inf")
        count = 0
        for _ in range(repeat):
            gc.collect()
            wall, cpu = time.perf_counter(), _cpu()
            count = run()
            best_wall = min(best_wall, time.perf_counter() - wall)
            best_cpu = min(best_cpu, _cpu() - cpu)
        out[name] = (best_wall, best_cpu, count)
    return out


def command(corpus: Path, tree: Path, repeat: int) -> tuple[float, float]:
    """(wall, cpu) minima of ``rebalance-guard check CORPUS`` with ``tree``'s packages first."""
    paths = [tree / part for part in ("stubs", "lint_rules", "codemods", "pipeline", "cli")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(str(p) for p in paths))
    best_wall = best_cpu = float("inf")
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), _child_cpu()
        subprocess.run(
            [sys.executable, "-m", "rebalance_cli", "check", "--statistics", str(corpus)],
            env=env,
            stdout=subprocess.DEVNULL,
            check=False,
        )
        best_wall = min(best_wall, time.perf_counter() - wall)
        best_cpu = min(best_cpu, _child_cpu() - cpu)
    return best_wall, best_cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=21.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--before", type=Path, help="an older checkout to compare the command with")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "corpus"
        count, size = build_corpus(corpus, args.megabytes)
        print(f"corpus: {count} files, {size / 1e6:.1f} MB")
        files = {
            p.relative_to(corpus).as_posix(): p.read_bytes() for p in sorted(corpus.rglob("*.py"))
        }
        results = in_process(files, args.repeat)
        for name, (wall, cpu, found) in results.items():
            print(f"{name:12s} wall {wall:6.2f} s  cpu {cpu:6.2f} s  findings {found}")
        single, repo = results["single-file"], results["repository"]
        wall_ratio, cpu_ratio = repo[0] / single[0], repo[1] / single[1]
        print(f"repository / single-file: wall {wall_ratio:.2f}x, cpu {cpu_ratio:.2f}x")
        if args.before is not None:
            before = command(corpus, args.before, args.repeat)
            after = command(corpus, ROOT, args.repeat)
            print(f"check CORPUS before: wall {before[0]:6.2f} s  cpu {before[1]:6.2f} s")
            print(f"check CORPUS after:  wall {after[0]:6.2f} s  cpu {after[1]:6.2f} s")
            print(
                f"after / before: wall {after[0] / before[0]:.2f}x, cpu {after[1] / before[1]:.2f}x"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
