"""Shape: a lambda registered next to the owner's bound methods (REAL_WORLD.md's owner shape,
mixed: ``subscribe(topics, on_assign=self.on_assign_cb, on_revoke=lambda consumer,
partitions: logger.info(f"{self.topic}: revoked {len(partitions)}"))`` in a method of the
owner).

The owner becomes its own listener (:mod:`.owner_callbacks`) and the lambda one more of its
methods, named by its role (``on_partitions_revoked(self, partitions: list[TopicPartition],
consumer: RebalanceConsumer) -> None``, the lambda's parameter names kept, its body a
statement: :mod:`.lambdas`' method, placed after the method the lambda was written in). The
listener registered is that method's ``self``, so the method is the same callback where every
name the lambda reads is its own parameter, that ``self``, or a module-level or builtin name
(looked up when called, in both). Refused with the next step: a name of the enclosing
function (a closure: its value would have to be stored on ``self`` first), a lambda written
outside the owner's methods, a role name the class or an in-file base already binds or its
instances already use, ``super``/``__class__``/``yield`` (they mean another thing in a
method), and a consumer used beyond the view (:func:`.callback_takes_view._check_callback`
decides, as for every callback).

A lambda that only calls a method of the owner with its two parameters in order (``lambda c,
p: self._on_revoke(c, p)``) is that bound method in disguise and is registered as it
(:func:`disguised_method`); on an AIOConsumer, which awaits what a callback returns, that is
the async method's coroutine, so the same. Every other lambda on an AIOConsumer is refused:
it returns no coroutine of its own to await."""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence

from rebalance_guard._client_facts import CONFLUENT, ClientFacts
from rebalance_guard._client_facts import SUBSCRIBE_CALLBACKS as CONFLUENT_CALLBACKS

from rebalance_lint.analysis.confluent_callback import Function, _Callback
from rebalance_lint.analysis.edits import Edit, LambdaMethod, MigrationPlan, span
from rebalance_lint.analysis.migration_facts import (
    FileFacts,
    guard_name,
    self_class,
    takes_no_self,
)
from rebalance_lint.analysis.model import dotted
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.callback_takes_view import _assigns_itself, _plan_callback
from rebalance_lint.analysis.shapes.inherited_owner_callbacks import _names_bound
from rebalance_lint.analysis.shapes.lambdas import _lambda_tail

#: Names a lambda's body may not read: in a method they mean another thing (zero-argument
#: ``super()`` takes the function's first parameter, the consumer in the lambda).
_CHANGES_MEANING = frozenset({"super", "__class__"})


def disguised_method(value: ast.expr, facts: FileFacts) -> ast.Attribute | None:
    """``self.m`` where ``value`` is ``lambda c, p: self.m(c, p)`` with ``self`` the owner in
    one of its methods: calling the lambda is calling that bound method (looked up when
    called; the owner shape renames it only where nothing rebinds it)."""
    if not isinstance(value, ast.Lambda):
        return None
    args, body = value.args, value.body
    if (
        args.posonlyargs
        or args.kwonlyargs
        or args.vararg
        or args.kwarg
        or args.defaults
        or len(args.args) != 2
        or not isinstance(body, ast.Call)
        or body.keywords
        or not isinstance(body.func, ast.Attribute)
        or not isinstance(body.func.value, ast.Name)
        or [getattr(a, "id", None) for a in body.args] != [a.arg for a in args.args]
    ):
        return None
    return body.func if self_class(body.func.value, facts) is not None else None


def check_lambdas(
    lambdas: Mapping[str, ast.Lambda],
    owner: ast.ClassDef,
    receivers: Sequence[ast.Name],
    client: ClientFacts,
    facts: FileFacts,
) -> str | None:
    """Why a lambda of ``lambdas`` (keyword -> lambda), registered at one call with bound
    methods of ``owner`` reached through ``receivers``, cannot become a method of ``owner``."""
    for keyword, lam in lambdas.items():
        if client.async_callbacks:
            return (
                f"{keyword}= is a lambda, and AIOConsumer awaits what its callbacks return: "
                "only one returning an async method's coroutine (lambda c, p: self.m(c, p)) "
                f"is that method; make it an async def method of {owner.name} taking (self, "
                f"consumer, partitions) and register self.<method>, then run migrate again"
            )
        method = _enclosing_method(lam, facts)
        if method is None or facts.parent(method) is not owner:
            return (
                f"the {keyword}= lambda is not written in a method of {owner.name}, whose "
                "methods are the other callbacks and which becomes the listener; make it a "
                f"method of {owner.name} taking (self, consumer, partitions) and register "
                "self.<method> instead, then run migrate again"
            )
        self_arg = method.args.args[0]
        if any(facts.bindings.binding(r) is not self_arg for r in receivers):
            return (
                f"the {keyword}= lambda and the other callbacks reach {owner.name} through "
                f"different names; register them all through {self_arg.arg} first"
            )
        if self_arg.arg in (a.arg for a in lam.args.args):
            return (
                f"the {keyword}= lambda names a parameter {self_arg.arg}, the name of "
                f"{owner.name}'s instance in {method.name}; rename that parameter first"
            )
        reason = _closure(keyword, lam, method, self_arg, facts)
        if reason is not None:
            return reason
    return None


def _enclosing_method(lam: ast.Lambda, facts: FileFacts) -> Function | None:
    """The method of a class the lambda is written in (through nested functions), taking
    its instance first (not a staticmethod or classmethod)."""
    for node in facts.bindings.ancestors(lam):
        if isinstance(node, ast.ClassDef):
            return None
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and isinstance(
            facts.parent(node), ast.ClassDef
        ):
            if not node.args.args or any(takes_no_self(d) for d in node.decorator_list):
                return None
            return node
    return None


def _closure(
    keyword: str,
    lam: ast.Lambda,
    method: Function,
    self_arg: ast.arg,
    facts: FileFacts,
) -> str | None:
    """Why a name the lambda reads would not mean the same in a method of the class: each must
    be its own, ``self_arg``, or module-level or builtin."""
    module = facts.bindings.module
    for node in ast.walk(lam.body):
        if isinstance(node, ast.Yield | ast.YieldFrom):
            return (
                f"the {keyword}= lambda yields (line {node.lineno}), which makes it a "
                "generator that never runs; drop the yield first"
            )
        if not isinstance(node, ast.Name) or isinstance(node.ctx, ast.Store):
            continue
        if node.id in _CHANGES_MEANING:
            return (
                f"the {keyword}= lambda uses {node.id} (line {node.lineno}), which means "
                "another thing in a method; write it as a method by hand"
            )
        for binding in facts.bindings.visible(node):
            scope = facts.bindings.scope_at.get(binding)
            inner = scope is not None and (
                scope.node is lam or lam in facts.bindings.ancestors(scope.node)
            )
            if binding is self_arg or scope is module or inner:
                continue
            return (
                f"the {keyword}= lambda reads {node.id} (line {node.lineno}), a local or "
                f"parameter of {method.name}, which a method of the class cannot see; store "
                f"{node.id} on {self_arg.arg} first (and read {self_arg.arg}.{node.id} in the "
                "lambda), then run migrate again"
            )
    return None


def plan_owner_lambdas(
    owner: ast.ClassDef,
    lambdas: Mapping[str, ast.Lambda],
    calls: Sequence[tuple[ast.Call, str]],
    client: ClientFacts,
    facts: FileFacts,
    plan: MigrationPlan,
) -> str | None:
    """Check each lambda's role name and its consumer's uses (the view's decision)."""
    for keyword, lam in lambdas.items():
        name = CONFLUENT_CALLBACKS[keyword]
        taken = _member_named(owner, name, facts)
        if taken is not None:
            return (
                f"{owner.name} already has a member {name} (line {taken}), the name the "
                f"{keyword}= lambda would take as a method; rename that member first, then "
                "run migrate again"
            )
        callback = _Callback(keyword, lam)
        reason = _plan_callback(callback, client, facts, plan)
        for call, _ in calls:
            assert isinstance(call.func, ast.Attribute)
            reason = reason or _assigns_itself(callback, dotted(call.func.value), facts)
        if reason is not None:
            return reason
    return None


def _member_named(owner: ast.ClassDef, name: str, facts: FileFacts) -> int | None:
    """The line where ``owner``, an in-file base of it, or ``self.<name>`` in its methods
    already uses ``name``."""
    for node in facts.index.attributes.get(name, []):
        if isinstance(node.value, ast.Name) and self_class(node.value, facts) is owner:
            return node.lineno
    seen: set[ast.ClassDef] = set()
    pending = [owner]
    while pending:
        cls = pending.pop()
        if cls in seen:
            continue
        seen.add(cls)
        if name in _names_bound(cls):
            return cls.lineno
        for base in cls.bases:
            parent = facts.bindings.binding(base) if isinstance(base, ast.Name) else None
            if isinstance(parent, ast.ClassDef):
                pending.append(parent)
    return None


def stage_owner_lambdas(
    lambdas: Mapping[str, ast.Lambda],
    protocol: str,
    facts: FileFacts,
    taken: set[str],
    plan: MigrationPlan,
) -> None:
    """After the method the lambdas are written in: a method per lambda, in role order."""
    if not lambdas:
        return
    partitions = guard_name(facts, taken, CONFLUENT.package, "TopicPartition", plan)
    methods: list[LambdaMethod] = []
    target = None
    for keyword in CONFLUENT_CALLBACKS:
        lam = lambdas.get(keyword)
        if lam is None:
            continue
        method = _enclosing_method(lam, facts)
        assert method is not None  # check_lambdas
        target = method
        tail = _lambda_tail(_Callback(keyword, lam), facts)
        methods.append(
            LambdaMethod(
                span(lam),
                CONFLUENT_CALLBACKS[keyword],
                method.args.args[0].arg,
                f"list[{partitions}]",
                tail,
            )
        )
    assert target is not None
    plan.edit(Edit("lambda_methods", span(target), annotation=protocol, lambdas=tuple(methods)))


SHAPE = Shape(
    name="owner lambdas",
    planner="confluent",
    recognises=(
        "a lambda registered with the owner's bound methods, written in a method of the "
        "owner, reading only its parameters, that method's self and module-level or builtin "
        "names; lambda c, p: self.m(c, p) is self.m"
    ),
    plan="lambda_methods (after the method it was written in) with the owner's add_base",
    fixtures=(
        "tests/codemods/test_owner_lambdas.py",
        "tests/codemods/fixtures/owner_lambdas.py",
        "tests/codemods/fixtures/owner_lambdas_disguised.py",
        "tests/codemods/fixtures/owner_lambdas_aio.py",
    ),
)
