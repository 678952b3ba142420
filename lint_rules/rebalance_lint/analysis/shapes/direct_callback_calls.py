"""Shape: a listener's callback methods called directly, with the old arity
(REAL_WORLD.md: tests and wrappers calling ``listener.on_partitions_assigned([tp])``,
``self.on_partitions_revoked(self.assignment())`` after a manual assign).

Migrated, the methods take the view as a second argument. Where a callback of the class
calls another of its own callbacks through ``self`` (``self.on_partitions_revoked(lost)`` in
``on_partitions_lost``), the view is in scope: the call passes it along, by the target's
parameter name (``self.on_partitions_revoked(lost, consumer=consumer)``). A wrapper that is
its own listener on ``self.<consumer>`` (:mod:`.own_consumer_wrappers`) calling its callback
from another method (``self.on_partitions_revoked(self._consumer.assignment())`` on shutdown)
passes that consumer (``consumer=self._consumer``): the callback's ``self._consumer`` became
that parameter, so it does what it did. A test in another module goes through the listener
test harness (:mod:`.harness_direct_calls`). A callback calling the base's own through
``super()`` (``return super().on_partitions_assigned(assigned)``, held_out_9 014) on a class
whose one base is the client's listener base (which becomes ``RebalanceListener``, whose
methods take the view positionally, or a migrated listener class of the file in a subclass's
order) passes the view as the second argument. A callback handing its partitions on to
another object's callback (``self.inner.on_partitions_assigned(assigned)``: a wrapper chaining
to the listener it was given) calls it through rebalance_guard's ``chain_callback``, which
passes the view only where that object is a migrated listener whose method takes it (so it
may even be an instance of this class), the partitions alone otherwise, as before; a
``super()`` call in another class whose bases are all the client's never reaches this class.
Any other direct call (from a method that is no callback, a nested function that may run
after the view expired, with keywords or ``*args``) is refused: it would raise a TypeError,
and the listener bases never get a one-argument method (the type checker would then accept
the old arity).
"""

from __future__ import annotations

import ast
from typing import Literal, NamedTuple

from rebalance_guard._client_facts import CALLBACK_METHODS as CALLBACKS

from rebalance_lint.analysis.clients import client_listener_base
from rebalance_lint.analysis.migration_facts import FileFacts, first_param, methods_of
from rebalance_lint.analysis.shape import Shape

Function = ast.FunctionDef | ast.AsyncFunctionDef


class Passing(NamedTuple):
    """A call to pass the view along: ``kind`` "self" (a callback of the class, by the
    ``target``'s parameter name), "super" (the base's, positionally) or "chain" (another
    object's, through rebalance_guard's ``chain_callback``); ``caller``: the callback making
    it, or None for a method of the class that is no callback (it passes the wrapper's own
    consumer; "self" only)."""

    call: ast.Call
    kind: Literal["self", "super", "chain"]
    target: Function | None
    caller: Function | None


def direct_calls(cls: ast.ClassDef, facts: FileFacts) -> tuple[str | None, list[Passing]]:
    """Why ``cls`` cannot change arity (any ``.on_partitions_*`` attribute of the file,
    whatever object it is read from, is a direct use of a callback), unless each is one of
    its callbacks calling another through ``self``: then those calls, to pass the view."""
    passing: list[Passing] = []
    for attr in CALLBACKS:
        for node in facts.index.attributes.get(attr, []):
            if _client_base_through_super(node, cls, facts):
                continue  # another class's super() call: it never reaches cls
            found = (
                _through_self(node, cls, facts)
                or _through_super(node, cls, facts)
                or _chained(node, cls, facts)
            )
            if found is None:
                return _why_not(attr, node, _chained_elsewhere(node, cls, facts)), []
            passing.append(found)
    return None, passing


def outside_callbacks(call: ast.Call, own_attr: str | None) -> tuple[str, str | None]:
    """For ``self.<callback>(partitions)`` in a method that is no callback: (the consumer
    expression to pass, or None and why not). A wrapper that is its own listener on
    ``self.<attr>`` (:mod:`.own_consumer_wrappers`, whose callbacks' ``self.<attr>`` became
    the view) passes that very consumer: the callback then does what it did before."""
    assert isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)
    if own_attr is not None:
        return f"{call.func.value.id}.{own_attr}", None
    return "", _why_not(call.func.attr, call.func)


def _why_not(attr: str, node: ast.Attribute, chained_by: str | None = None) -> str:
    """The refusal for a direct call no view can be passed to, with why and the next step."""
    where = f"{attr} is called directly at line {node.lineno}, with one argument"
    receiver = ast.unparse(node.value)
    if chained_by is not None:
        return (
            f"{where}, by {chained_by}, whose migration hands it the partitions alone "
            "(through chain_callback) while this class is not migrated, as before; the class "
            "can stay a client listener, or take the view once every call of its callbacks "
            "passes one (pass it by hand)"
        )
    if receiver == "self":
        how = (
            "on self, outside a callback of this class, where no view exists to pass (only "
            "a wrapper that is its own listener on self.<consumer> passes that consumer)"
        )
    else:
        how = f"on {receiver}, which the codemod cannot tell from an instance of this class"
    return (
        f"{where} ({how}; migrated, its {attr} takes the view too, and in another module's "
        "test rebalance-guard migrate DIR drives it through the listener test harness); move "
        "that code into a helper method both call, or give the other object's method another "
        "name, first"
    )


def _through_self(node: ast.Attribute, cls: ast.ClassDef, facts: FileFacts) -> Passing | None:
    """``self.<callback>(partitions)`` in a method of ``cls`` itself (not in a function nested
    in it), calling a callback ``cls`` defines: from a callback (the view is in scope), or from
    another method (REAL_WORLD.md's ``self.on_partitions_revoked(self.assignment())`` in a
    wrapper: :func:`outside_callbacks` decides)."""
    methods = methods_of(cls)
    call = _partitions_call(node, facts)
    target = methods.get(node.attr)
    caller = _caller(node, facts)
    if not (
        call is not None
        and target is not None
        and isinstance(caller, ast.FunctionDef | ast.AsyncFunctionDef)
        and methods.get(caller.name) is caller
        and isinstance(node.value, ast.Name)
        and node.value.id == first_param(caller)
    ):
        return None
    return Passing(call, "self", target, caller if caller.name in CALLBACKS else None)


def _through_super(node: ast.Attribute, cls: ast.ClassDef, facts: FileFacts) -> Passing | None:
    """``super().<callback>(partitions)`` in a callback of ``cls`` itself, ``cls`` having one
    base, the client's (not async) listener base: the call then gets the view appended."""
    call = _partitions_call(node, facts)
    caller = _callback_of(node, cls, facts)
    if not (
        _bare_super(node.value, facts)
        and call is not None
        and caller is not None
        and len(cls.bases) == 1
        and not cls.keywords
    ):
        return None
    qualname = facts.imports.resolve(cls.bases[0])
    base = client_listener_base(qualname) if qualname else None
    if base is None or base[1]:
        return None
    return Passing(call, "super", None, caller)


def _client_base_through_super(node: ast.Attribute, cls: ast.ClassDef, facts: FileFacts) -> bool:
    """``super().<callback>(...)`` in a method of another class of the file whose every base is
    a client's listener base: its method resolution order holds no class of the file, so the
    call never reaches ``cls``'s methods (that class's own plan passes its view, if any)."""
    if not _bare_super(node.value, facts):
        return False
    owner = next((a for a in facts.bindings.ancestors(node) if isinstance(a, ast.ClassDef)), None)
    if owner is None or owner is cls or owner.keywords or not owner.bases:
        return False
    for base in owner.bases:
        qualname = facts.imports.resolve(base)
        if qualname is None or client_listener_base(qualname) is None:
            return False
    return True


def _chained_elsewhere(node: ast.Attribute, cls: ast.ClassDef, facts: FileFacts) -> str | None:
    """``Class.callback()`` naming the callback of another class of the file whose plan
    chains this call (:func:`_chained`), or None."""
    owner = next((a for a in facts.bindings.ancestors(node) if isinstance(a, ast.ClassDef)), None)
    if owner is None or owner is cls or _chained(node, owner, facts) is None:
        return None
    caller = _caller(node, facts)
    assert isinstance(caller, ast.FunctionDef | ast.AsyncFunctionDef)
    return f"{owner.name}.{caller.name}()"


def _chained(node: ast.Attribute, cls: ast.ClassDef, facts: FileFacts) -> Passing | None:
    """``<other>.<callback>(partitions)`` in a callback of ``cls`` itself (the view in scope),
    on any object but its own ``self``: a wrapper chaining to another listener
    (``self.inner.on_partitions_assigned(assigned)``). rebalance_guard's ``chain_callback``
    then calls it with the view where that object is a migrated listener (which may be an
    instance of ``cls`` itself) and with the partitions alone otherwise, as before."""
    call = _partitions_call(node, facts)
    caller = _callback_of(node, cls, facts)
    if not (
        call is not None
        and caller is not None
        and not (isinstance(node.value, ast.Name) and node.value.id == first_param(caller))
        and not (isinstance(node.value, ast.Call) and ast.unparse(node.value.func) == "super")
    ):
        return None
    return Passing(call, "chain", None, caller)


def _partitions_call(node: ast.Attribute, facts: FileFacts) -> ast.Call | None:
    """The call ``node`` makes with the partitions alone: one positional argument (not
    ``*args``), no keywords; None for any other use of the attribute."""
    call = facts.parent(node)
    if (
        isinstance(call, ast.Call)
        and call.func is node
        and len(call.args) == 1
        and not isinstance(call.args[0], ast.Starred)
        and not call.keywords
    ):
        return call
    return None


def _callback_of(node: ast.AST, cls: ast.ClassDef, facts: FileFacts) -> Function | None:
    """The callback of ``cls`` itself that ``node`` is directly in (no nested function or
    lambda between them, which could run after the view expired), or None."""
    caller = _caller(node, facts)
    if (
        isinstance(caller, ast.FunctionDef | ast.AsyncFunctionDef)
        and caller.name in CALLBACKS
        and methods_of(cls).get(caller.name) is caller
    ):
        return caller
    return None


def _bare_super(expr: ast.expr, facts: FileFacts) -> bool:
    """``super()`` with no arguments, the builtin (not a name the file rebinds)."""
    return (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Name)
        and expr.func.id == "super"
        and not expr.args
        and not expr.keywords
        and facts.bindings.binding(expr.func) is None
    )


def _caller(node: ast.AST, facts: FileFacts) -> ast.AST | None:
    """The innermost scope around ``node`` that may run later: a def, a lambda, a generator."""
    return next(
        (
            n
            for n in facts.bindings.ancestors(node)
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.GeneratorExp)
        ),
        None,
    )


SHAPE = Shape(
    name="direct callback calls",
    planner="listeners",
    recognises=(
        "an attribute named on_partitions_assigned/revoked/lost anywhere in the file "
        "(FileIndex.attributes)"
    ),
    plan=(
        "set_keyword (the view, by the called method's parameter name) for a callback "
        "calling another of its class through self; append_arg (the view) for one calling the "
        "client base's through super(); chain_call (rebalance_guard.chain_callback) for one "
        "calling another object's; else a refusal"
    ),
    fixtures=(
        "tests/codemods/test_refusals.py",
        "tests/codemods/test_direct_callback_calls.py",
        "tests/codemods/test_chained_listeners.py",
        "tests/codemods/fixtures/wrapper_calls_its_callback.py",
        "tests/codemods/fixtures/chained_listener.py",
    ),
)
