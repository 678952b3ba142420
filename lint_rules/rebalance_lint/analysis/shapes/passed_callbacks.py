"""Shape: the callbacks a helper's callers pass it, where the helper registers them
(:mod:`.callback_parameters`): ``start(consumer, topics, on_assign=rewind)``,
``start(consumer, topics, on_revoke=lambda c, p: c.commit(asynchronous=False))``,
``start(self.consumer, self.topics, self.on_revoke)``.

Each takes the view where it took the consumer: a lambda, a def of this file or a method of
the caller's own class (through its ``self``; no subclass here that may override it) whose
consumer uses the view offers (:mod:`.callback_takes_view`). One passed to the helper only,
in one role, is rewritten like a registered callback: its final assign becomes seeks
(:mod:`.assign_release`), its consumer annotation the view's; one used elsewhere too stays
as it is (unannotated, as in :mod:`.shared_callbacks`). An (un)assign on anything but the
callback's own consumer argument, or in a lambda, is refused: the adapter does it after the
callback.
"""

from __future__ import annotations

import ast

from rebalance_guard._client_facts import ClientFacts

from rebalance_lint.analysis.confluent_callback import (
    _ASSIGNS,
    _UNASSIGNS,
    _Callback,
    _consumer_param,
    _drop_annotation_import,
)
from rebalance_lint.analysis.edits import Edit, MigrationPlan, span
from rebalance_lint.analysis.migration_facts import FileFacts, guard_name, methods_of, self_class
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.callback_takes_view import _check_callback


def check_passed(
    callback: _Callback,
    client: ClientFacts,
    facts: FileFacts,
    taken: set[str],
    plan: MigrationPlan,
    *,
    rewrite: bool,
) -> str | None:
    """Why ``callback`` cannot take the view (None: it can; with ``rewrite``, its edits
    staged)."""
    if isinstance(callback.function, ast.Lambda):
        return _assigns_elsewhere(callback) or _check_callback(
            callback, client, facts, plan, rewrite=False
        )
    return (
        _check_callback(callback, client, facts, plan, rewrite=rewrite)
        or _assigns_elsewhere(callback)
        or _view_annotation(callback, client, facts, taken, plan, rewrite=rewrite)
    )


def callback_of(keyword: str, passed: ast.expr, facts: FileFacts) -> _Callback | str:
    """The callback a caller passes: a lambda, a def of this file, or ``self.method`` of the
    caller's own class (no subclass of it here); else why not (what follows its text)."""
    if isinstance(passed, ast.Lambda):
        return _Callback(keyword, passed)
    bound = facts.bindings.binding(passed) if isinstance(passed, ast.Name) else None
    if isinstance(bound, ast.FunctionDef | ast.AsyncFunctionDef):
        return _Callback(keyword, bound)
    cls = self_class(passed.value, facts) if isinstance(passed, ast.Attribute) else None
    method = methods_of(cls).get(passed.attr) if cls and isinstance(passed, ast.Attribute) else None
    if cls is None or method is None:
        return (
            "a callback the codemod cannot see the definition of; pass a function defined "
            "in this file, a lambda or a method of the caller's class (self.method) there first"
        )
    subclass = next(
        (c for c in ast.walk(facts.tree) if isinstance(c, ast.ClassDef)
         and any(isinstance(b, ast.Name) and b.id == cls.name for b in c.bases)),
        None,
    )  # fmt: skip
    if subclass is not None:
        return (
            f"a method that class {subclass.name} (line {subclass.lineno}) may override; "
            "the codemod cannot know which one runs; pass a function defined in this file "
            "there first"
        )
    if method.decorator_list:
        return (
            "a decorated method, which the codemod cannot follow; pass an undecorated "
            "function defined in this file there first"
        )
    return _Callback(keyword, method, method=True)


def only_passed(callback: _Callback, arguments: list[ast.expr], facts: FileFacts) -> bool:
    """Whether the def is used only as one of ``arguments`` (what the helper's calls pass for
    one parameter): its body may be rewritten, nothing else calls it with a consumer."""
    function = callback.function
    if isinstance(function, ast.Lambda):
        return False  # a lambda's body stays as it is
    uses: list[ast.Name] | list[ast.Attribute] | None
    if callback.method:
        uses = [
            node
            for node in ast.walk(facts.tree)
            if isinstance(node, ast.Attribute) and node.attr == function.name
        ]
    else:
        uses = facts.bindings.references(function, function.name)
        remote = facts.callers(function) if facts.callers and function in facts.tree.body else []
        if remote:  # called or otherwise used in another module too (repository mode)
            return False
    return uses is not None and all(any(u is a for a in arguments) for u in uses)


def _assigns_elsewhere(callback: _Callback) -> str | None:
    """A lambda stays a lambda: an (un)assign in it cannot become the view's; a def's only
    on its consumer argument (the adapter (un)assigns after the callback: not twice)."""
    function = callback.function
    consumer = None if isinstance(function, ast.Lambda) else _consumer_param(callback).arg
    for node in ast.walk(function):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _ASSIGNS | _UNASSIGNS
        ):
            continue
        receiver = node.func.value
        if consumer is not None and not (
            isinstance(receiver, ast.Name) and receiver.id == consumer
        ):
            return (
                f"{callback.label} calls {ast.unparse(receiver)}.{node.func.attr}() (line "
                f"{node.lineno}), not on its consumer argument, which the adapter does after "
                "the callback; call it on the callback's consumer argument instead "
                f"(consumer.{node.func.attr}(partitions) as its last statement) first"
            )
        if consumer is None:
            return (
                f"{callback.label} calls {node.func.attr}() (line {node.lineno}), which the "
                f"adapter does after the callback; write it as a def {callback.keyword}("
                "consumer, partitions) calling it as its last statement first"
            )
    return None


def _view_annotation(
    callback: _Callback,
    client: ClientFacts,
    facts: FileFacts,
    taken: set[str],
    plan: MigrationPlan,
    *,
    rewrite: bool,
) -> str | None:
    """The def's consumer annotation becomes the view's (when its body may be rewritten)."""
    consumer = _consumer_param(callback)
    if consumer.annotation is None:
        return None
    if not rewrite:
        return (
            f"{callback.label} is used elsewhere too, so it stays as it is and gets the "
            f"view, which its consumer parameter's annotation "
            f"({ast.unparse(consumer.annotation)}) does not accept; drop the annotation or "
            "annotate it with the rebalance_guard RebalanceConsumer first"
        )
    protocol = guard_name(facts, taken, client.guard_module, "RebalanceConsumer", plan)
    plan.edit(Edit("replace_with_name", span(consumer.annotation), value=protocol))
    _drop_annotation_import(consumer, plan)
    return None


SHAPE = Shape(
    name="callbacks passed to a helper that registers them",
    planner="confluent",
    recognises=(
        "what each call of a callback_parameters helper passes: a lambda, a def of this "
        "file, self.method of the caller's class"
    ),
    plan=(
        "the callback takes the view: a def passed only there gets its final assign "
        "rewritten and its consumer annotation replaced (replace_with_name); others stay"
    ),
    fixtures=(
        "tests/codemods/test_callback_parameters.py",
        "tests/codemods/fixtures/callback_parameters.py",
    ),
)
