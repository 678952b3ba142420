"""Shape: a callback handing its consumer to a helper of the same file whose parameter is
annotated with the client's consumer class (``def commit_all(consumer: Consumer, pending)``),
the helper also called from the poll loop with the real consumer.

The helper gets the view, and its annotation becomes ``Consumer | RebalanceConsumer``: both
callers type-check (mypy --strict, pyright), and each call in the helper must then be valid on
both, which it is when it calls only what the view offers as written (the check that
:mod:`.helpers_take_view` makes of any helper). Only a plain annotation naming the client's
consumer class (``Consumer``, ``confluent_kafka.Consumer``, ``"Consumer"``) in the callback's
own file is widened; a helper in another module, or any other annotation, is refused with the
annotation to write by hand."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from rebalance_lint.analysis.edits import Edit, MigrationPlan, span
from rebalance_lint.analysis.migration_facts import FileFacts, guard_name
from rebalance_lint.analysis.shape import Shape


@dataclass
class Widen:
    """The annotations of helpers' consumer parameters to widen (:func:`stage_widened`).

    ``classes``: the client's consumer classes, qualified (``confluent_kafka.Consumer``)."""

    classes: frozenset[str]
    found: list[ast.expr] = field(default_factory=list)

    def note(self, annotation: ast.expr, home: FileFacts, facts: FileFacts) -> bool:
        """Whether ``annotation`` (of a helper's parameter in the file of ``home``, the
        callback's being ``facts``) can be widened; if so, it is noted."""
        if home is not facts or not names_consumer_class(annotation, facts, self.classes):
            return False
        self.found.append(annotation)
        return True


def names_consumer_class(annotation: ast.expr, facts: FileFacts, classes: frozenset[str]) -> bool:
    """Whether ``annotation`` is exactly a name (or its string) imported as one of
    ``classes``, bound only by imports in the module."""
    target = annotation
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        line = facts.lines[annotation.lineno - 1].encode()
        text = line[annotation.col_offset : annotation.end_col_offset].decode(errors="replace")
        if annotation.end_lineno != annotation.lineno or text not in (
            f'"{annotation.value}"',
            f"'{annotation.value}'",
        ):
            return False  # one plain quoted string: its text goes inside the quotes
        try:
            target = ast.parse(annotation.value.strip(), mode="eval").body
        except SyntaxError:
            return False
    head = target
    while isinstance(head, ast.Attribute):
        head = head.value
    if not isinstance(head, ast.Name) or facts.imports.resolve(target) not in classes:
        return False
    bound = facts.bindings.module.assignments.get(head.id, [])
    return bool(bound) and all(isinstance(node, ast.Import | ast.ImportFrom) for node in bound)


def stage_widened(widen: Widen, guard_module: str, facts: FileFacts, plan: MigrationPlan) -> None:
    """Each noted annotation becomes ``<it> | RebalanceConsumer`` (inside a string one's
    quotes), the protocol imported from ``guard_module``."""
    if not widen.found:
        return
    protocol = guard_name(facts, facts.index.names, guard_module, "RebalanceConsumer", plan)
    for annotation in widen.found:
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            # one plain quoted string (names_consumer_class): the union goes inside the quotes
            line = facts.lines[annotation.lineno - 1].encode()
            quote = line[annotation.col_offset : annotation.col_offset + 1].decode()
            value = f"{quote}{annotation.value} | {protocol}{quote}"
        else:
            value = f"{ast.unparse(annotation)} | {protocol}"
        # two callbacks handing their views to one helper stage the same replacement
        plan.edit(Edit("replace_with_expression", span(annotation), value=value))


SHAPE = Shape(
    name="helpers annotated with the consumer class",
    planner="confluent",
    recognises=(
        "the consumer passed to a def or own method of the file whose parameter is annotated "
        "with the client's consumer class"
    ),
    plan=("replace_with_expression (Consumer -> Consumer | RebalanceConsumer) + its import"),
    fixtures=(
        "tests/codemods/test_annotated_helpers.py",
        "tests/codemods/fixtures/annotated_helpers.py",
    ),
)
