"""Shape: optional listeners: the registered value is a variable or ``self.<attr>`` that holds
either ``None`` or the one instance of a listener class (REAL_WORLD.md, issue 25: real code
registers a listener only when it has something to do):
``listener = SeekListener(consumer, on_assign) if on_assign else None``; ``listener = None``
then ``if ready: listener = Ready(...)``, registered in one or two branches; ``self._listener
= None`` in ``__init__`` and ``self._listener = Listener()`` in the method that subscribes,
read under ``if self._listener:``.

Provably equivalent when every binding is ``None`` or that one creation: the registration
becomes ``set_rebalance_listener(c, value)`` whatever the value, and ``None`` there removes
any listener exactly as ``subscribe(..., listener=None)`` does on both clients (their
``SubscriptionState.subscribe`` stores the listener, ``None`` included; rebalance_guard's
``set_rebalance_listener(c, None)`` clears it and the following ``subscribe()`` stores
``None`` again). So the class migrates as for an instance registered directly; its creation
counts as registered on the consumer of every registration of the holder (all the same one).
A holder also bound to anything else, to two creations or to instances of two classes, or
registered on two consumers, is refused, with the next step.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from rebalance_lint.analysis.collect import param_default
from rebalance_lint.analysis.listener_state import _code, _State
from rebalance_lint.analysis.migration_expressions import is_none
from rebalance_lint.analysis.migration_facts import FileFacts, self_class
from rebalance_lint.analysis.scopes import is_function
from rebalance_lint.analysis.shape import Shape


@dataclass(frozen=True)
class Holder:
    """A variable (``name``) or an attribute of ``owner``'s ``self`` (``attribute``) holding
    an optional listener: every value it is bound to (binding node, value), or why one of
    its bindings is not a plain ``=`` (with the line)."""

    label: str
    values: tuple[tuple[ast.AST, ast.expr], ...]
    other: tuple[int, str] | None
    name: ast.Name | None = None
    attribute: str | None = None
    owner: ast.ClassDef | None = None


def optional_creations(
    value: ast.expr, state: _State
) -> tuple[list[ast.Call], ast.Call | None] | None:
    """For a registered ``listener=`` value that is not one plain creation: the creations it
    may hold and, when it provably holds ``None`` or that one creation, the creation (else
    None: :func:`holder_reason` says why). None when it is no optional listener at all (no
    ``None`` among its values, or no creation of a class of the file)."""
    facts = state.facts
    if isinstance(value, ast.IfExp):
        leaves = _leaves(value)
        made = _made(leaves, state)
        if not made or not any(is_none(leaf) for leaf in leaves):
            return None
        simple = len(made) == 1 and all(is_none(x) or x in made for x in leaves)
        return made, made[0] if simple else None
    holder = holder_of(value, facts)
    creations = _holder_creations(holder, state) if holder is not None else None
    if holder is None or creations is None:
        return None
    for creation in creations:
        if holder.name is not None:
            state.instance_names[creation] = holder.name
        elif holder.attribute is not None:
            state.instance_attributes[creation] = holder.attribute
    reason = _why_not_provable(holder, state)
    return creations, creations[0] if reason is None else None


def holder_of(value: ast.expr, facts: FileFacts) -> Holder | None:
    """The holder a registered value, or a creation's assignment target, reads or binds."""
    if isinstance(value, ast.Name):
        return _variable(value, facts)
    if isinstance(value, ast.Attribute):
        owner = self_class(value.value, facts)
        return _attribute(value.attr, owner, facts) if owner is not None else None
    return None


def holder_of_creation(creation: ast.Call, facts: FileFacts) -> Holder | None:
    """The holder ``creation`` is assigned to (possibly as a branch of ``a if t else b``)."""
    node: ast.AST = creation
    parent = facts.parent(node)
    while isinstance(parent, ast.IfExp) and node is not parent.test:
        node, parent = parent, facts.parent(parent)
    if isinstance(parent, ast.Assign) and parent.value is node and len(parent.targets) == 1:
        target: ast.expr = parent.targets[0]
    elif isinstance(parent, ast.AnnAssign) and parent.value is node:
        target = parent.target
    else:
        return None
    return holder_of(target, facts)


def is_optional(holder: Holder, state: _State) -> bool:
    """Whether one of the holder's values is ``None`` and one a creation of a class of the
    file (else the other shapes decide)."""
    return _holder_creations(holder, state) is not None


def holder_reason(holder: Holder, state: _State) -> str | None:
    """Why an optional holder cannot be migrated with its class (None: it can)."""
    return _why_not_provable(holder, state)


def holder_loads(holder: Holder, facts: FileFacts) -> list[ast.expr]:
    """Every read of a variable holder, over all its bindings (an attribute holder's reads
    are found by the attribute's name)."""
    if holder.name is None:
        return [
            node
            for node in facts.index.attributes.get(holder.attribute or "", [])
            if isinstance(node.ctx, ast.Load) and self_class(node.value, facts) is holder.owner
        ]
    found: list[ast.expr] = []
    for binding, _ in holder.values:
        found += [u for u in facts.bindings.uses.get(binding, []) if u not in found]
    return found


def truth_tested(node: ast.expr, facts: FileFacts) -> bool:
    """``if x:``, ``not x``, ``x and ...``: only the value's truth is used (neither the
    clients' listener bases nor rebalance_guard's define ``__bool__`` or ``__len__``, so
    rebasing the class keeps it)."""
    parent = facts.parent(node)
    if isinstance(parent, ast.If | ast.While | ast.IfExp | ast.Assert):
        return parent.test is node
    if isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not):
        return True
    if isinstance(parent, ast.BoolOp):
        if isinstance(parent.op, ast.And) and node is not parent.values[-1]:
            return True  # the value of ``x and y`` is y when x is true, else None
        return truth_tested(parent, facts)
    return False


def none_tested(node: ast.expr, facts: FileFacts) -> bool:
    """``node is None``, ``node is not None`` (None on either side) or a truth test of
    ``node`` (:func:`truth_tested`): uses that only ask whether it is there."""
    parent = facts.parent(node)
    if isinstance(parent, ast.Compare) and len(parent.ops) == 1:
        other = parent.comparators[0] if parent.left is node else parent.left
        return isinstance(parent.ops[0], ast.Is | ast.IsNot) and is_none(other)
    return truth_tested(node, facts)


def receiver_of(value: ast.expr, facts: FileFacts) -> str | None:
    """The consumer a registered value is registered on: ``c.subscribe(listener=value)`` or
    ``set_rebalance_listener(c, value)``."""
    parent = facts.parent(value)
    call = facts.parent(parent) if isinstance(parent, ast.keyword) else parent
    if not isinstance(call, ast.Call):
        return None
    if isinstance(call.func, ast.Attribute) and call.func.attr == "subscribe":
        return _code(call.func.value)
    return _code(call.args[0]) if call.args and call.args[0] is not value else None


def _variable(name: ast.Name, facts: FileFacts) -> Holder | None:
    scope = facts.bindings.scope_at.get(name)
    bindings: list[ast.AST] = []
    while scope is not None:
        if name.id in scope.assignments:
            bindings = scope.assignments[name.id]
            break
        scope = scope.parent
        while scope is not None and scope.is_class:
            scope = scope.parent
    if not bindings:
        return None
    values: list[tuple[ast.AST, ast.expr]] = []
    other: tuple[int, str] | None = None
    for node in ast.walk(scope.node if scope is not None else facts.tree):
        if isinstance(node, ast.Global | ast.Nonlocal) and name.id in node.names:
            kind = "global" if isinstance(node, ast.Global) else "nonlocal"
            other = other or (node.lineno, f"is declared {kind} at line {node.lineno}")
    for binding in bindings:
        parent = facts.parent(binding)
        if isinstance(parent, ast.Assign) and parent.targets == [binding]:
            values.append((binding, parent.value))
        elif isinstance(parent, ast.AnnAssign) and parent.target is binding:
            if parent.value is not None:  # a bare annotation binds nothing
                values.append((binding, parent.value))
        elif isinstance(binding, ast.arg) and scope is not None and is_function(scope.node):
            assert isinstance(scope.node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            default = param_default(scope.node, binding.arg)
            if default is not None:  # ``listener=None``: optional, whatever callers pass
                values.append((binding, default))
            other = other or (
                binding.lineno,
                f"is also a parameter (line {binding.lineno}), bound to whatever the callers pass",
            )
        else:
            line = getattr(binding, "lineno", 0)
            other = other or (line, f"is also bound at line {line} other than by '{name.id} = ...'")
    first = next((b for b, _ in values if isinstance(b, ast.Name)), None)
    return Holder(name.id, tuple(values), other, name=first) if first is not None else None


def _attribute(attr: str, owner: ast.ClassDef, facts: FileFacts) -> Holder:
    label = f"self.{attr}"
    values: list[tuple[ast.AST, ast.expr]] = []
    other: tuple[int, str] | None = None
    for node in facts.index.attributes.get(attr, []):
        if isinstance(node.ctx, ast.Load):
            continue
        parent = facts.parent(node)
        value = (
            parent.value
            if (isinstance(parent, ast.Assign) and parent.targets == [node])
            or (isinstance(parent, ast.AnnAssign) and parent.target is node)
            else None
        )
        if value is None or self_class(node.value, facts) is not owner:
            done = "deleted" if isinstance(node.ctx, ast.Del) else "set"
            other = other or (
                node.lineno,
                f"is also {done} at line {node.lineno} other than by {owner.name}'s own "
                f"'{label} = ...'",
            )
            continue
        values.append((node, value))
    for stmt in owner.body:  # a class attribute is what self.<attr> reads until it is set
        targets = (
            stmt.targets
            if isinstance(stmt, ast.Assign)
            else [stmt.target]
            if isinstance(stmt, ast.AnnAssign) and stmt.value is not None
            else []
        )
        if any(isinstance(t, ast.Name) and t.id == attr for t in targets):
            assert isinstance(stmt, ast.Assign | ast.AnnAssign) and stmt.value is not None
            values.append((stmt, stmt.value))
        elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name == attr:
            other = other or (stmt.lineno, f"is also a method of {owner.name} (line {stmt.lineno})")
    return Holder(label, tuple(values), other, attribute=attr, owner=owner)


def _leaves(value: ast.expr) -> list[ast.expr]:
    """The values ``a if t else b`` (nested) may evaluate to; a plain value is its own."""
    if isinstance(value, ast.IfExp):
        return _leaves(value.body) + _leaves(value.orelse)
    return [value]


def _made(leaves: list[ast.expr], state: _State) -> list[ast.Call]:
    return [leaf for leaf in leaves if isinstance(leaf, ast.Call) and _class_key(leaf, state)]


def _class_key(call: ast.Call, state: _State) -> tuple[ast.AST, str] | None:
    """Which class ``Cls(...)`` creates: a class of the file, or a name imported from another
    module (repository mode follows it there); None for anything else."""
    if not isinstance(call.func, ast.Name):
        return None
    bound = state.facts.bindings.binding(call.func)
    if isinstance(bound, ast.ClassDef | ast.ImportFrom):
        return bound, call.func.id
    return None


def _holder_creations(holder: Holder, state: _State) -> list[ast.Call] | None:
    """The class creations among the holder's values when it is optional (one of its values
    is ``None``); None when it is not."""
    leaves = [leaf for _, value in holder.values for leaf in _leaves(value)]
    creations = _made(leaves, state)
    if not creations or not any(is_none(leaf) for leaf in leaves):
        return None
    return creations


def _why_not_provable(holder: Holder, state: _State) -> str | None:
    facts = state.facts
    label = holder.label
    creations = _holder_creations(holder, state) or []
    cls = _class_key(creations[0], state) if creations else None
    name = cls[1] if cls is not None else "listener"
    kind = "a variable" if holder.name is not None else "an attribute"
    first_step = f"give the {name} instance {kind} of its own first"
    if holder.other is not None:
        return f"the listener {label} {holder.other[1]}; {first_step}"
    for _, value in holder.values:
        for leaf in _leaves(value):
            if is_none(leaf) or leaf in creations:
                continue
            code = _code(leaf)
            code = code if len(code) <= 40 else code[:37] + "..."
            return (
                f"the listener {label} is also bound to {code} at line {leaf.lineno}, which the "
                f"codemod cannot prove is None or {_a(name)}; {first_step}"
            )
    classes = {_class_key(c, state) for c in creations}
    if len(classes) > 1:
        a, b = creations[0], next(c for c in creations if _class_key(c, state) != cls)
        other = _class_key(b, state)
        assert other is not None
        return (
            f"the listener {label} may hold {_a(name)} (line {a.lineno}) or {_a(other[1])} "
            f"(line {b.lineno}); register each class from a variable of its own first"
        )
    if len(creations) > 1:
        return (
            f"the listener {label} is bound to {_a(name)} at lines {creations[0].lineno} and "
            f"{creations[1].lineno}; create it in one place first"
        )
    return registered_on_one(label, holder_loads(holder, facts), state)


def _a(name: str) -> str:
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def registered_on_one(label: str, refs: list[ast.expr], state: _State) -> str | None:
    """Why the registered ones of ``refs`` are not all registered on one consumer."""
    seen: dict[str, int] = {}
    for ref in refs:
        if ref not in state.registered_values:
            continue
        receiver = receiver_of(ref, state.facts)
        if receiver is not None:
            seen.setdefault(receiver, ref.lineno)
    if len(seen) > 1:
        (a, line_a), (b, line_b) = list(seen.items())[:2]
        return (
            f"the listener {label} is registered on {a} (line {line_a}) and on {b} "
            f"(line {line_b}); register each instance on one consumer first"
        )
    return None


SHAPE = Shape(
    name="optional listeners",
    planner="listeners",
    recognises=(
        "a listener= variable or self.<attr> bound only to None and to one Cls(...) "
        "(a if t else None, None then Cls(...) in a branch, None in __init__ then Cls(...) "
        "in the subscribing method), registered on one consumer"
    ),
    plan=(
        "the class's plan, its creation registered on the holder's consumer; each "
        "registration split (set_rebalance_listener(c, None) removes any listener, as "
        "subscribe(listener=None) does)"
    ),
    fixtures=(
        "tests/codemods/test_optional_listeners.py",
        "tests/codemods/fixtures/optional_listener_kafka_python.py",
        "tests/codemods/fixtures/optional_listener_aiokafka.py",
        "tests/codemods/fixtures/optional_listener_attribute.py",
    ),
)
