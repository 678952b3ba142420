"""Generate the README rule table and ``docs/rules/KRBnnn.md`` from the collected rules.

``python -m rebalance_lint.docs --write`` regenerates; ``--check`` (and the test suite)
fails when the committed files drift from the rules in :mod:`rebalance_lint.rules`.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from rebalance_lint.kinds import KINDS
from rebalance_lint.rule_table import RULES
from rebalance_lint.rules.rule import MIGRATE, Rule

README_START = re.compile(r"<!-- rules:start[^>]*-->\n")
README_END = "<!-- rules:end -->"
_FIELD = re.compile(r"\{(\w+)\}")


def message_pattern(rule: Rule) -> str:
    """The message template with its fields shown as ``<field>`` (and the fix, if any)."""
    pattern = _FIELD.sub(r"<\1>", rule.template)
    return f"{pattern} {MIGRATE}" if rule.has_codemod else pattern


def readme_table() -> str:
    """The markdown table that goes between the README markers."""
    rows = [
        "| code | kind | message | fixable |",
        "|---|---|---|---|",
    ]
    for rule in RULES:
        message = "`" + message_pattern(rule).replace("|", "\\|") + "`"
        fixable = "yes (`rebalance-guard migrate`)" if rule.has_codemod else "no"
        rows.append(
            f"| [{rule.code}](docs/rules/{rule.code}.md) | {rule_kinds(rule)} | {message} "
            f"| {fixable} |"
        )
    return "\n".join(rows) + "\n"


def rule_kinds(rule: Rule) -> str:
    """The kinds a rule's findings can have, most urgent first: ``bug, advice``."""
    kinds = {case.kind for case in rule.kinds.values()}
    return ", ".join(kind for kind in KINDS if kind in kinds)


def kinds_section(rule: Rule) -> str:
    """The rule's cases: which kind a finding gets when, and why (the rule table's words)."""
    rows = ["| kind | when | why |", "|---|---|---|"]
    rows.extend(
        f"| {case.kind} | {case.when} | {case.why} |".replace("\n", " ")
        for case in rule.kinds.values()
    )
    return "\n".join(rows) + "\n"


def rule_page(rule: Rule) -> str:
    """One rule's documentation page."""
    default = (
        "off by default in flake8 (`--extend-select=KRB2`), reported by `rebalance-guard check`"
        if rule.is_migration_advice
        else "on by default"
    )
    fixable = "yes: `rebalance-guard migrate`" if rule.has_codemod else "no"
    return (
        f"<!-- generated from the rule in rebalance_lint.rules; do not edit by hand -->\n"
        f"# {rule.code}: {rule.name}\n\n"
        f"Kind: {rule_kinds(rule)} (see below); {default}. Fixable: {fixable}.\n\n"
        f"Message:\n\n```text\n{rule.code} {message_pattern(rule)}\n```\n\n"
        f"## Why\n\n{rule.rationale}\n\n"
        f"## Kind\n\nEach finding is a bug (misbehaves today), a risk (breaks under the "
        f"condition named) or advice (KIP-1306 migration); SARIF, annotations, "
        f"`--fail-on` and the fleet report follow it.\n\n{kinds_section(rule)}\n"
        f"## Bad\n\n{_code_blocks(rule.invalid)}"
        f"## Good\n\n{_code_blocks(rule.valid)}"
        f"## Fix\n\n{rule.fix}\n\n"
        f"Silence one line with `# noqa: {rule.code}` (flake8, `rebalance-guard check` and the "
        f"fleet scan all honour it).\n"
    )


def _code_blocks(examples: tuple[str, ...]) -> str:
    return "".join(f"```python\n{example}```\n\n" for example in examples)


def expected_files(root: Path) -> dict[Path, str]:
    """Every generated file under ``root`` (the repository) and its content."""
    files = {root / "docs" / "rules" / f"{rule.code}.md": rule_page(rule) for rule in RULES}
    readme = root / "README.md"
    files[readme] = with_table(readme.read_text(encoding="utf-8"))
    return files


def with_table(readme: str) -> str:
    """``readme`` with the generated table between its rule markers."""
    start = README_START.search(readme)
    end = readme.find(README_END)
    if start is None or end < start.end():
        raise ValueError("README.md lacks the <!-- rules:start --> ... <!-- rules:end --> markers")
    return readme[: start.end()] + readme_table() + readme[end:]


def drift(root: Path) -> list[Path]:
    """Generated files whose content differs from what the rule table says."""
    return [
        path
        for path, content in expected_files(root).items()
        if not path.exists() or path.read_text(encoding="utf-8") != content
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rebalance_lint.docs")
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="repository root")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true")
    mode.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    if args.check:
        stale = drift(args.root)
        for path in stale:
            print(
                f"{path}: out of date; run python -m rebalance_lint.docs --write", file=sys.stderr
            )
        return 1 if stale else 0
    for path, content in expected_files(args.root).items():
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text(encoding="utf-8") != content:
            path.write_text(content, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
