"""The ``rebalance-guard`` console script: ``check``, ``rule``, ``migrate`` and ``scan``.

It lives in a package of its own that no other package imports, so the package graph runs
one way (stubs <- lint <- codemods <- scan <- this). Each subcommand's module is imported
only when used: ``check`` never loads libcst and nothing but ``scan`` loads pyspark.

``pip install rebalance-guard`` brings no third-party dependency (production consumers
install it for the views); LibCST comes with the ``codemods`` extra. What rewrites code
(``migrate``, ``check --fix``, ``scan --diffs``) says which extra to install when it is missing.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rebalance_lint.check_command import ApplyFixes

USAGE = "usage: rebalance-guard {check,rule,migrate,scan} ..."

#: What installs LibCST, which every command that rewrites code needs.
CODEMODS_EXTRA = "rebalance-guard[codemods]"
#: The commands that rewrite code, with the option that makes them do it ("": always).
REWRITING = {"migrate": "", "check": "--fix", "scan": "--diffs"}


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in {"-h", "--help"}:
        print(USAGE)
        return 0 if args else 2
    command, rest = args[0], args[1:]
    option = REWRITING.get(command)
    if option is not None and (not option or option in rest) and _no_libcst():
        print(
            f"rebalance-guard {command}{' ' + option if option else ''} rewrites code with "
            f"LibCST, which is not installed: "
            f"pip install '{CODEMODS_EXTRA}' (check without --fix and the flake8 plugin work "
            f"without it)",
            file=sys.stderr,
        )
        return 2
    if command == "check":
        from rebalance_lint.check_command import run as run_check

        return run_check(rest, fixer=_fixer)
    if command == "rule":
        from rebalance_lint.rule_command import run as run_rule

        return run_rule(rest)
    if command == "migrate":
        from rebalance_codemods.migrate_command import run as run_migrate

        return run_migrate(rest)
    if command == "scan":
        from rebalance_scan.scan_command import run as run_scan

        return run_scan(rest)
    print(f"rebalance-guard: unknown command {command!r}\n{USAGE}", file=sys.stderr)
    return 2


def _no_libcst() -> bool:
    return importlib.util.find_spec("libcst") is None


def _fixer() -> ApplyFixes:
    """What ``check --fix`` applies fixes with (LibCST, loaded only then)."""
    from rebalance_codemods.fixing import apply_fixes

    return apply_fixes
