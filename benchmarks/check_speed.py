"""``rebalance-guard check`` against ruff on a Kafka-dense fleet of repositories (issue 26).

Usage::

    python benchmarks/check_speed.py [--tree DIR] [--repos 86] [--megabytes 100]
        [--kafka-share 0.25] [--repeat 3] [--jobs N] [--no-mono]

The tree (built once, deterministically, when ``DIR`` does not exist yet) is
:func:`synthetic_fleet.write_fleet`'s: ``--repos`` repositories filled with real
site-packages files up to ``--megabytes``, then given generated listener modules (the shapes
of REAL_WORLD.md) until ``--kafka-share`` of all files mention Kafka (the byte check
``check`` itself uses), as dense as the 86 public repositories of issue 26.

Each round runs, side by side, under ``/usr/bin/time -v``:

* ``rebalance-guard check REPO...`` cold (an empty cache directory, set through
  ``REBALANCE_GUARD_CACHE_DIR``), each repository given as one argument (one repository
  each, as in CI);
* the same command again, nothing changed (the cache warm);
* ``ruff check --no-cache --select E,F,W REPO...`` on the same arguments;
* ``rebalance-guard check --no-cache TREE``: the whole tree as ONE argument (a directory of
  repositories, each of which has a ``pyproject.toml`` as real ones do), whose output must be
  the per-repository run's, byte for byte;
* ``rebalance-guard check --no-cache MONO`` (unless ``--no-mono``): a copy of the tree made
  ONE repository (``MONO/pyproject.toml``, the repositories under ``MONO/src`` without their
  markers or ``.git``; built once next to the tree), whose peak memory is that of the
  largest repository a worker can get (issue 26 item 3).

It prints each command's wall time, CPU time (user + system, its worker processes included:
steadier than wall time on a shared machine) and the largest process's peak memory
(``Maximum resident set size``: the largest of the command and the worker processes it waited
for),
the medians over ``--repeat`` rounds, the ratios cold/ruff and warm/cold (of the medians, and
each round's own with their median), the load average,
and checks that the cold and warm runs printed the same findings.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic_fleet import SHAPES, listener_module, write_fleet

BIN = Path(sys.executable).parent
DEFAULT_TREE = Path(tempfile.gettempdir()) / "rebalance-guard-check-fleet"
KAFKA_MARKERS = (b"kafka", b"Kafka", b"KAFKA")


@dataclass(frozen=True)
class Run:
    wall: float
    cpu: float
    peak_mb: float
    stdout: bytes


def mark_repositories(tree: Path) -> None:
    """Give each repository of the tree the ``pyproject.toml`` a real one has (trees built
    before this had none): what makes ``check TREE`` check them as separate repositories."""
    for repository in sorted(p for p in tree.iterdir() if p.is_dir()):
        marker = repository / "pyproject.toml"
        if not marker.exists():
            marker.write_text(f'[project]\nname = "{repository.name}"\n', "utf-8")


def build_mono(tree: Path) -> Path:
    """The tree as one repository (see the module docstring), built once."""
    mono = tree.with_name(tree.name + "-mono")
    if not mono.exists():
        building = mono.with_name(mono.name + ".tmp")
        shutil.rmtree(building, ignore_errors=True)
        shutil.copytree(tree, building / "src", symlinks=True)
        markers = {"pyproject.toml", "setup.py", "setup.cfg", ".git"}
        for repository in (building / "src").iterdir():
            for marker in (repository / name for name in markers):
                if marker.is_dir():
                    shutil.rmtree(marker)
                elif marker.exists():
                    marker.unlink()
        (building / "pyproject.toml").write_text('[project]\nname = "mono"\n', "utf-8")
        building.rename(mono)
    return mono


def build_tree(tree: Path, repos: int, megabytes: float, kafka_share: float) -> None:
    """The fleet, then listener modules until ``kafka_share`` of the files mention Kafka."""
    size = write_fleet(tree, repos, megabytes)
    files = [p for p in tree.rglob("*.py")]
    kafka = sum(1 for p in files if any(m in p.read_bytes() for m in KAFKA_MARKERS))
    # adding n Kafka files: (kafka + n) / (total + n) = share
    missing = max(0, int((kafka_share * len(files) - kafka) / (1 - kafka_share)) + 1)
    rng = random.Random(26)
    shapes = sorted(SHAPES)
    repositories = sorted(p for p in tree.iterdir() if p.is_dir())
    for index in range(missing):
        package = repositories[index % len(repositories)] / "src" / "service"
        chosen = rng.choices(shapes, k=rng.choice((1, 2, 3)))
        (package / f"dense_{index}.py").write_text(listener_module(chosen), "utf-8")
    print(f"built {tree}: {size.repos} repositories, {len(files) + missing} files, "
          f"{kafka + missing} mentioning Kafka")  # fmt: skip


def timed(command: list[str], env: dict[str, str]) -> Run:
    done = subprocess.run(
        ["/usr/bin/time", "-v", *command], capture_output=True, env=env, check=False
    )
    report = done.stderr.decode(errors="replace")
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", report)
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", report)
    cpu = sum(
        float(m.group(1)) for m in re.finditer(r"(?:User|System) time \(seconds\): (\S+)", report)
    )
    if wall is None or peak is None or done.returncode not in {0, 1}:
        raise SystemExit(f"{command[0]} failed ({done.returncode}):\n{report[-3000:]}")
    seconds = 0.0
    for part in wall.group(1).split(":"):
        seconds = seconds * 60 + float(part)
    return Run(seconds, cpu, int(peak.group(1)) / 1024, done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, default=DEFAULT_TREE)
    parser.add_argument("--repos", type=int, default=86)
    parser.add_argument("--megabytes", type=float, default=100.0)
    parser.add_argument("--kafka-share", type=float, default=0.25)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=None, help="check -j (default: its own)")
    parser.add_argument("--no-mono", action="store_true", help="skip the one-repository run")
    args = parser.parse_args()
    if not args.tree.exists():
        build_tree(args.tree, args.repos, args.megabytes, args.kafka_share)
    mark_repositories(args.tree)
    repositories = sorted(str(p) for p in args.tree.iterdir() if p.is_dir())
    jobs = [] if args.jobs is None else ["-j", str(args.jobs)]
    check = [str(BIN / "rebalance-guard"), "check", "--output-format", "json", *jobs]
    ruff = [str(BIN / "ruff"), "check", "--no-cache", "--select", "E,F,W", "--exit-zero"]
    print(f"load average before: {os.getloadavg()}, {os.cpu_count()} CPUs")
    whole = [*check[:2], "--no-cache", *check[2:], str(args.tree)]
    rounds: dict[str, list[Run]] = {
        "check cold": [],
        "check warm": [],
        "ruff": [],
        "check TREE": [],
    }
    mono = None if args.no_mono else [*whole[:-1], str(build_mono(args.tree))]
    if mono is not None:
        rounds["check MONO"] = []
    for _ in range(args.repeat):
        cache = Path(tempfile.mkdtemp(prefix="rebalance-guard-bench-cache-"))
        env = {**os.environ, "REBALANCE_GUARD_CACHE_DIR": str(cache)}
        try:
            cold = timed([*check, *repositories], env)
            warm = timed([*check, *repositories], env)
        finally:
            shutil.rmtree(cache)
        if cold.stdout != warm.stdout:
            raise SystemExit("the warm run printed other findings than the cold run")
        rounds["check cold"].append(cold)
        rounds["check warm"].append(warm)
        rounds["ruff"].append(timed([*ruff, *repositories], dict(os.environ)))
        one = timed(whole, dict(os.environ))
        if one.stdout != cold.stdout:
            raise SystemExit("check TREE printed other findings than check REPO...")
        rounds["check TREE"].append(one)
        if mono is not None:
            rounds["check MONO"].append(timed(mono, dict(os.environ)))
    print(f"load average after: {os.getloadavg()}")
    median = {name: statistics.median(r.wall for r in runs) for name, runs in rounds.items()}
    cpu = {name: statistics.median(r.cpu for r in runs) for name, runs in rounds.items()}
    for name, runs in rounds.items():
        walls = ", ".join(f"{r.wall:.2f}" for r in runs)
        peaks = ", ".join(f"{r.peak_mb:.0f}" for r in runs)
        print(f"{name:11} wall s: {walls} (median {median[name]:.2f}); "
              f"CPU s (median): {cpu[name]:.2f}; peak MB: {peaks}")  # fmt: skip
    ratios = {"cold check / ruff": ("check cold", "ruff"),
              "warm check / cold check": ("check warm", "check cold"),
              "check TREE / ruff": ("check TREE", "ruff")}  # fmt: skip
    for label, (a, b) in ratios.items():
        # each round's pair ran within seconds: their ratio drifts less with the load
        paired = [x.wall / y.wall for x, y in zip(rounds[a], rounds[b], strict=True)]
        print(f"{label}: {median[a] / median[b]:.2f}x wall, {cpu[a] / cpu[b]:.2f}x CPU; "
              f"per round {', '.join(f'{r:.2f}' for r in paired)} "
              f"(median {statistics.median(paired):.2f}x wall)")  # fmt: skip


if __name__ == "__main__":
    main()
