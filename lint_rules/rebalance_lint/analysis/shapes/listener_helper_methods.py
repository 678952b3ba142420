"""Shape: a listener whose injected consumer (``self.consumer = consumer``) its callbacks use
through a helper method of the listener (``await self.reset_offsets()``, ``self._assign(p)``
whose body calls ``self.consumer.seek(...)``).

Each method of the listener class (not a callback) that uses ``self.<attr>``, directly or
through another such method, and that a callback calls, gets a keyword-only parameter (typed
``RebalanceConsumer`` where the method is annotated) used instead of ``self.<attr>``; each call
passes the callback's view (or, between helpers, the caller's parameter). Then nothing uses
the injection any more, and it goes as when only the callbacks use it
(:mod:`.injected_consumer`). Only when all of it is provable: ``self.<attr>`` in those methods
only calls what the view offers as written (:func:`.view_uses._view_use`, the decision the
callbacks get), in their own body (not a nested function or generator); every reference to
such a method in the file is ``self.<method>(...)`` (awaited where it is a coroutine) in the
own body of a callback of the class or of another such method (a subclass in the file, which
could override it, already keeps the class as it is: :mod:`.listener_creations`); it is not
decorated, a generator or taking ``**kwargs``, and does not call a callback.
Otherwise the injection is kept as before and the site names the blocking use."""

from __future__ import annotations

import ast
from typing import NamedTuple

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
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.helpers_take_view import _deferred
from rebalance_lint.analysis.shapes.owner_method_takes_view import _chain, _reaching
from rebalance_lint.analysis.shapes.view_keywords import stage_view_keywords
from rebalance_lint.analysis.shapes.view_uses import _view_use
from rebalance_lint.analysis.walk import is_generator

Function = ast.FunctionDef | ast.AsyncFunctionDef


class HelperMethods(NamedTuple):
    """What the helper methods the callbacks call need (:data:`.injected_consumer.Helpers`):
    ``covered``, the ``self.<attr>`` uses in them (the injection no longer needs to outlive the
    callbacks for those); ``plan``, their edits (merged only when the injection goes);
    ``blocked``, why it cannot (a whole refusal)."""

    covered: frozenset[ast.AST]
    plan: MigrationPlan
    blocked: str | None


def helper_methods(
    cls: ast.ClassDef,
    client: ClientFacts,
    attr: str,
    views: dict[Function, str],
    facts: FileFacts,
) -> HelperMethods:
    """The methods of ``cls`` the callbacks (``views``: each with its view's name) call that
    reach the injected ``self.<attr>``, their edits, or why they cannot take the view."""
    own = {n: f for n, f in methods_of(cls).items() if f not in views and n != "__init__"}
    reaching = _reaching(own, attr, facts)
    start = {own[name] for fn in views for name in _self_calls(fn, reaching)}
    chain = _chain(start, own, reaching)
    if not chain:
        return HelperMethods(frozenset(), MigrationPlan(), None)
    ordered = sorted(chain, key=lambda method: method.lineno)
    covered = frozenset(node for method in ordered for node in _uses(method, attr))
    for method in ordered:
        why = _method_refusal(method, cls, client, attr, own, facts)
        if why is None:
            why = _references_refusal(method, cls, views, chain, facts)
        if why is not None:
            uses = _uses(method, attr)
            line = min(node.lineno for node in uses) if uses else method.lineno
            return HelperMethods(covered, MigrationPlan(), _kept(cls, line, method, why))
    return HelperMethods(covered, _plan(cls, client, attr, views, ordered, facts), None)


def _kept(cls: ast.ClassDef, line: int, method: Function, why: str) -> str:
    return (
        f"the consumer injected into {cls.name}() is also used at line {line}, in "
        f"{method.name}(), which a callback calls, and {why}; kept (the callbacks now use the "
        f"view, {method.name}() the injected consumer), remove it by hand"
    )


def _self_calls(fn: Function, names: set[str]) -> set[str]:
    """The methods of ``names`` that ``fn`` calls as ``self.<name>(...)``."""
    me = first_param(fn)
    return {
        node.func.attr
        for node in ast.walk(fn)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and self_attr(node.func, me) in names
    }


def _uses(method: Function, attr: str) -> list[ast.Attribute]:
    me = first_param(method)
    return [
        n for n in ast.walk(method) if isinstance(n, ast.Attribute) and self_attr(n, me) == attr
    ]


def _method_refusal(
    method: Function,
    cls: ast.ClassDef,
    client: ClientFacts,
    attr: str,
    own: dict[str, Function],
    facts: FileFacts,
) -> str | None:
    """Why ``method`` itself cannot take the view (completing "... and ")."""
    name = method.name
    if method.decorator_list:
        return f"{name}() is decorated, which may change how it is called"
    if is_generator(method):
        return f"{name}() is a generator, whose body may run after the callback returned"
    if method.args.kwarg is not None:
        return f"{name}() takes **{method.args.kwarg.arg}, which a call may fill with a consumer"
    if view_name(method) is None:
        return f"{name}() already uses every name the codemod would give the consumer parameter"
    me = first_param(method)
    for node in ast.walk(method):
        if isinstance(node, ast.Attribute) and self_attr(node, me) in CALLBACK_METHODS:
            return (
                f"{name}() uses the callback self.{node.attr} (line {node.lineno}), which would "
                "then need a consumer passed too"
            )
    for node in _uses(method, attr):
        if _deferred(node, method, facts):
            return (
                f"{name}() uses self.{attr} in a nested function or generator (line "
                f"{node.lineno}), which may run after the callback"
            )
        if _view_use(node, client, facts) is not None:
            return (
                f"{name}() uses self.{attr} other than to call a method the view offers as "
                f"written (line {node.lineno})"
            )
    return None


def _references_refusal(
    method: Function,
    cls: ast.ClassDef,
    views: dict[Function, str],
    chain: set[Function],
    facts: FileFacts,
) -> str | None:
    """Why a reference to ``method`` in the file is not a call passing the view (completing
    "... and ")."""
    name = method.name
    for node in facts.index.attributes.get(name, []):
        owner = self_class(node.value, facts)
        if owner is not None and owner is not cls and not _derives(owner, cls):
            continue  # another class's own method of that name
        if owner is not cls:  # (a subclass here: the class is refused before, kept_listeners)
            return (
                f"{name} is also read from {ast.unparse(node.value)} at line {node.lineno}, "
                f"which the codemod cannot tell from an instance of {cls.name}"
            )
        call = facts.parent(node)
        if not (isinstance(call, ast.Call) and call.func is node):
            return f"self.{name} is used without calling it at line {node.lineno}"
        caller = _caller(call, cls, facts)
        if caller is None or (caller not in views and caller not in chain):
            where = f"{caller.name}(), no callback" if caller else "a nested function"
            return (
                f"{name}() is also called at line {node.lineno} from {where}, where no view "
                "is at hand"
            )
        if _deferred(call, caller, facts):
            return f"{name}() is called in a nested function or generator at line {node.lineno}"
        if isinstance(method, ast.AsyncFunctionDef) and not isinstance(
            facts.parent(call), ast.Await
        ):
            return (
                f"the coroutine {name}() is not awaited at line {node.lineno}, so it may run "
                "after the view expired"
            )
    for other in ast.walk(facts.tree):  # getattr(self, "name"), ``alias = name`` in the class
        if isinstance(other, ast.Constant) and other.value == name:
            return f"its name is a string at line {other.lineno} (getattr?), which may call it"
        if isinstance(other, ast.Name) and other.id == name:
            return f"the name {name} is used at line {other.lineno}, which may be that method"
    return None


def _derives(owner: ast.ClassDef, cls: ast.ClassDef) -> bool:
    return cls.name in {ast.unparse(base).rpartition(".")[2] for base in owner.bases}


def _caller(call: ast.Call, cls: ast.ClassDef, facts: FileFacts) -> Function | None:
    """The method of ``cls`` whose body (maybe a nested function of it) holds ``call``."""
    node: ast.AST | None = facts.parent(call)
    while node is not None and not (
        isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node in cls.body
    ):
        node = facts.parent(node)
    return node if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) else None


def _plan(
    cls: ast.ClassDef,
    client: ClientFacts,
    attr: str,
    views: dict[Function, str],
    ordered: list[Function],
    facts: FileFacts,
) -> MigrationPlan:
    """Each helper takes ``*, <name>`` used for ``self.<attr>``; each call passes the view."""
    plan = MigrationPlan()
    names: dict[Function, str] = {}
    for method in ordered:
        name = view_name(method)
        assert name is not None  # _method_refusal
        names[method] = name
    passing = {**views, **names}
    for method in ordered:
        for node in _uses(method, attr):
            plan.edit(Edit("replace_with_name", span(node), value=names[method]))
        for node in facts.index.attributes.get(method.name, []):
            call = facts.parent(node)
            if self_class(node.value, facts) is cls and isinstance(call, ast.Call):
                caller = _caller(call, cls, facts)
                assert caller is not None  # _references_refusal
                plan.edit(
                    Edit("set_keyword", span(call), value=names[method], extra=passing[caller])
                )
    ordered_names = {method: names[method] for method in ordered}
    stage_view_keywords(ordered_names, client, facts, plan, required=True)  # view_keywords
    return plan


SHAPE = Shape(
    name="listener helper methods taking the view",
    planner="listeners",
    recognises=(
        "a method of a listener class with an injected consumer, called as self.<method>() "
        "from its callbacks, using self.<consumer> only to call what the view offers"
    ),
    plan=(
        "keyword_param (*, consumer: RebalanceConsumer, required) + replace_with_name "
        "(self.<consumer> -> consumer) + set_keyword (consumer=<the view>) at each call; the "
        "injection then goes (:mod:`.injected_consumer`)"
    ),
    fixtures=(
        "tests/codemods/test_listener_helper_methods.py",
        "tests/codemods/fixtures/listener_helper_methods.py",
        "tests/codemods/fixtures/listener_helper_methods_aiokafka.py",
    ),
)
