"""``rebalance-guard`` console script: ``check``, ``migrate`` and ``scan`` subcommands.

Each subcommand's module is imported only when used, so ``check`` never loads libcst
and nothing but ``scan`` loads pyspark.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    usage = "usage: rebalance-guard {check,migrate,scan} ..."
    if not args or args[0] in {"-h", "--help"}:
        print(usage)
        return 0 if args else 2
    command, rest = args[0], args[1:]
    if command == "check":
        from rebalance_lint.check_command import run as run_check

        return run_check(rest)
    if command == "migrate":
        from rebalance_codemods.migrate_command import run as run_migrate

        return run_migrate(rest)
    if command == "scan":
        from rebalance_scan.scan_command import run as run_scan

        return run_scan(rest)
    print(f"rebalance-guard: unknown command {command!r}\n{usage}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
