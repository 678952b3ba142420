"""Which expressions hold a Kafka consumer: variables, ``self`` attributes, properties.

Evidence, strongest first: built from a client's consumer class (directly or by a factory
function of the file that returns one or is annotated to); a parameter annotated with one;
a parameter or attribute whose name says "consumer" (``consumer``, ``_consumer``,
``kafka_consumer``); a property returning one of these.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from rebalance_lint.analysis.clients import Client, client_helper_class, consumer_class
from rebalance_lint.analysis.collect import Facts, FunctionNode, Scope, all_params
from rebalance_lint.analysis.model import consumerish, dotted

_PROPERTY_DECORATORS = frozenset({"property", "cached_property"})


class Consumers:
    """Consumer-holding names per scope and consumer-holding attributes per class."""

    def __init__(
        self, facts: Facts, base_client: Callable[[ast.expr], Client | None] | None = None
    ) -> None:
        """``base_client``: the client of a base class defined in another module of the
        repository (repository mode), for consumer subclasses of consumer subclasses."""
        self._facts = facts
        self._names: dict[str, list[tuple[Client | None, Scope]]] = {}
        self._attrs: dict[ast.ClassDef, dict[str, Client | None]] = {}
        self._consumer_classes: dict[ast.ClassDef, Client] = {}
        #: names and ``self`` attributes built by a client's non-consumer class
        self._helper_names: list[tuple[str, Scope]] = []
        self._helper_attrs: set[tuple[ast.ClassDef, str]] = set()
        for cls, _scope in facts.classes:
            for base in cls.bases:
                client = self._ctor_client(base)
                if client is None and base_client is not None:
                    client = base_client(base)
                if client is not None:
                    self._consumer_classes[cls] = client
        for target, value, scope in facts.bindings:
            self._bind(target, value, scope)
        for cls in list(self._attrs) + [c for c, _ in facts.classes]:
            self._add_properties(cls)

    # -- evidence -------------------------------------------------------------------
    def _ctor_client(self, func: ast.expr) -> Client | None:
        qualname = self._facts.imports.resolve(func)
        return consumer_class(qualname) if qualname else None

    def annotation_client(self, annotation: ast.expr | None) -> Client | None:
        """The client of a ``KafkaConsumer`` / ``"Consumer"`` / ``Optional[...]`` annotation."""
        while isinstance(annotation, ast.Subscript):
            annotation = annotation.slice
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            try:
                annotation = ast.parse(annotation.value, mode="eval").body
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                return None
        if isinstance(annotation, ast.BinOp):  # Consumer | None
            return self.annotation_client(annotation.left) or self.annotation_client(
                annotation.right
            )
        return self._ctor_client(annotation) if isinstance(annotation, ast.expr) else None

    def param_client(self, arg: ast.arg) -> tuple[bool, Client | None]:
        """(holds a consumer?, its client) for a parameter, from its annotation or its name.

        A name that says "consumer" counts unless the annotation says plain data
        (``consumer: str`` is a consumer group's name, not a consumer).
        """
        client = self.annotation_client(arg.annotation)
        if client is not None:
            return True, client
        return consumerish(arg.arg) and not _plain_data(arg.annotation), None

    def _value_client(self, value: ast.expr, scope: Scope) -> tuple[bool, Client | None]:
        """(holds a consumer?, its client) for the right-hand side of a binding."""
        if isinstance(value, ast.Call):
            client = self._ctor_client(value.func)
            if client is None and isinstance(value.func, ast.Name):
                factory = scope.lookup_function(value.func.id)
                client = self._factory_client(factory) if factory is not None else None
            return client is not None, client
        if isinstance(value, ast.Name):
            param = param_named(scope, value.id)
            if param is not None:
                return self.param_client(param)
        return False, None

    def _factory_client(self, factory: FunctionNode) -> Client | None:
        """The client whose consumer a factory function returns: its return annotation's, or
        the one client every ``return Cls(...)`` of its body constructs."""
        if factory.returns is not None:
            return self.annotation_client(factory.returns)
        found: set[Client | None] = set()
        for node in ast.walk(factory):
            if isinstance(node, ast.Return) and node.value is not None:
                if not isinstance(node.value, ast.Call):
                    return None  # returns something this analysis cannot follow
                found.add(self._ctor_client(node.value.func))
        return found.pop() if len(found) == 1 else None

    def _bind(self, target: ast.expr, value: ast.expr, scope: Scope) -> None:
        holds, client = self._value_client(value, scope)
        if isinstance(value, ast.Call):
            qualname = self._facts.imports.resolve(value.func)
            if qualname is not None and client_helper_class(qualname):
                if isinstance(target, ast.Name):
                    self._helper_names.append((target.id, scope))
                elif _self_attribute(target, scope):
                    self._helper_attrs.add((scope.cls, target.attr))  # type: ignore[arg-type, attr-defined]
        if isinstance(target, ast.Name):
            if holds:
                self._names.setdefault(target.id, []).append((client, scope))
        elif (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and scope.cls is not None
            and target.value.id == scope.self_name
        ):
            attrs = self._attrs.setdefault(scope.cls, {})
            if holds or (target.attr in attrs):
                attrs[target.attr] = client or attrs.get(target.attr)

    def mark_attr(self, cls: ast.ClassDef, attr: str) -> None:
        """Registration evidence: ``L(consumer)`` stores the consumer in ``self.attr``."""
        self._attrs.setdefault(cls, {}).setdefault(attr, None)
        self._add_properties(cls)

    def _add_properties(self, cls: ast.ClassDef) -> None:
        attrs = self._attrs.get(cls)
        if not attrs:
            return
        for name, method in self._facts.methods.get(cls, {}).items():
            if name in attrs or not _is_property(method):
                continue
            self_name = self._facts.scope_of[method].self_name
            for stmt in method.body:
                if isinstance(stmt, ast.Return) and stmt.value is not None:
                    head, _, attr = (dotted(stmt.value) or "").partition(".")
                    if head == self_name and attr in attrs:
                        attrs[name] = attrs[attr]

    # -- queries --------------------------------------------------------------------
    def consumer_class_client(self, cls: ast.ClassDef) -> Client | None:
        """The client of a class of this file that derives from a consumer class."""
        return self._consumer_classes.get(cls)

    def class_attrs(self, classes: list[ast.ClassDef]) -> dict[str, Client | None]:
        """Consumer attributes of a class and its in-file ancestors (given nearest first)."""
        out: dict[str, Client | None] = {}
        for cls in reversed(classes):
            out.update(self._attrs.get(cls, {}))
            if cls in self._consumer_classes:
                out[""] = self._consumer_classes[cls]  # ``self`` is the consumer
        return out

    def visible_names(self, scope: Scope) -> dict[str, Client | None]:
        """Names bound to a consumer in ``scope`` or an enclosing scope, and consumer params."""
        out: dict[str, Client | None] = {}
        for name, bindings in self._names.items():
            for client, where in bindings:
                if where.encloses(scope):
                    out[name] = client or out.get(name)
        for enclosing in scope.chain():
            node = enclosing.node
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                for arg in all_params(node):
                    holds, client = self.param_client(arg)
                    if holds:
                        out.setdefault(arg.arg, client)
        return out

    def is_client_helper(self, expr: ast.expr, scope: Scope, classes: list[ast.ClassDef]) -> bool:
        """Does ``expr`` hold an object of a client's non-consumer class (``SubscriptionState``)?"""
        if isinstance(expr, ast.Name):
            return any(n == expr.id and where.encloses(scope) for n, where in self._helper_names)
        if _self_attribute(expr, scope):
            return any((cls, expr.attr) in self._helper_attrs for cls in classes)  # type: ignore[attr-defined]
        return False

    def client_of(
        self, expr: ast.expr, scope: Scope, classes: list[ast.ClassDef]
    ) -> tuple[bool, Client | None]:
        """(is a known consumer?, client) for a receiver such as ``consumer`` or ``self._c``."""
        path = dotted(expr)
        if path is None:
            return False, None
        head, _, rest = path.partition(".")
        if scope.self_name is not None and head == scope.self_name:
            attrs = self.class_attrs(classes)
            if rest in attrs:
                return True, attrs[rest]
            return False, None
        names = self.visible_names(scope)
        if path in names:
            return True, names[path]
        return False, None


def _self_attribute(expr: ast.expr, scope: Scope) -> bool:
    """``self.x`` in a method of a class."""
    return (
        isinstance(expr, ast.Attribute)
        and isinstance(expr.value, ast.Name)
        and scope.cls is not None
        and expr.value.id == scope.self_name
    )


def param_named(scope: Scope, name: str) -> ast.arg | None:
    node = scope.node
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
        for arg in all_params(node):
            if arg.arg == name:
                return arg
    return None


_PLAIN_DATA = frozenset({"str", "bytes", "int", "float", "bool", "dict", "list", "tuple", "set"})


def _plain_data(annotation: ast.expr | None) -> bool:
    """``str``, ``"str"``, ``list[str]``, ``dict[...]``: annotations that rule a consumer out."""
    while isinstance(annotation, ast.Subscript):
        annotation = annotation.value
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return annotation.value.partition("[")[0] in _PLAIN_DATA
    return isinstance(annotation, ast.Name) and annotation.id in _PLAIN_DATA


def _is_property(method: FunctionNode) -> bool:
    for decorator in method.decorator_list:
        name = (
            decorator.attr
            if isinstance(decorator, ast.Attribute)
            else (decorator.id if isinstance(decorator, ast.Name) else "")
        )
        if name in _PROPERTY_DECORATORS:
            return True
    return False
