"""``rebalance-guard rule KRBnnn``: one rule's page in the terminal, as ``ruff rule`` prints.

The page is exactly the one ``docs/rules/KRBnnn.md`` is generated from
(:func:`rebalance_lint.docs.rule_page`), so the terminal and the docs cannot disagree.
Exit status: 0 printed, 2 unknown code or usage error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from rebalance_lint.docs import rule_page
from rebalance_lint.rule_table import BY_CODE, RULES
from rebalance_lint.rules.rule import Rule


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rebalance-guard rule",
        description="Explain a KRB rule: why it exists, a bad and a good example, the fix.",
    )
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("code", nargs="?", metavar="KRBnnn", help="the rule's code")
    which.add_argument("--all", action="store_true", help="every rule, one page after another")
    return parser


def terminal_page(rule: Rule) -> str:
    """The rule's docs page without the generated-file marker, which means nothing here."""
    return "".join(
        line for line in rule_page(rule).splitlines(keepends=True) if not line.startswith("<!--")
    )


def run(argv: Sequence[str]) -> int:
    try:
        args = _parser().parse_args(list(argv))
    except SystemExit as exc:  # argparse already printed the usage message
        return 0 if exc.code == 0 else 2
    if args.all:
        sys.stdout.write("\n".join(terminal_page(rule) for rule in RULES))
        return 0
    code = args.code.strip().upper()
    rule = BY_CODE.get(code)
    if rule is None:
        sys.stderr.write(
            f"rebalance-guard rule: unknown rule code {args.code!r}; "
            f"known codes: {', '.join(BY_CODE)}\n"
        )
        return 2
    sys.stdout.write(terminal_page(rule))
    return 0
