"""Shape: the consumer injected through the listener's constructor (KRB201).

The injected parameter is the one that receives, at every instantiation, the very consumer
the instance is registered on; its uses inside callbacks become the view; the parameter, the
``self.<attr> = <param>`` and the arguments go, unless the consumer is used elsewhere too."""

from __future__ import annotations

import ast
from collections.abc import Callable

from rebalance_guard._client_facts import CONSUMER_METHODS, ClientFacts

from rebalance_lint.analysis.confluent_callback import Function
from rebalance_lint.analysis.edits import Edit, MigrationPlan, span
from rebalance_lint.analysis.listener_state import _attributes_in, _code, _method_named, _State
from rebalance_lint.analysis.migration_expressions import find_arg
from rebalance_lint.analysis.migration_facts import (
    FileFacts,
    first_param,
    self_attr,
    self_class,
    statement_layout,
)
from rebalance_lint.analysis.model import consumerish
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.listener_registration import _block
from rebalance_lint.analysis.shapes.view_uses import _view_use

#: The listener's methods its callbacks call using the injected ``self.<attr>`` too
#: (:mod:`.listener_helper_methods`), given ``attr``: the uses they cover, the plan making
#: them take the view, or why they cannot (the whole refusal).
Helpers = Callable[[str], tuple[frozenset[ast.AST], MigrationPlan, str | None]]


def _plan_injection(
    cls: ast.ClassDef,
    client: ClientFacts,
    methods: dict[str, Function],
    creations: list[ast.Call],
    views: dict[Function, str],
    state: _State,
    plan: MigrationPlan,
    helpers: Helpers | None = None,
) -> tuple[str | None, str | None]:
    """Find the consumer handed to ``__init__`` and turn its callback uses into the view
    (and, with ``helpers``, the uses in the methods the callbacks call):
    (why not, the attribute holding it when it is kept, provably the registering consumer
    and never rebound, which a direct call of a callback outside the callbacks can pass)."""
    facts = state.facts
    init = methods.get("__init__")
    injected = _injected_param(init, creations, state) if init is not None else None
    if isinstance(injected, str):
        return injected, None
    attr = _stored_as(init, injected[0], facts) if init is not None and injected else None
    tupled = (  # ``self.a, self.consumer = a, consumer``: followed, always kept
        _stored_in_tuple(init, injected[0], facts)
        if init is not None and injected and attr is None
        else None
    )
    name = attr[0] if attr is not None else tupled[0] if tupled is not None else None
    callback_uses: list[tuple[ast.Attribute, str]] = []
    for fn, view in views.items():
        self_name = first_param(fn)
        for node in _attributes_in(fn):
            stored = self_attr(node, self_name)
            if stored is None:
                continue
            method_name = _method_named(node, facts)
            if name is not None and stored == name:
                reason = _view_use(node, client, facts)
                if reason is not None:
                    return reason, None
                callback_uses.append((node, view))
            elif method_name in CONSUMER_METHODS and _from_param(init, stored, facts):
                return (
                    f"{fn.name} calls self.{stored}.{method_name}() on a consumer the "
                    "codemod cannot prove is the registering one; "
                    "use the callback's consumer by hand"
                ), None
    for node, view in callback_uses:
        plan.edit(Edit("replace_with_name", span(node), value=view))
    if init is None or injected is None:
        return None, None
    param, position = injected
    covered, helper_plan, blocked = (  # methods the callbacks call using it: take the view
        helpers(attr[0]) if helpers is not None and attr is not None else (frozenset(), None, None)
    )
    other_uses = (
        _uses_outside(cls, attr, param, init, views, facts, covered) if tupled is None else None
    )
    kept_outside = (  # the consumer stays for non-callback uses only: nothing by hand
        tupled is None
        and other_uses is not None
        and attr is not None
        and blocked is None
        and _outside_only(cls, attr[0], views, facts, covered)
    )
    blocked = blocked if tupled is None and other_uses is None else None
    if tupled is not None:
        plan.refuse(
            param.lineno,
            f"the consumer injected into {cls.name}() is stored with other values at line "
            f"{tupled[1].lineno}; kept (the callbacks now use the view), remove it by hand",
        )
    elif kept_outside:
        if helper_plan is not None:  # the methods the callbacks call take the view too
            plan.merge(helper_plan)
        plan.planned.add(span(param))  # KRB201 fixed: no callback reaches the kept consumer
    elif other_uses is not None:
        plan.refuse(
            param.lineno,
            f"the consumer injected into {cls.name}() is also used at line {other_uses}; "
            f"kept (the callbacks now use the view), remove it by hand",
        )
    elif blocked is not None:
        plan.refuse(param.lineno, blocked)
    if tupled is not None or other_uses is not None or blocked is not None:
        store = attr[1].targets[0] if attr is not None else tupled[1] if tupled else None
        kept = name if name is not None and not _rebound(name, store, facts) else None
        return None, kept
    assert attr is not None
    if helper_plan is not None:
        plan.merge(helper_plan)
    plan.planned.add(span(param))  # KRB201's site: the injected parameter goes
    plan.edit(Edit("drop_param", span(init), index=position + 1))
    if param.annotation is not None:
        plan.unused_imports.append(span(param.annotation))
    plan.edit(Edit("drop_init_statement", span(init), other=span(attr[1])))
    plan.edit(Edit("drop_if_empty", span(init)))
    for creation in creations:
        path = state.remote.get(creation)
        target = plan if path is None else state.remote_plans.setdefault(path, MigrationPlan())
        target.edit(Edit("drop_call_arg", span(creation), value=param.arg, index=position))
    return None, None


def _injected_param(
    init: Function, creations: list[ast.Call], state: _State
) -> tuple[ast.arg, int] | str | None:
    """The ``__init__`` parameter that always receives the registering consumer, if one does."""
    args = init.args
    if args.vararg or args.kwonlyargs or args.kwarg or args.posonlyargs:
        return None
    for position, param in enumerate(args.args[1:]):
        matches = []
        for creation in creations:
            value = find_arg(creation, param.arg, position)
            receiver = state.registrations[creation]
            matches.append(value is not None and _code(value) == receiver)
        if all(matches):
            return param, position
        if any(matches):
            return (
                f"its constructor gets the registering consumer at some instantiations but "
                f"not at others ({param.arg}); pass the same consumer everywhere first"
            )
    return None


def _stored_as(init: Function, param: ast.arg, facts: FileFacts) -> tuple[str, ast.Assign] | None:
    """``self.<attr> = <param>`` in ``__init__``: the attribute name and its statement."""
    self_name = first_param(init)
    for stmt in _block(init, facts):
        if statement_layout(stmt, facts) != "own":
            continue
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.value, ast.Name)
            and stmt.value.id == param.arg
        ):
            attr = self_attr(stmt.targets[0], self_name)
            if attr is not None:
                return attr, stmt
    return None


def _stored_in_tuple(
    init: Function, param: ast.arg, facts: FileFacts
) -> tuple[str, ast.Attribute] | None:
    """``self.a, self.<attr> = a, <param>`` in ``__init__``: the attribute and its target."""
    self_name = first_param(init)
    for stmt in _block(init, facts):
        if not (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Tuple)
            and isinstance(stmt.value, ast.Tuple)
            and len(stmt.targets[0].elts) == len(stmt.value.elts)
        ):
            continue
        for target, value in zip(stmt.targets[0].elts, stmt.value.elts, strict=True):
            attr = self_attr(target, self_name)
            if attr is not None and isinstance(value, ast.Name) and value.id == param.arg:
                assert isinstance(target, ast.Attribute)
                return attr, target
    return None


def _rebound(attr: str, stored: ast.AST | None, facts: FileFacts) -> bool:
    """Whether anything in the file but ``stored`` (the ``__init__`` store) assigns or
    deletes an attribute named ``attr``, on any object, or a class body binds the name."""
    for node in facts.index.attributes.get(attr, []):
        if node is not stored and isinstance(node.ctx, ast.Store | ast.Del):
            return True
    return any(
        (isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name == attr)
        or (
            isinstance(stmt, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == attr for t in stmt.targets)
        )
        for cls in facts.index.classes
        for stmt in cls.body
    )


def _from_param(init: Function | None, attr: str, facts: FileFacts) -> bool:
    """Whether ``__init__`` stores a parameter that may hold a consumer as ``self.<attr>``:
    one named or annotated as one (``consumer``, ``c: KafkaConsumer``), not ``storage``, whose
    ``commit()`` is a database's (REAL_WORLD.md: commit hidden behind an offset store)."""
    if init is None:
        return False
    for param in init.args.args[1:]:
        annotation = ast.unparse(param.annotation) if param.annotation is not None else ""
        if not (consumerish(param.arg) or "Consumer" in annotation):
            continue
        stored = _stored_as(init, param, facts)
        if stored is not None and stored[0] == attr:
            return True
    return False


def _uses_outside(
    cls: ast.ClassDef,
    attr: tuple[str, ast.Assign] | None,
    param: ast.arg,
    init: Function,
    views: dict[Function, str],
    facts: FileFacts,
    covered: frozenset[ast.AST] = frozenset(),
) -> int | None:
    """First line using the injected consumer outside the callbacks and the ``covered``
    uses (in helper methods taking the view), or None."""
    if attr is None:
        return init.lineno
    refs = facts.bindings.references(param, param.arg)
    if refs is None or len(refs) != 1:
        return init.lineno
    inside = {node for fn in views for node in _attributes_in(fn)}
    assigned = attr[1].targets[0]
    for node in facts.index.attributes.get(attr[0], []):
        if (
            node in inside
            or node in covered
            or node is assigned
            or _another_classes_self(node, cls, facts)
        ):
            continue
        return node.lineno
    return None


def _outside_only(
    cls: ast.ClassDef,
    name: str,
    views: dict[Function, str],
    facts: FileFacts,
    covered: frozenset[ast.AST],
) -> bool:
    """Whether every use of ``self.<name>`` outside the callbacks and ``covered`` is in a
    method of ``cls`` that nothing in the class names (``self.lag()`` would let a callback
    reach it), nor a callback: what the poll loop or the application calls, never a callback
    (``def lag(self): return self._c.position(tp)``), and no callback hands on its ``self``.
    The consumer stays for those; the callbacks use the view, so KRB201's concern is gone
    and nothing is left to do by hand."""
    for fn in views:  # a callback handing on its self may reach any method
        me = first_param(fn)
        for node in ast.walk(fn):
            if isinstance(node, ast.Name) and node.id == me:
                parent = facts.parent(node)
                if not (isinstance(parent, ast.Attribute) and parent.value is node):
                    return False
    inside = {node for fn in views for node in _attributes_in(fn)} | set(covered)
    methods = {
        fn.name: fn for fn in cls.body if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    named = {
        node.attr
        for node in ast.walk(cls)
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load)
    } | {node.id for node in ast.walk(cls) if isinstance(node, ast.Name)}
    for node in facts.index.attributes.get(name, []):
        if node in inside or isinstance(node.ctx, ast.Store):
            continue
        method = next(
            (a for a in facts.bindings.ancestors(node) if isinstance(a, _FUNCTIONS)), None
        )
        if method is None or methods.get(method.name) is not method:
            return False  # another class's, a nested function's, the module's: not followed
        if method in views or method.name in named or self_attr(node, first_param(method)) != name:
            return False
    return True


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _another_classes_self(node: ast.Attribute, cls: ast.ClassDef, facts: FileFacts) -> bool:
    """``self.consumer`` in a method of another class: not the listener's attribute."""
    owner = self_class(node.value, facts)
    return (
        owner is not None
        and owner is not cls
        and cls.name not in {ast.unparse(base) for base in owner.bases}
    )


SHAPE = Shape(
    name="injected consumers",
    planner="listeners",
    recognises=(
        "an __init__ parameter given the registering consumer at every creation, stored "
        "as self.<attr>"
    ),
    plan=("replace_with_name + drop_param + drop_init_statement + drop_if_empty + drop_call_arg"),
    fixtures=(
        "tests/codemods/test_kafka_python.py",
        "tests/codemods/test_aiokafka.py",
        "tests/codemods/test_repository_mode.py",
    ),
)
