"""Shape: a migrated listener's callback calling a method of its owner (REAL_WORLD.md's
indirect injection: ``self.worker.flush()``, ``self.owner._commit_dirty_now_safely()``) that
reaches the registering consumer through the owner's stored ``self.<attr>``
(:mod:`.listener_owners` proves which). The owner's methods reaching it from those the
callbacks call get a keyword-only ``consumer=None`` (``RebalanceConsumer | None`` where
typed); a view method called on ``self.<attr>`` there is called on
``(self.<attr> if consumer is None else consumer)``, calls between them pass it on, and the
callbacks pass their view. Other callers pass nothing and get the stored consumer as before.

Only where all of it is visible: an owner class deriving from nothing the codemod cannot
see, those methods not overridden here, decorated or taking ``**kwargs``, ``self.<attr>``
used there only to call what the view offers as written or compared with None (never in a
nested function), the owner used by the listener only to call its methods, and everything
the model says the callbacks reach through the owner rewritten.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from rebalance_guard._client_facts import CALLBACK_METHODS, ClientFacts

from rebalance_lint.analysis.edits import Edit, MigrationPlan, span
from rebalance_lint.analysis.migration_facts import (
    FileFacts,
    first_param,
    methods_of,
    self_attr,
    self_class,
    view_name,
)
from rebalance_lint.analysis.model import Analysis, IndirectInjection
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.helpers_take_view import offered_by_view
from rebalance_lint.analysis.shapes.injected_consumer import _stored_as
from rebalance_lint.analysis.shapes.listener_owners import FALLBACK, owner_holding
from rebalance_lint.analysis.shapes.owner_bases import generic
from rebalance_lint.analysis.shapes.owner_consumer_in_callbacks import (
    Direct,
    direct_use,
    plan_direct_uses,
)
from rebalance_lint.analysis.shapes.owner_stored_consumer import _own_scope
from rebalance_lint.analysis.shapes.view_keywords import stage_view_keywords

Function = ast.FunctionDef | ast.AsyncFunctionDef
Offered = Callable[[ast.Call, str], bool]
_PLAIN_BASES = frozenset({"object", "ABC", "abc.ABC"})


def plan_owner_methods(
    found: IndirectInjection,
    analysis: Analysis,
    client: ClientFacts,
    facts: FileFacts,
    plan: MigrationPlan,
) -> str | None:
    """Stage the owner's methods taking the view (into a scratch plan merged on success);
    None when staged, else why not with the next step."""
    staged = MigrationPlan()
    reason = _plan(found, analysis, client, facts, staged)
    if reason is None:  # two owners of one class: its methods are rewritten once
        staged.edits = [edit for edit in staged.edits if edit not in plan.edits]
        plan.merge(staged)
        plan.planned.add(span(found.anchor))
    return reason


def _plan(
    found: IndirectInjection,
    analysis: Analysis,
    client: ClientFacts,
    facts: FileFacts,
    plan: MigrationPlan,
) -> str | None:
    cls = found.listener.node
    methods = methods_of(cls)
    init = methods.get("__init__")
    param = found.anchor
    if found.how != "owner" or init is None or not isinstance(param, ast.arg):
        return FALLBACK
    positional = init.args.args[1:]
    position = next((i for i, p in enumerate(positional) if p is param), None)
    stored = _stored_as(init, param, facts)
    if position is None or stored is None:
        return FALLBACK
    held = stored[0]  # the listener's self.<held>: the owner object
    owner = owner_holding(cls, param, position, analysis, facts)
    if isinstance(owner, str):
        return owner
    owner_cls, attr = owner
    callbacks = {n: f for n, f in methods.items() if n in CALLBACK_METHODS}
    ok = offered_by_view(client, facts)
    directs: list[Direct] = []  # filled by _hops
    hops, reason = _hops(cls, held, stored[1], callbacks, owner_cls, attr, ok, directs, facts)
    if reason is not None:
        return reason
    own = methods_of(owner_cls)
    reaching = _reaching(own, attr, facts)
    chain = _chain({own[name] for _, name, _ in hops if name in reaching}, own, reaching)
    if not chain and not directs:
        return FALLBACK
    reason = _overridable(owner_cls, chain, facts) if chain else None
    if reason is not None:
        return reason
    names: dict[Function, str] = {}
    for method in chain:
        name = view_name(method)
        if name is None:
            return (
                f"{owner_cls.name}.{method.name}() already uses every name the codemod would "
                "give the view's parameter; rename one first"
            )
        names[method] = name
    rewritten: set[ast.AST] = set()
    plan_direct_uses(directs, plan, rewritten)
    for method in chain:
        reason = _plan_method(method, names, attr, own, chain, ok, facts, plan, rewritten)
        if reason is not None:
            return f"{owner_cls.name}.{method.name}() {reason}"
    for call, name, fn in hops:
        callee = own.get(name)
        if callee is not None and callee in names:
            method = callee
            if isinstance(method, ast.AsyncFunctionDef) and not _awaited(call, facts):
                return f"{fn.name}() {_not_awaited(call, method)}"
            view = view_name(fn)
            assert view is not None  # the class is migrated: each callback got its view
            plan.edit(Edit("set_keyword", span(call), value=names[method], extra=view))
    reason = _model_agrees(found, analysis, held, rewritten)
    if reason is not None:
        return reason
    stage_view_keywords(names, client, facts, plan)
    return None


def _hops(
    cls: ast.ClassDef,
    held: str,
    store: ast.Assign,
    callbacks: dict[str, Function],
    owner: ast.ClassDef,
    attr: str,
    ok: Offered,
    directs: list[Direct],
    facts: FileFacts,
) -> tuple[list[tuple[ast.Call, str, Function]], str | None]:
    """The ``self.<held>.<method>(...)`` calls in the callbacks' own bodies (with the method
    and the callback), the view's methods called there on ``self.<held>.<attr>``
    (:mod:`.owner_consumer_in_callbacks`), or why a use of ``self.<held>`` in ``cls`` stops
    the rewrite."""
    inside = {node: fn for fn in callbacks.values() for node in _own_scope(fn)}
    hops: list[tuple[ast.Call, str, Function]] = []
    for node in facts.index.attributes.get(held, []):
        if self_class(node.value, facts) is not cls or node is store.targets[0]:
            continue
        method = facts.parent(node)
        call = facts.parent(method) if method is not None else None
        direct = (
            direct_use(method, inside, ok, facts)
            if isinstance(method, ast.Attribute) and method.attr == attr
            else None
        )
        if direct is not None:
            directs.append(direct)
            continue
        if isinstance(method, ast.Attribute) and method.attr == attr:
            return [], (
                f"the listener uses self.{held}.{attr} other than to call a method the view "
                f"offers in a callback's own body (line {node.lineno}); pass the callback's "
                "consumer argument along by hand"
            )
        if not isinstance(method, ast.Attribute):
            return [], (
                f"the listener uses self.{held} other than to call a method of it (line "
                f"{node.lineno}); pass the callback's consumer argument along by hand"
            )
        if not (isinstance(call, ast.Call) and call.func is method):
            continue  # data of the owner (self.worker.batches): no consumer
        fn = inside.get(call)
        if fn is None:
            if method.attr in _reaching(methods_of(owner), attr, facts):
                return [], (
                    f"self.{held}.{method.attr}() at line {call.lineno} reaches the consumer "
                    "outside a callback's own body, where no view is at hand; call it from "
                    "the callback itself first"
                )
            continue
        hops.append((call, method.attr, fn))
    return hops, None


def _reaching(own: dict[str, Function], attr: str, facts: FileFacts) -> set[str]:
    """The methods of the owner's class using ``self.<attr>`` (other than to test it for
    None), directly or through calls on ``self``."""
    uses: dict[str, set[str]] = {}
    found: set[str] = set()
    for name, method in own.items():
        me = first_param(method)
        called: set[str] = set()
        for node in ast.walk(method):
            here = self_attr(node, me)
            if here == attr and not _none_test(node, facts):
                found.add(name)
            elif here in own:
                called.add(here)
        uses[name] = called
    grew = True
    while grew:
        grew = False
        for name, called in uses.items():
            if name not in found and called & found:
                found.add(name)
                grew = True
    return found


def _chain(start: set[Function], own: dict[str, Function], reaching: set[str]) -> set[Function]:
    """``start`` and the reaching methods they call on ``self``, transitively."""
    chain: set[Function] = set()
    todo = list(start)
    while todo:
        method = todo.pop()
        if method in chain:
            continue
        chain.add(method)
        me = first_param(method)
        for node in ast.walk(method):
            name = self_attr(node, me)
            if name in reaching:
                todo.append(own[name])
    return chain


def _overridable(owner: ast.ClassDef, chain: set[Function], facts: FileFacts) -> str | None:
    """Why a method of ``chain`` may not be the one that runs: the owner derives from a class
    the codemod cannot see, or a class of this file deriving from it overrides the method."""
    odd = [
        ast.unparse(base)
        for base in owner.bases
        if ast.unparse(base) not in _PLAIN_BASES and not generic(base, facts)  # Generic[T]
    ]
    if odd or any(kw.arg != "metaclass" for kw in owner.keywords):
        return (
            f"the owner's class {owner.name} derives from {', '.join(odd) or 'a metaclass'}, "
            "whose methods the codemod does not follow; pass the callback's consumer "
            "argument along to its methods by hand"
        )
    names = {method.name for method in chain}
    for cls in facts.index.classes:
        if owner.name in {ast.unparse(base) for base in cls.bases}:
            again = sorted(names & set(methods_of(cls)))
            if again:
                return (
                    f"{cls.name} (line {cls.lineno}) overrides {owner.name}.{again[0]}(); give "
                    "the override the same consumer parameter by hand"
                )
    return None


def _plan_method(
    method: Function,
    names: dict[Function, str],
    attr: str,
    own: dict[str, Function],
    chain: set[Function],
    ok: Offered,
    facts: FileFacts,
    plan: MigrationPlan,
    rewritten: set[ast.AST],
) -> str | None:
    """Stage one method of the chain; why not (completing "Owner.method() ...")."""
    if method.decorator_list:
        return "is decorated, which may change how it is called; pass the consumer by hand"
    if method.args.kwarg is not None or method.args.vararg is not None:
        return "takes *args or **kwargs; pass the consumer along to it by hand"
    me, name = first_param(method), names[method]
    scope = set(_own_scope(method))
    if any(isinstance(node, ast.Yield | ast.YieldFrom) for node in scope):
        return (
            "is a generator, whose body runs when it is iterated, maybe after the callback; "
            "pass the consumer along by hand"
        )
    for node in ast.walk(method):
        here = self_attr(node, me)
        if here is None or (here != attr and own.get(here) not in chain):
            continue
        assert isinstance(node, ast.Attribute)
        if node not in scope:
            return (
                f"uses self.{here} in a nested function (line {node.lineno}), which may run "
                "after the callback; pass the consumer along by hand"
            )
        outer = facts.parent(node)
        call = facts.parent(outer) if outer is not None else None
        if here != attr:  # a call of another method of the chain: it passes the view on
            callee = own[here]
            if not (isinstance(outer, ast.Call) and outer.func is node):
                return (
                    f"uses self.{here} without calling it (line {node.lineno}), where the "
                    "consumer cannot be passed along; pass it by hand"
                )
            if isinstance(callee, ast.AsyncFunctionDef) and not _awaited(outer, facts):
                return _not_awaited(outer, callee)
            plan.edit(Edit("set_keyword", span(outer), value=names[callee], extra=name))
        elif (
            isinstance(outer, ast.Attribute)
            and isinstance(call, ast.Call)
            and call.func is outer
            and ok(call, outer.attr)
        ):
            either = f"({ast.unparse(node)} if {name} is None else {name})"
            plan.edit(Edit("replace_with_expression", span(node), value=either))
            rewritten.add(call)
        elif not _none_test(node, facts):
            return (
                f"uses self.{attr} other than to call a method the view offers as written "
                f"(line {node.lineno}); change that use by hand"
            )
    return None


def _none_test(node: ast.AST, facts: FileFacts) -> bool:
    """``self.<attr> is None`` / ``is not None``: reads the stored consumer, calls nothing."""
    parent = facts.parent(node)
    return (
        isinstance(parent, ast.Compare)
        and len(parent.ops) == 1
        and isinstance(parent.ops[0], ast.Is | ast.IsNot)
        and isinstance(parent.comparators[0], ast.Constant)
        and parent.comparators[0].value is None
        and parent.left is node
    )


def _model_agrees(
    found: IndirectInjection, analysis: Analysis, held: str, rewritten: set[ast.AST]
) -> str | None:
    """Whether every consumer effect the callbacks reach through ``self.<held>`` is a call the
    plan rewrites (blocking work aside, which is not the consumer)."""
    for callback in analysis.callbacks:
        if callback.owner is not found.listener:
            continue
        prefix = f"{callback.scope.self_name}.{held}."
        for effect in callback.effects:
            through = effect.via[0].text if effect.via else effect.receiver
            if not through.startswith(prefix) or effect.kind == "blocking":
                continue
            if effect.path or effect.kind != "call" or effect.node not in rewritten:
                return (
                    f"{effect.label(callback.label)} reaches a consumer other than through the "
                    "owner's stored consumer; pass the callback's consumer argument along to "
                    "that call by hand"
                )
    return None


def _awaited(call: ast.Call, facts: FileFacts) -> bool:
    return isinstance(facts.parent(call), ast.Await)


def _not_awaited(call: ast.Call, method: Function) -> str:
    return (
        f"calls the coroutine method {method.name}() without awaiting it (line {call.lineno}), "
        "so it would run after the view expired; await it first"
    )


SHAPE = Shape(
    name="owner's methods taking the view",
    planner="listeners",
    recognises=(
        "a migrated listener's callback calling self.<owner>.<method>() of an owner class of "
        "this file whose methods reach the registering consumer as self.<attr>"
    ),
    plan=(
        "keyword_param (*, consumer=None) on each such method + replace_with_expression "
        "(self.<attr> -> (self.<attr> if consumer is None else consumer)) + set_keyword "
        "(consumer=<the view>) at the callbacks' calls and consumer=consumer between methods"
    ),
    fixtures=(
        "tests/codemods/test_owner_method_takes_view.py",
        "tests/codemods/fixtures/owner_method_takes_view.py",
    ),
)
