"""Shape: a listener class registering itself on a consumer its own factory method creates
and returns, which the class stores (REAL_WORLD.md: a wrapper that is its own listener)::

    async def _consumer_factory(self):
        consumer = self._app.consumer_factory(self.group_id)
        consumer.subscribe(topics=[topic], listener=self)
        return consumer

    async def initialize(self):
        self._consumer = await self._consumer_factory()

``self._consumer`` then holds the consumer the listener is registered on, exactly as a
wrapper subscribing on ``self._consumer`` itself (:mod:`.own_consumer_wrappers`, which
plans it from here). Only where that is certain: the consumer is a local variable bound once
in the factory, every ``return`` of the factory (which ends with one) returns it, the factory
is only called by the class's own methods as ``self.<attr> = [await] self.<factory>()``, all
storing into one attribute, and nothing else in the file stores that attribute.
"""

from __future__ import annotations

import ast

from rebalance_lint.analysis.migration_facts import FileFacts, own_returns, self_attr, self_class
from rebalance_lint.analysis.shape import Shape


def stored_factory_attr(receiver: str, self_arg: ast.Name, facts: FileFacts) -> str | None:
    """The attribute the factory's registered consumer ``receiver`` is stored in, or None."""
    cls = self_class(self_arg, facts)
    factory = next(
        (
            node
            for node in facts.bindings.ancestors(self_arg)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        ),
        None,
    )
    if cls is None or factory is None or factory not in cls.body or "." in receiver:
        return None
    returns = own_returns(factory)
    if not any(factory.body[-1] is r for r in returns) or not all(
        isinstance(r.value, ast.Name) and r.value.id == receiver for r in returns
    ):
        return None  # a path that returns something else, or nothing
    local = returns[0].value
    assert isinstance(local, ast.Name)
    bound = facts.bindings.binding(local)
    if bound is None or facts.bindings.references(bound, receiver) is None:
        return None  # bound more than once (or not a local of the factory)
    attrs: set[str] = set()
    stores: list[ast.AST] = []
    for node in facts.index.attributes.get(factory.name, []):
        target = _stored_into(node, cls, facts)
        if target is None:
            return None
        attrs.add(target[0])
        stores.append(target[1])
    if len(attrs) != 1:
        return None
    attr = attrs.pop()
    for node in facts.index.attributes.get(attr, []):
        if isinstance(node.ctx, ast.Store | ast.Del) and not any(node is s for s in stores):
            return None
    return attr


def _stored_into(
    node: ast.Attribute, cls: ast.ClassDef, facts: FileFacts
) -> tuple[str, ast.Attribute] | None:
    """(attr, the target) for ``self.<attr> = [await] self.<factory>()`` in a method of ``cls``."""
    call = facts.parent(node)
    if not (
        isinstance(node.value, ast.Name)
        and self_class(node.value, facts) is cls
        and isinstance(call, ast.Call)
        and call.func is node
        and not call.args
        and not call.keywords
    ):
        return None
    value: ast.AST = call
    parent = facts.parent(call)
    if isinstance(parent, ast.Await):
        value, parent = parent, facts.parent(parent)
    if not (
        isinstance(parent, ast.Assign)
        and parent.value is value
        and len(parent.targets) == 1
        and isinstance(parent.targets[0], ast.Attribute)
    ):
        return None
    target = parent.targets[0]
    attr = self_attr(target, node.value.id)
    return (attr, target) if attr is not None else None


SHAPE = Shape(
    name="factory-stored own consumer",
    planner="listeners",
    recognises=(
        "listener=self on a local consumer of a factory method returning it, stored only as "
        "self.<attr> = [await] self.<factory>()"
    ),
    plan="as own-consumer wrappers on self.<attr> (replace_with_name in the callbacks)",
    fixtures=(
        "tests/codemods/test_factory_stored_consumer.py",
        "tests/codemods/fixtures/factory_stored_consumer.py",
    ),
)
