"""Shape: ``class L(ConsumerRebalanceListener):  # type: ignore[misc]`` (development 044, 065).

kafka-python and aiokafka ship no type information, so under ``mypy --strict`` a class
deriving from their listener base is "Class cannot subclass ... (has type Any)", a ``misc``
error that typed code silences on the class line. The migration rebases the class on
rebalance_guard's typed ``RebalanceListener``: that error is gone, and the comment left
behind is an error of its own (``unused-ignore``, strict's ``warn_unused_ignores``). So where
the class has that one base and its one-line header ends in exactly that comment, the comment
goes with the old base. Any other comment, code list or header layout stays as written.
"""

from __future__ import annotations

import ast
import re

from rebalance_lint.analysis.migration_facts import FileFacts
from rebalance_lint.analysis.shape import Shape

#: the comment mypy users write for an Any base, and nothing else
_ANY_BASE_IGNORE = re.compile(r"#\s*type:\s*ignore\[misc\]\s*")


def any_base_ignore(cls: ast.ClassDef, facts: FileFacts) -> str | None:
    """The header's ``# type: ignore[misc]`` comment that the rebase makes unused, or None."""
    if len(cls.bases) != 1 or cls.keywords or cls.body[0].lineno == cls.lineno:
        return None
    base = cls.bases[0]
    if base.lineno != cls.lineno or base.end_lineno != cls.lineno:
        return None
    line = facts.lines[cls.lineno - 1].encode()
    rest = line[base.end_col_offset or 0 :].decode(errors="replace")
    header = re.fullmatch(r"\s*\)\s*:\s*(#.*)", rest)
    if header is None or not _ANY_BASE_IGNORE.fullmatch(header.group(1)):
        return None
    return header.group(1)


SHAPE = Shape(
    name="untyped base ignores",
    planner="listeners",
    recognises=(
        "a rebased listener class whose one-line header ends in # type: ignore[misc], the "
        "comment silencing mypy's Any base"
    ),
    plan="drop_header_comment (that comment) beside rename_base",
    fixtures=(
        "tests/codemods/test_untyped_base_ignores.py",
        "tests/codemods/fixtures/untyped_base_ignore.py",
    ),
)
