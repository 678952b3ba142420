"""Shape: a confluent callback chosen at run time among defs of this file (a shape from real
code: ``assign_callback = None``, then ``if start == EARLIEST: assign_callback =
assign_beginning`` / ``elif ...: assign_callback = assign_end``, then
``consumer.subscribe([topic], on_assign=assign_callback)``; or ``on_assign=assign_beginning
if start else assign_end``).

The listener class goes just before the ``subscribe()`` and takes the registered values in its
``__init__`` (``RebalanceCallbacks(assign_callback)``, evaluated where ``subscribe()`` evaluated
them, so it holds the callback chosen at that moment); each method calls its own with the view.
The defs stay where they are and take the view (:mod:`.passed_callbacks`: their final assign
rewritten, a consumer annotation the view's).

Sound where every value the expression can have is seen: its leaves (through conditional
expressions) are names of defs of this file; a variable is local to the function calling
``subscribe()``, bound there only by ``name = <such an expression>``, every binding before the
``subscribe()`` and none in a loop around it, rebound by no nested function (``nonlocal``) and
read only as this argument. Each def is one choice of one role and used nowhere else (it takes
the view); otherwise the registration is refused with the next step.

None is no choice: confluent does not take it as "no callback" (which the adapter would match
by assigning after a method doing nothing). confluent-kafka's ``Consumer.subscribe(on_assign=
None)`` raises ``TypeError: on_assign expects a callable`` (2.16.1, any of the three keywords),
and ``AIOConsumer.subscribe()`` wraps whatever is passed by keyword, so the wrapper calls None
at the rebalance; a migration doing nothing there would turn that error into a working
subscription. Refused, the next step naming a def that assigns the partitions as given.
"""

from __future__ import annotations

import ast

from rebalance_guard._client_facts import CONFLUENT, ClientFacts
from rebalance_guard._client_facts import SUBSCRIBE_CALLBACKS as CONFLUENT_CALLBACKS

from rebalance_lint.analysis.confluent_callback import (
    DEFAULT_DEF,
    Function,
    _Callback,
    _class_names,
    _guard_names,
    _statement_of,
    none_callback_refusal,
)
from rebalance_lint.analysis.edits import Edit, MigrationPlan, span
from rebalance_lint.analysis.migration_expressions import is_none
from rebalance_lint.analysis.migration_facts import FileFacts, guard_name, statement_layout
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.passed_callbacks import check_passed, only_passed

_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def chosen(value: ast.expr, facts: FileFacts) -> bool:
    """Whether ``value`` is this shape's: a conditional expression of names and None, or a
    variable of the function calling ``subscribe()`` bound there more than once, or once to
    None or a conditional expression, one of its bindings naming a def."""
    if isinstance(value, ast.IfExp):
        return all(isinstance(leaf, ast.Name) or is_none(leaf) for leaf in _leaves(value))
    if not isinstance(value, ast.Name):
        return False
    found = facts.bindings.visible(value)
    function = _function_of(value, facts)
    scope = facts.bindings.scope_at.get(value)
    if (
        function is None
        or scope is None
        or scope.node is not function
        or value.id not in scope.assignments
        or value.id in scope.declared_global
    ):
        return False
    if len(found) == 1 and not isinstance(_assigned(found[0], facts), ast.IfExp | ast.Constant):
        return False  # one binding: the variable shapes (callback_variables, lambdas)
    values = [v for v in (_assigned(b, facts) for b in found) if v is not None]
    return any(_def_of(leaf, facts) for v in values for leaf in _leaves(v))


def plan_chosen(
    call: ast.Call,
    present: list[tuple[str, ast.expr]],
    client: ClientFacts,
    facts: FileFacts,
    taken: set[str],
    plan: MigrationPlan,
) -> str | None:
    """Stage the listener taking the chosen callbacks, or say why not."""
    statement = own_statement(call, facts)
    if isinstance(statement, str):
        return statement
    roles: dict[int, tuple[str, Function]] = {}
    choices: list[ast.expr] = []  # every name of a def the registered values may be
    for keyword, value in present:
        leaves = _choices(keyword, value, call, statement, facts)
        if isinstance(leaves, str):
            return leaves
        for leaf in leaves:
            function = _def_of(leaf, facts)
            if function is None:
                continue
            choices.append(leaf)
            other = roles.setdefault(id(function), (keyword, function))[0]
            if other != keyword:
                return (
                    f"{function.name} may be both {other}= and {keyword}=, which it would take "
                    "the view for differently; split it into one def per role first"
                )
    for keyword, function in roles.values():
        callback = _Callback(keyword, function)
        if not only_passed(callback, choices, facts):
            refs = facts.bindings.references(function, function.name) or []
            other_use = next((r for r in refs if not any(r is c for c in choices)), None)
            where = (
                f"at line {other_use.lineno}"
                if other_use is not None
                else "(bound twice, or used in another module)"
            )
            return (
                f"{function.name} is one of the callbacks {keyword}= may be, and is used "
                f"elsewhere too {where}, which would break once it takes the rebalance "
                "view; use it only as that choice first"
            )
        reason = check_passed(callback, client, facts, taken, plan, rewrite=True)
        if reason is not None:
            return reason
    signature = view_callable(client, facts, taken, plan)
    stage(call, statement, present, client, facts, taken, plan, signature)
    return None


def own_statement(
    call: ast.Call, facts: FileFacts, what: str = "the subscribe() choosing its callbacks"
) -> ast.stmt | str:
    """The statement ``[await] c.subscribe(...)`` forms on a line of its own (where the
    listener class can go before it), or why not (``what``: how the refusal names the call)."""
    statement = _statement_of(call, facts)
    if (
        statement is None
        or not isinstance(statement, ast.Expr)
        or not (
            statement.value is call
            or (isinstance(statement.value, ast.Await) and statement.value.value is call)
        )
        or statement_layout(statement, facts) != "own"
    ):
        return (
            f"{what} is not a statement of its own, so the listener class has no place next "
            "to it; put it on a line of its own first"
        )
    return statement


def view_callable(
    client: ClientFacts, facts: FileFacts, taken: set[str], plan: MigrationPlan
) -> str:
    """``Callable[[RebalanceConsumer, list[TopicPartition]], None]`` (``Awaitable[None]`` for
    ``AIOConsumer``): what the listener's ``__init__`` takes, names imported as needed."""
    protocol = _guard_names(facts, taken, client, plan)[1]
    partitions = guard_name(facts, taken, CONFLUENT.package, "TopicPartition", plan)
    callable_ = guard_name(facts, taken, "collections.abc", "Callable", plan)
    returns = "None"
    if client.async_callbacks:
        returns = f"{guard_name(facts, taken, 'collections.abc', 'Awaitable', plan)}[None]"
    return f"{callable_}[[{protocol}, list[{partitions}]], {returns}]"


def stage(
    call: ast.Call,
    statement: ast.stmt,
    present: list[tuple[str, ast.expr]],
    client: ClientFacts,
    facts: FileFacts,
    taken: set[str],
    plan: MigrationPlan,
    signature: str,
) -> None:
    """``forward_listener`` (its ``bound``: an ``__init__`` taking each registered value,
    typed ``signature``) before the statement, and ``resubscribe`` passing the values to it."""
    listener, protocol, subscribe = _guard_names(facts, taken, client, plan)
    partitions = guard_name(facts, taken, CONFLUENT.package, "TopicPartition", plan)
    class_name = next(n for n in _class_names() if n not in taken)
    taken.add(class_name)
    bound = tuple((keyword, signature) for keyword, _ in present)
    plan.edit(
        Edit(
            "forward_listener",
            span(statement),
            value=class_name,
            extra=listener,
            annotation=protocol,
            names=tuple((keyword, CONFLUENT_CALLBACKS[keyword], "self") for keyword, _ in present),
            index=1 if client.async_callbacks else 0,
            other_type=f"list[{partitions}]",
            bound=bound,
        )
    )
    source = "\n".join(facts.lines)
    arguments = ", ".join(ast.get_source_segment(source, v) or ast.unparse(v) for _, v in present)
    plan.edit(Edit("resubscribe", span(call), value=subscribe, extra=f"{class_name}({arguments})"))
    plan.sites += 1
    plan.planned.add(span(call))


def _choices(
    keyword: str, value: ast.expr, call: ast.Call, statement: ast.stmt, facts: FileFacts
) -> list[ast.expr] | str:
    """The leaves of every value ``value`` may have (names of defs), or why not all are
    known."""
    if isinstance(value, ast.Name) and _def_of(value, facts) is None:
        leaves = _variable(keyword, value, call, statement, facts)
        if isinstance(leaves, str):
            return leaves
    else:
        leaves = _leaves(value)
    for leaf in leaves:
        if is_none(leaf):
            return none_callback_refusal(
                keyword,
                f"{keyword}= may be None (line {leaf.lineno})",
                f"choose a def there too ({DEFAULT_DEF.format(keyword=keyword)}), or "
                f"subscribe without {keyword}= in that case",
            )
        if not _def_of(leaf, facts):
            return (
                f"{keyword}= may be {ast.unparse(leaf)} (line {leaf.lineno}), which is not a "
                f"def of this file; make each choice a def {keyword}(consumer, partitions) of "
                "this file first"
            )
    return leaves


def _variable(
    keyword: str, value: ast.Name, call: ast.Call, statement: ast.stmt, facts: FileFacts
) -> list[ast.expr] | str:
    """The leaves of every value the variable ``value`` is bound to, or why they are not
    the values it can have at this ``subscribe()``."""
    name = value.id
    function = _function_of(value, facts)
    assert function is not None  # chosen() said so
    label = f"{keyword}= is the variable {name}"
    for node in ast.walk(function):
        if isinstance(node, ast.Nonlocal) and name in node.names:
            return (
                f"{label}, which a nested function rebinds (nonlocal, line {node.lineno}), so "
                "the codemod cannot see every value it holds at the subscribe(); bind it only "
                "in this function first"
            )
    around: list[ast.AST] = []  # the loops of the function around the subscribe()
    for ancestor in facts.bindings.ancestors(call):
        if ancestor is function:
            break
        if isinstance(ancestor, _LOOPS):
            around.append(ancestor)
    leaves: list[ast.expr] = []
    for binding in facts.bindings.visible(value):
        assigned = _assigned(binding, facts)
        line = getattr(binding, "lineno", value.lineno)
        if assigned is None:
            return (
                f"{label}, bound at line {line} other than by {name} = <a def, or a "
                "conditional expression of defs>; bind it only that way first"
            )
        assert isinstance(binding, ast.Name)  # the target of name = value
        after = (binding.lineno, binding.col_offset) > (statement.lineno, statement.col_offset)
        in_loop = any(loop in facts.bindings.ancestors(binding) for loop in around)
        if after or in_loop:
            where = "after the subscribe()" if after else "in a loop around the subscribe()"
            return (
                f"{label}, bound at line {line} {where}, so the callback registered may not be "
                "the one chosen before it; choose it once, before the subscribe() and outside "
                "any loop around it, first"
            )
        leaves.extend(_leaves(assigned))
        for use in facts.bindings.uses.get(binding, []):
            if use is not value:
                return (
                    f"{label}, also used at line {use.lineno}, where it would name a callback "
                    "taking the rebalance view; use it only as this subscribe()'s argument first"
                )
    return leaves


def _assigned(binding: ast.AST, facts: FileFacts) -> ast.expr | None:
    """The value of ``name = value`` (or ``name: T = value``) binding ``binding``; None for
    any other binding (a loop target, ``with ... as``, ``:=``, unpacking, a def, an import)."""
    parent = facts.parent(binding)
    if isinstance(parent, ast.Assign) and parent.targets == [binding]:
        return parent.value
    if isinstance(parent, ast.AnnAssign) and parent.target is binding:
        return parent.value
    return None


def _leaves(value: ast.expr) -> list[ast.expr]:
    """The values a conditional expression may have (``value`` itself for any other)."""
    if isinstance(value, ast.IfExp):
        return [*_leaves(value.body), *_leaves(value.orelse)]
    return [value]


def _def_of(leaf: ast.expr, facts: FileFacts) -> Function | None:
    bound = facts.bindings.binding(leaf) if isinstance(leaf, ast.Name) else None
    return bound if isinstance(bound, ast.FunctionDef | ast.AsyncFunctionDef) else None


def _function_of(node: ast.AST, facts: FileFacts) -> ast.AST | None:
    """The def whose scope ``node`` is evaluated in (None: a module, class or lambda)."""
    for ancestor in facts.bindings.ancestors(node):
        if isinstance(ancestor, ast.FunctionDef | ast.AsyncFunctionDef):
            return ancestor
        if isinstance(ancestor, ast.Lambda | ast.ClassDef):
            return None
    return None


SHAPE = Shape(
    name="callbacks chosen at run time",
    planner="confluent",
    recognises=(
        "on_assign=/on_revoke=/on_lost= a conditional expression of def names (or None), or "
        "a variable of the calling function bound several times (or once to None or such an "
        "expression), naming defs of this file"
    ),
    plan=(
        "forward_listener with bound (the class's __init__ takes each registered value, its "
        "methods call it with the view) + resubscribe passing them; the defs take the view "
        "(final assign rewritten, consumer annotation the view's); a None choice is refused"
    ),
    fixtures=(
        "tests/codemods/test_chosen_callbacks.py",
        "tests/codemods/fixtures/chosen_callbacks.py",
    ),
)
