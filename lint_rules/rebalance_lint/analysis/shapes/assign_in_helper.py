"""Shape: the assign of ``on_assign`` in a helper it ends with (REAL_WORLD.md: assign to set
starting offsets), a method of the same class or a function of the file::

    def _on_assign(self, consumer, partitions):
        self.logger().info("Assignment: %s", partitions)
        self._reset_offset(consumer, partitions)

    def _reset_offset(self, consumer, partitions):
        for p in partitions:
            p.offset = OFFSET_END
        consumer.assign(partitions)

and ``on_assign=lambda c, p: reset(c, p, args.replay)`` with ``def reset(consumer,
partitions, replay)`` ending in ``consumer.assign(partitions)``. The helper's assign becomes
the seek loop the callback's own would (``for partition in partitions:
consumer.seek(partition)``) and the helper takes the view, as :mod:`.helpers_take_view`'s do.

Why the migrated callback starts where the original does: the helper is called as the
callback's last statement with the callback's own consumer and partitions (the same names,
each passed once, the list left as given), and its assign, on that consumer, of that list, is
its own last statement. So the helper's assign is the last thing the callback does, exactly
as if it were written at the end of the callback, where :func:`.assign_release._plan_final`
already turns it into a seek per partition that the view stages into the assignment the
adapter makes after the callback (proven on the broker by
tests/integration/test_confluent_kafka_assign_in_helper.py). Everything the helper does
before is held to what a helper taking the view may do (:func:`.helpers_take_view.
helper_refusal`, with that one assign allowed), the assign to what ``_plan_final`` accepts in
a callback (the list itself, its items at offsets, what ``committed``/``offsets_for_times``
answered), and an unawaited coroutine to :func:`.unawaited_consumer_calls.dropped_coroutine`.
The helper must be used nowhere else: it would then seek on a consumer that is not the view.

Anything else keeps the refusal, with its next step: the helper also used elsewhere, given
other partitions (or the list changed), not the callback's last statement, its assign not its
own last statement, the consumer passed twice, the helper's parameters in another order. A
helper reached through another object, imported, or assigning in a revocation stays
:mod:`.helpers_take_view`'s refusal; a def registered for two roles :mod:`.two_roles`'."""

from __future__ import annotations

import ast
from collections.abc import Callable

from rebalance_guard._client_facts import ClientFacts

from rebalance_lint.analysis.collect import FunctionNode
from rebalance_lint.analysis.confluent_callback import _ASSIGNS, _Callback
from rebalance_lint.analysis.edits import MigrationPlan
from rebalance_lint.analysis.migration_facts import FileFacts
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.annotated_helpers import Widen
from rebalance_lint.analysis.shapes.assign_at_times import changes_list
from rebalance_lint.analysis.shapes.assign_release import _plan_final, _tail_statement, at_line
from rebalance_lint.analysis.shapes.helpers_take_view import (
    ViewCalls,
    _helper_called,
    _parameter,
    helper_refusal,
)
from rebalance_lint.analysis.shapes.unawaited_consumer_calls import dropped_coroutine


def helper_assigns(use: ast.AST, facts: FileFacts) -> list[ast.Call]:
    """The ``assign``/``incremental_assign`` calls made on the consumer ``use`` is handed to
    as an argument of a helper of this file (a function, or a method of the calling class);
    empty when ``use`` is not such an argument or the helper assigns nothing through it."""
    found = _called(use, facts)
    if found is None:
        return []
    param = found[2]
    refs = facts.bindings.references(param, param.arg) or []
    assigns = []
    for ref in refs:
        method = facts.parent(ref)
        call = facts.parent(method) if method is not None else None
        if (
            isinstance(method, ast.Attribute)
            and method.value is ref
            and method.attr in _ASSIGNS
            and isinstance(call, ast.Call)
            and call.func is method
        ):
            assigns.append(call)
    return sorted(assigns, key=lambda c: (c.lineno, c.col_offset))


def plan_assign_in_helper(
    callback: _Callback,
    use: ast.AST,
    client: ClientFacts,
    calls: ViewCalls,
    widen: Widen,
    facts: FileFacts,
    plan: MigrationPlan,
) -> str | None:
    """Stage the seek loop replacing the assign of the helper ``use`` (the callback's consumer
    parameter) is handed to, the helper then taking the view; or why not, as the tail of a
    refusal (``passes it to f(), which ...; <next step>``); "" when this is not the shape
    (no helper of the file assigning through it, or not ``on_assign``): then
    :func:`.helpers_take_view.helper_refusal` decides."""
    assigns = helper_assigns(use, facts)
    found = _called(use, facts)
    params = callback.function.args.args
    consumer = facts.bindings.binding(use) if isinstance(use, ast.Name) else None
    if (
        not assigns
        or found is None
        or callback.keyword != "on_assign"
        or not (isinstance(consumer, ast.arg) and consumer in params[:-1])
    ):
        return ""
    call, helper, param = found
    name = f"{ast.unparse(call.func)}()"
    first = assigns[0]
    does = f"passes it to {name}, which calls {param.arg}.{_attr(first)}() (line {first.lineno})"
    why = _passed_through(callback, call, use, helper, param, facts)
    if why is not None:
        return f"{does} {why}"
    others = _other_uses(helper, call, facts)
    if others:
        line = getattr(others[0], "lineno", 0)
        return (
            f"{does} and is also used on line {line}, where it gets no view (its assign "
            "would become seeks there too); give the callback a helper of its own (or call "
            f"{name} from this callback alone), then run migrate again"
        )

    def lenient(home: FileFacts) -> Callable[[ast.Call, str], bool]:
        ok = calls(home)  # what any helper may call on the view, and these assigns
        return lambda c, method: any(c is a for a in assigns) or ok(c, method)

    why = helper_refusal(use, facts, lenient, widen)
    if why:
        return why
    partitions = _partitions_param(helper, param)
    changed = changes_list(partitions, helper, facts)
    if changed is not None:
        return (
            f"{does}, and changes or aliases its {partitions.arg} list (line {changed}), "
            "which the adapter assigns after the callback as it was given; leave the list "
            "as it is, or migrate it by hand"
        )
    for assign in assigns:
        attr = _attr(assign)
        if _tail_statement(assign, helper, facts, last=True) is None:
            return (
                f"passes it to {name}, which calls {param.arg}.{attr}() (line {assign.lineno}) "
                f"other than as its last statement; make that call the last thing {name} does "
                "(nothing after it), then run migrate again"
            )
        dropped = dropped_coroutine(assign, attr, client, facts)
        if dropped is not None:
            return f"passes it to {name}, which {dropped}"
        method = isinstance(facts.parent(helper), ast.ClassDef)
        inner = _Callback("on_assign", helper, method=method)
        why = _plan_final(inner, assign, attr, partitions.arg, facts, plan)
        if why is not None:
            return f"passes it to {name}, where {at_line(why, assign.lineno)}"
    return None


def _called(use: ast.AST, facts: FileFacts) -> tuple[ast.Call, FunctionNode, ast.arg] | None:
    """The call ``use`` is an argument of, the helper of this file it calls, and the
    helper's parameter ``use`` binds."""
    parent = facts.parent(use)
    keyword = parent.arg if isinstance(parent, ast.keyword) else None
    if isinstance(parent, ast.keyword):
        parent = facts.parent(parent)
    if not isinstance(parent, ast.Call) or parent.func is use:
        return None
    found = _helper_called(parent.func, facts)
    if found is None or found[0] is not facts:
        return None  # another module's: helper_refusal says what to do
    helper = found[1]
    method = isinstance(facts.parent(helper), ast.ClassDef)
    param = _parameter(helper, method, parent, use, keyword)
    return None if param is None else (parent, helper, param)


def _passed_through(
    callback: _Callback,
    call: ast.Call,
    use: ast.AST,
    helper: FunctionNode,
    param: ast.arg,
    facts: FileFacts,
) -> str | None:
    """Why the helper ``call`` is not the callback's last statement handing on its own
    consumer and partitions, each once, to the helper's consumer parameter and the one right
    after it, the list as the callback got it (None when it is)."""
    function = callback.function
    label = callback.label
    name = f"{ast.unparse(call.func)}()"
    if isinstance(function, ast.Lambda):
        last = function.body is call
    else:
        last = _tail_statement(call, function, facts, last=True) is not None
    if not last:
        return (
            f"but that call is not the last statement of {label}; make it the callback's "
            "last statement (the seeks it becomes must end the callback: the adapter assigns "
            "once it returns), then run migrate again"
        )
    consumer = facts.bindings.binding(use) if isinstance(use, ast.Name) else None
    params = function.args.args
    assert isinstance(consumer, ast.arg) and consumer in params[:-1]  # plan_assign_in_helper
    partitions = params[params.index(consumer) + 1]
    given = [*call.args, *(k.value for k in call.keywords)]
    uses = [a for a in given if _binds(a, consumer, facts) and a is not use]
    if uses:
        return (
            f"and {label} passes its consumer to it more than once; pass it once, then run "
            "migrate again"
        )
    handed = [a for a in given if _binds(a, partitions, facts)]
    if len(handed) != 1:
        shown = ", ".join(ast.unparse(a) for a in given)
        return (
            f"and {label} calls it as {ast.unparse(call.func)}({shown}), not with its own "
            f"{partitions.arg} once, but the adapter assigns all of them after the callback, "
            f"whatever {name} assigns; pass {partitions.arg} itself, or migrate it by hand"
        )
    if _bound_by(handed[0], call, helper, facts) is not _partitions_param(helper, param):
        return (
            f"and takes {label}'s {partitions.arg} other than as its parameter right after "
            f"{param.arg}; make {name} take them in that order, then run migrate again"
        )
    if not isinstance(function, ast.Lambda):
        changed = changes_list(partitions, function, facts)
        if changed is not None:
            return (
                f"and {label} changes or aliases its {partitions.arg} list first (line "
                f"{changed}), which the adapter assigns after the callback as it was given; "
                "leave the list as it is, or migrate it by hand"
            )
    return None


def _binds(arg: ast.expr, param: ast.arg, facts: FileFacts) -> bool:
    """Whether ``arg`` is the name ``param`` binds."""
    return isinstance(arg, ast.Name) and facts.bindings.binding(arg) is param


def _partitions_param(helper: FunctionNode, consumer: ast.arg) -> ast.arg:
    """The helper's parameter right after its consumer parameter (itself when none)."""
    params = [*helper.args.posonlyargs, *helper.args.args]
    index = next((i for i, p in enumerate(params) if p is consumer), len(params))
    return params[index + 1] if index + 1 < len(params) else consumer


def _bound_by(
    arg: ast.expr, call: ast.Call, helper: FunctionNode, facts: FileFacts
) -> ast.arg | None:
    """The helper's parameter ``arg``, an argument of ``call``, binds."""
    parent = facts.parent(arg)
    keyword = parent.arg if isinstance(parent, ast.keyword) else None
    method = isinstance(facts.parent(helper), ast.ClassDef)
    return _parameter(helper, method, call, arg, keyword)


def _other_uses(helper: FunctionNode, call: ast.Call, facts: FileFacts) -> list[ast.AST]:
    """Every mention of the helper in the file but the call: its name as bound by the def
    (a function; the def itself when the name is bound twice), or any attribute of that
    name (a method)."""
    found: list[ast.AST]
    if isinstance(facts.parent(helper), ast.ClassDef):
        found = list(facts.index.attributes.get(helper.name, []))
    else:
        refs = facts.bindings.references(helper, helper.name)
        found = list(refs) if refs is not None else [helper]
    return sorted(
        (node for node in found if node is not call.func),
        key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)),
    )


def _attr(call: ast.Call) -> str:
    assert isinstance(call.func, ast.Attribute)
    return call.func.attr


SHAPE = Shape(
    name="assign in a helper",
    planner="confluent",
    recognises=(
        "on_assign ending with a call of a function of the file or a method of its class, "
        "passed its own consumer and partitions, that helper used nowhere else and ending "
        "with consumer.assign/incremental_assign of its partitions (any form assign_release "
        "accepts in a callback)"
    ),
    plan="seek_loop in the helper (assign_release), which then takes the view",
    fixtures=(
        "tests/codemods/test_assign_in_helper.py",
        "tests/codemods/fixtures/assign_in_helper.py",
    ),
)
