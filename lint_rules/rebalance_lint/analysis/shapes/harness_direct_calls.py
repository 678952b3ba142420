"""Shape: a test calling a listener's callbacks itself, with the old arity (REAL_WORLD.md:
``listener = Recording(); listener.on_partitions_assigned([tp])`` in a test module).

Migrated, the callbacks take the view too, and the listener bases never get a one-argument
method. In repository mode (``rebalance-guard migrate DIR``) such a call in another module
goes through the client's listener test harness instead
(``rebalance_guard.testing.<client>.ListenerHarness(listener).assign([tp])``), which runs the
callback once with exactly those partitions and a view that expires when it returns, and
raises what it raised. Only where that is provably the same call:

- the instance is bound once (``listener = Cls(...)``) and used only through attributes; each
  callback call is a statement of its own with one argument, a list, tuple or set display of
  the client's ``TopicPartition(...)`` (or names bound once to one), awaited exactly where the
  client's harness is (aiokafka) and the method is ``async def``;
- the class's callbacks reach no consumer (the harness's view would replace the one the test
  gave) and the constructor keeps its parameters;
- the harness passes a set: a callback uses its partitions only to iterate (one element: no
  order to lose), in ``len()``, ``in``, ``set()``, ``frozenset()``, ``sorted()``.

Anything else stays a refusal, naming the call and what to change.
"""

from __future__ import annotations

import ast

from rebalance_guard._client_facts import CALLBACK_METHODS as CALLBACKS
from rebalance_guard._client_facts import ClientFacts

from rebalance_lint.analysis.confluent_callback import Function
from rebalance_lint.analysis.edits import Edit, MigrationPlan, span
from rebalance_lint.analysis.listener_state import DrivenInstance, RemoteCreation
from rebalance_lint.analysis.migration_facts import FileFacts, guard_name
from rebalance_lint.analysis.shape import Shape

#: the client's listener test harness (by its guard module): module, steps awaited
HARNESSES = {
    "rebalance_guard.kafka_python": ("rebalance_guard.testing.kafka_python", False),
    "rebalance_guard.aiokafka": ("rebalance_guard.testing.aiokafka", True),
}
#: what the harness calls for each callback
STEPS = {
    "on_partitions_assigned": "assign",
    "on_partitions_revoked": "revoke",
    "on_partitions_lost": "lose",
}
_DISPLAYS = (ast.List, ast.Tuple, ast.Set)
#: calls taking the partitions whatever their type or order
_UNORDERED = frozenset({"len", "set", "frozenset", "sorted"})
#: methods taking them as an iterable (``recorded.extend(partitions)``): order visible
_EXTENDING = frozenset({"extend", "update"})


def driven_instance(creation: ast.Call, facts: FileFacts) -> DrivenInstance | None:
    """``creation`` as an instance its module only drives directly, or None."""
    assign = facts.parent(creation)
    if not (
        isinstance(assign, ast.Assign)
        and len(assign.targets) == 1
        and isinstance(assign.targets[0], ast.Name)
        and assign.value is creation
    ):
        return None
    target = assign.targets[0]
    refs = facts.bindings.references(target, target.id)
    if not refs:
        return None
    calls: list[tuple[ast.Call, str]] = []
    awaited: set[bool] = set()
    for ref in refs:
        attribute = facts.parent(ref)
        if not isinstance(attribute, ast.Attribute) or attribute.value is not ref:
            return None  # passed on, stored, compared: the harness cannot vouch for it
        if attribute.attr not in CALLBACKS:
            continue  # the test reads what the listener recorded
        call = facts.parent(attribute)
        if not isinstance(call, ast.Call) or call.func is not attribute:
            return None
        statement = facts.parent(call)
        is_awaited = isinstance(statement, ast.Await)
        if isinstance(statement, ast.Await):
            statement = facts.parent(statement)
        if not _partitions_display(call, facts) or not isinstance(statement, ast.Expr):
            return None
        calls.append((call, attribute.attr))
        awaited.add(is_awaited)
    if not calls or len(awaited) != 1:
        return None

    def plan(module: str) -> MigrationPlan:
        out = MigrationPlan()
        harness = guard_name(facts, facts.index.names, module, "ListenerHarness", out)
        for call, callback in calls:
            out.edit(Edit("drive_harness", span(call), value=harness, extra=STEPS[callback]))
        return out

    return DrivenInstance(tuple(calls), awaited.pop(), plan)


def _partitions_display(call: ast.Call, facts: FileFacts) -> bool:
    """Whether the one argument is a display of the client's TopicPartition(...)s."""
    if len(call.args) != 1 or call.keywords or not isinstance(call.args[0], _DISPLAYS):
        return False
    return all(_topic_partition(e, facts) for e in call.args[0].elts)


def _topic_partition(expr: ast.expr, facts: FileFacts) -> bool:
    if isinstance(expr, ast.Name):
        found = facts.sole_assignment(expr)
        if found is None or facts.bindings.references(found[0], expr.id) is None:
            return False
        expr = found[1]
    return isinstance(expr, ast.Call) and any(
        name.partition(".")[0] in {"kafka", "aiokafka"} and name.endswith(".TopicPartition")
        for name in facts.qualnames(expr.func)
    )


def plan_harness_calls(
    cls_name: str,
    driven: list[RemoteCreation],
    client: ClientFacts,
    callbacks: dict[str, Function],
    class_plan: MigrationPlan,
    facts: FileFacts,
    remote_plans: dict[str, MigrationPlan],
) -> str | None:
    """Why the creations ``driven`` (another module's tests) stop the class's migration, or
    None after staging their calls through the harness in ``remote_plans``."""
    for creation in driven:
        instance = creation.driven
        assert instance is not None
        where = f"{creation.path}:{creation.call.lineno}"
        reached = next(
            (e for e in class_plan.edits if e.action in {"replace_with_name", "drop_param"}), None
        )
        if reached is not None:
            return (
                f"the instance created at {where} is not registered and its callbacks are "
                f"called directly there, but {cls_name}'s callbacks reach a consumer, which "
                "the test harness's view would replace; drive it with "
                f"rebalance_guard.testing ListenerHarness by hand after migrating"
            )
        module, awaited = HARNESSES.get(client.guard_module, ("", not instance.awaited))
        for call, name in instance.calls:
            line = f"{creation.path}:{call.lineno}"
            method = callbacks.get(name)
            if method is None:
                return (
                    f"{name} is called directly at {line}, but {cls_name} does not define it "
                    "(the client's base does, or nothing); define it in the class first"
                )
            is_async = isinstance(method, ast.AsyncFunctionDef)
            if instance.awaited != awaited or is_async != awaited:
                return (
                    f"{name} is called directly at {line} "
                    f"({'awaited' if instance.awaited else 'not awaited'}), which the "
                    f"{client.package} listener test harness cannot take as it is; call a "
                    "helper method there instead first"
                )
        for call, name in instance.calls:
            fn = callbacks.get(name)
            arg = call.args[0]
            if fn is not None and isinstance(arg, _DISPLAYS) and len(arg.elts) > 1:
                use = _ordered_use(fn, facts)
                if use is not None:
                    return (
                        f"{fn.name} uses its partitions in an order-dependent way (line "
                        f"{use}), and the test at {creation.path}:{call.lineno} passes several "
                        "while the test "
                        "harness passes a set; pass one partition per call there first"
                    )
        for fn in callbacks.values():
            use = _typed_use(fn, facts)
            if use is not None:
                return (
                    f"{fn.name} uses its partitions other than to iterate or count them (line "
                    f"{use}), and the test at {where} calls it directly with a list while the "
                    "test harness passes a set; call a helper method there instead first"
                )
        remote_plans.setdefault(creation.path, MigrationPlan()).merge(instance.plan(module))
    return None


def _partition_refs(fn: Function, facts: FileFacts) -> list[ast.Name]:
    params = [*fn.args.posonlyargs, *fn.args.args]
    if len(params) < 2:
        return []
    refs = facts.bindings.references(params[1], params[1].arg)
    return [ref for ref in refs or [] if isinstance(ref, ast.Name)]


def _typed_use(fn: Function, facts: FileFacts) -> int | None:
    """The line of a use of the partitions that tells a set from a list, if any."""
    params = [*fn.args.posonlyargs, *fn.args.args]
    if len(params) >= 2 and facts.bindings.references(params[1], params[1].arg) is None:
        return fn.lineno  # rebound
    for ref in _partition_refs(fn, facts):
        parent = facts.parent(ref)
        if isinstance(parent, ast.For | ast.comprehension) and parent.iter is ref:
            continue
        if (
            isinstance(parent, ast.Compare)
            and ref in parent.comparators
            and all(isinstance(op, ast.In | ast.NotIn) for op in parent.ops)
        ):
            continue
        if _called_with(parent, ref, _UNORDERED) or _extends(parent, ref):
            continue
        return ref.lineno
    return None


def _called_with(parent: ast.AST | None, ref: ast.Name, names: frozenset[str]) -> bool:
    return (
        isinstance(parent, ast.Call)
        and isinstance(parent.func, ast.Name)
        and parent.func.id in names
        and parent.args == [ref]
        and not parent.keywords
    )


def _extends(parent: ast.AST | None, ref: ast.Name) -> bool:
    return (
        isinstance(parent, ast.Call)
        and isinstance(parent.func, ast.Attribute)
        and parent.func.attr in _EXTENDING
        and parent.args == [ref]
        and not parent.keywords
    )


def _ordered_use(fn: Function, facts: FileFacts) -> int | None:
    """The line where iterating the partitions makes their order visible, if any."""
    for ref in _partition_refs(fn, facts):
        parent = facts.parent(ref)
        if (isinstance(parent, ast.For | ast.comprehension) and parent.iter is ref) or _extends(
            parent, ref
        ):
            return ref.lineno
    return None


SHAPE = Shape(
    name="callbacks a test calls directly",
    planner="repository",
    recognises=(
        "an unregistered Cls(...) in another module bound once, used through attributes, "
        "its callbacks called as statements with one display of TopicPartition(...)s"
    ),
    plan="drive_harness (x.on_partitions_assigned(p) -> ListenerHarness(x).assign(p))",
    fixtures=(
        "tests/codemods/test_harness_direct_calls.py",
        "tests/codemods/fixtures/repos/harness_tests",
    ),
)
