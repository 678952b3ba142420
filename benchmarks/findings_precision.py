"""Every KRB1xx finding on real code, listed for reading by hand (issue 24: precision).

Usage: ``python benchmarks/findings_precision.py [--context N] [--only CODE] [CORPUS...]``

A corpus is a directory whose subdirectories are repositories (``benchmarks/.app-corpus``,
``benchmarks/.app-corpus-holdout``, ``benchmarks/.pypi-corpus/src``, ``examples/fleet``) or a
directory checked as one repository (``examples/legacy``); each repository is checked as
``rebalance-guard check DIR`` checks it (:func:`rebalance_lint.check_repository`, listeners and
helpers resolved across its modules, ``# noqa`` honoured). Without arguments: the two
application samples, the PyPI corpus and the examples, each skipped with a line when its
folder is missing (the samples are git-ignored: ``benchmarks/app_sample/README.md`` says how
to rebuild them; ``benchmarks/pypi_corpus.py`` downloads the PyPI corpus).

Each finding prints as ``corpus/repository/path:line: CODE kind message`` followed by the
lines around it (``--context``, default 3), so a reviewer can judge it where it stands:
true bug, true risk, true advice, or false. The last lines count findings per code and kind
per corpus. The verdicts are recorded in ``benchmarks/RESULTS.md`` ("Findings precision").
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
#: (name shown, directory, whether each subdirectory is a repository)
DEFAULT_CORPORA = (
    ("app-development", HERE / ".app-corpus", True),
    ("app-held-out", HERE / ".app-corpus-holdout", True),
    ("pypi", HERE / ".pypi-corpus" / "src", True),
    ("examples-fleet", ROOT / "examples" / "fleet", True),
    ("examples-legacy", ROOT / "examples" / "legacy", False),
)


@dataclass(frozen=True)
class Listed:
    corpus: str
    path: Path  # the file, under its corpus
    shown: str  # corpus/repository/path
    line: int
    col: int
    code: str
    kind: str
    message: str


def _repositories(directory: Path, each: bool) -> list[Path]:
    if not each:
        return [directory]
    return sorted(p for p in directory.iterdir() if p.is_dir() and not p.name.startswith("."))


def findings(corpus: str, directory: Path, each: bool, only: str) -> list[Listed]:
    """Every KRB1xx finding (``only``: codes starting so) of the corpus, in path order."""
    from rebalance_lint.check_command import check_directory

    out: list[Listed] = []
    for repository in _repositories(directory, each):
        for path, report in check_directory(repository):
            for finding in getattr(report, "findings", ()):
                if finding.code.startswith(only):
                    shown = f"{corpus}/{path.relative_to(directory)}"
                    out.append(
                        Listed(corpus, path, shown, finding.line, finding.col, finding.code,
                               str(finding.kind), finding.message)
                    )  # fmt: skip
    return out


def excerpt(path: Path, line: int, context: int) -> str:
    """The lines around ``line``, numbered, the finding's own marked with ``>``."""
    lines = path.read_bytes().decode("utf-8", "replace").splitlines()
    first, last = max(1, line - context), min(len(lines), line + context)
    return "\n".join(
        f"{'>' if n == line else ' '}{n:5} | {lines[n - 1]}" for n in range(first, last + 1)
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpora", nargs="*", type=Path, metavar="CORPUS",
                        help="directories whose subdirectories are repositories")  # fmt: skip
    parser.add_argument("--context", type=int, default=3, help="lines shown around each")
    parser.add_argument("--only", default="KRB1", help="code prefix (default KRB1)")
    args = parser.parse_args(argv)
    corpora = [(p.name, p, True) for p in args.corpora] if args.corpora else list(DEFAULT_CORPORA)
    totals: dict[str, Counter[tuple[str, str]]] = {}
    for name, directory, each in corpora:
        if not directory.is_dir():
            print(f"# {name}: {directory} is missing, skipped")
            continue
        listed = findings(name, directory, each, args.only.upper())
        totals[name] = Counter((f.code, f.kind) for f in listed)
        for f in listed:
            print(f"{f.shown}:{f.line}:{f.col + 1}: {f.code} {f.kind} {f.message}")
            if args.context >= 0:
                print(excerpt(f.path, f.line, args.context))
                print()
    print("# findings per corpus, code and kind")
    for name, counts in totals.items():
        parts = ", ".join(f"{code} {kind} {n}" for (code, kind), n in sorted(counts.items()))
        print(f"# {name}: {sum(counts.values())} ({parts or 'none'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
