"""One file's facts as a unit of the program, and the repository that links units by imports.

A :class:`Unit` is what the analysis knows about one file before its callbacks are built:
its facts, consumers and class hierarchy, plus evidence learnt from other places about what
its classes' attributes hold (``Listener(self)`` stores an owner of a consumer). A
:class:`Program` is a repository: it finds the module an import names (absolute imports of
the repository's own packages, relative imports, ``src/`` layouts) and builds that file's
unit on first use, so only files that Kafka code reaches are ever parsed.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from rebalance_lint.analysis.clients import Client, client_helper_class, consumer_class
from rebalance_lint.analysis.collect import Facts, FunctionNode, Scope
from rebalance_lint.analysis.consumers import Consumers
from rebalance_lint.analysis.dataflow import bound_value
from rebalance_lint.analysis.imports import ImportMap
from rebalance_lint.analysis.listeners import Hierarchy
from rebalance_lint.analysis.model import Effect, Origin, dotted

Definition = ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef
#: A summarised function: (id of its node, consumer parameters given with their origin, depth).
EffectKey = tuple[int, frozenset[tuple[str, Origin]], int]


@dataclass(eq=False)
class Unit:
    """One file of the program."""

    path: str
    facts: Facts
    consumers: Consumers
    hierarchy: Hierarchy
    program: Program | None = None
    #: (class, attribute) -> the class of the object stored there, learnt at call sites
    owners: dict[tuple[ast.ClassDef, str], tuple[Unit, ast.ClassDef]] = field(default_factory=dict)
    _attr_values: dict[tuple[ast.ClassDef, str], list[tuple[ast.expr, Scope]]] | None = None
    _name_calls: dict[str, list[ast.Call]] | None = None

    def lookup(self, scope: Scope, expr: ast.expr) -> tuple[Unit, Definition] | None:
        """The class or function ``expr`` names: defined in this file, or imported from the repo."""
        if isinstance(expr, ast.Name):
            local: Definition | None = scope.lookup_class(expr.id) or scope.lookup_function(expr.id)
            if local is not None:
                return self, local
        elif isinstance(expr, ast.Constant) and isinstance(expr.value, str):  # "Runner"
            local = scope.lookup_class(expr.value)
            if local is not None:
                return self, local
        if self.program is None:
            return None
        return self.program.imported(self, expr)

    def function(self, scope: Scope, expr: ast.expr) -> tuple[Unit, FunctionNode] | None:
        found = self.lookup(scope, expr)
        if found is not None and isinstance(found[1], ast.FunctionDef | ast.AsyncFunctionDef):
            return found[0], found[1]
        return None

    def klass(self, scope: Scope, expr: ast.expr | None) -> tuple[Unit, ast.ClassDef] | None:
        """The class an annotation or constructor names: ``Runner``, ``"Runner"``, ``X[Runner]``."""
        while isinstance(expr, ast.Subscript):
            expr = expr.slice
        if expr is None:
            return None
        found = self.lookup(scope, expr)
        if found is not None and isinstance(found[1], ast.ClassDef):
            return found[0], found[1]
        return None

    def instance_class(self, expr: ast.expr, scope: Scope) -> tuple[Unit, ast.ClassDef] | None:
        """The class of the object a name holds: ``self``, an annotated parameter, ``W(...)``."""
        if not isinstance(expr, ast.Name):
            return None
        if expr.id == scope.self_name and scope.cls is not None:
            return self, scope.cls
        param = _param(scope, expr.id)
        if param is not None:
            return self.klass(scope, param.annotation)
        value = bound_value(expr.id, scope, self.facts)
        return self.klass(scope, value.func) if isinstance(value, ast.Call) else None

    def own_subscribe(self, receiver: ast.expr, scope: Scope) -> str | None:
        """Why ``receiver.subscribe()`` may not be the client's own, or None.

        ``receiver`` (``c``, ``self._c``) is built here by a class that is not a client's
        consumer class: one of the program that defines ``subscribe()`` (a ``KafkaConsumer``
        subclass that wraps ``listener=``), or an imported one this run cannot see.
        """
        if isinstance(receiver, ast.Name) and receiver.id == scope.self_name and scope.cls:
            return self._own_subscribe_of(scope.cls)  # self.subscribe() in a consumer subclass
        for value, value_scope in self._constructions(receiver, scope):
            qualname = self.facts.imports.resolve(value.func)
            if qualname is not None and consumer_class(qualname) is not None:
                continue  # the client's own consumer class
            found = self.klass(value_scope, value.func)
            if found is not None:
                unit, cls = found
                method = unit.hierarchy.methods(cls).get("subscribe")
                if method is not None:
                    where = f"{unit.path}:{method.lineno}" if unit.path else f"line {method.lineno}"
                    return f"the consumer's class defines its own {cls.name}.subscribe() ({where})"
                continue
            name = dotted(value.func)
            relative = self.facts.imports.relative.get(name or "")
            if relative is not None:  # from .kafka_utils import ConsumerProxy, not resolved
                qualname = "." * relative[0] + relative[1] + "." + relative[2]
            if qualname is not None and name is not None and name.rpartition(".")[2][:1].isupper():
                return (
                    f"the consumer is a {name} (imported from {qualname.rpartition('.')[0]}), "
                    "whose subscribe() this run cannot see"
                )
        return None

    def _own_subscribe_of(self, cls: ast.ClassDef, depth: int = 0) -> str | None:
        """Why ``self.subscribe()`` of ``cls`` may not be the client's: ``cls`` or a base of it
        in this file or another module of the repository defines ``subscribe()``."""
        for klass in self.hierarchy.ancestry(cls):
            method = self.facts.methods.get(klass, {}).get("subscribe")
            if method is not None:
                where = f"{self.path}:{method.lineno}" if self.path else f"line {method.lineno}"
                return f"the consumer's class defines its own {klass.name}.subscribe() ({where})"
            if depth < 8:
                for base in klass.bases:
                    found = self.klass(self.facts.module, base)
                    if found is not None and found[0] is not self:
                        reason = found[0]._own_subscribe_of(found[1], depth + 1)
                        if reason is not None:
                            return reason
        return None

    def builds_client_helper(self, receiver: ast.expr, scope: Scope) -> bool:
        """Is ``receiver`` built by a non-consumer class of a client's own package?

        ``self._subscription = SubscriptionState()`` in the client's source, imported
        relatively (``from .subscription_state import ...``): its ``subscribe(listener=)`` is the
        client's internals, not a registration (the absolute spelling is decided in
        :meth:`Consumers.is_client_helper`).
        """
        for value, value_scope in self._constructions(receiver, scope):
            found = self.klass(value_scope, value.func)
            if found is not None and found[0].path:  # any suffix: vendor/aiokafka/... too
                modules = module_names(found[0].path.replace("\\", "/"))
                if any(client_helper_class(f"{m}.{found[1].name}") for m in modules):
                    return True
        return False

    def _constructions(self, receiver: ast.expr, scope: Scope) -> list[tuple[ast.Call, Scope]]:
        """The calls that build what ``receiver`` holds (``c = X()``, ``self._c = X()``)."""
        if (
            isinstance(receiver, ast.Attribute)
            and isinstance(receiver.value, ast.Name)
            and scope.cls is not None
            and receiver.value.id == scope.self_name
        ):
            values = [
                found
                for klass in self.hierarchy.ancestry(scope.cls)
                for found in self.attr_values(klass, receiver.attr)
            ]
        elif isinstance(receiver, ast.Name):
            value = bound_value(receiver.id, scope, self.facts)
            values = [(value, scope)] if value is not None else []
        else:
            values = []
        return [(v, s) for v, s in values if isinstance(v, ast.Call)]

    def attr_values(self, cls: ast.ClassDef, attr: str) -> list[tuple[ast.expr, Scope]]:
        """The values assigned to ``self.attr`` in methods of ``cls`` (this file only)."""
        if self._attr_values is None:
            table: dict[tuple[ast.ClassDef, str], list[tuple[ast.expr, Scope]]] = {}
            for target, value, scope in self.facts.bindings:
                if (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and scope.cls is not None
                    and target.value.id == scope.self_name
                ):
                    table.setdefault((scope.cls, target.attr), []).append((value, scope))
            self._attr_values = table
        return self._attr_values.get((cls, attr), [])

    def name_calls(self, name: str) -> list[ast.Call]:
        """The calls of the file whose callee is the bare name ``name`` (one walk per file)."""
        if self._name_calls is None:
            table: dict[str, list[ast.Call]] = {}
            for node in ast.walk(self.facts.module.node):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                    table.setdefault(node.func.id, []).append(node)
            self._name_calls = table
        return self._name_calls.get(name, [])

    def owner_class(self, cls: ast.ClassDef, attr: str) -> tuple[Unit, ast.ClassDef] | None:
        """The class of the object ``self.attr`` holds in instances of ``cls``, if known."""
        for klass in self.hierarchy.ancestry(cls):
            known = self.owners.get((klass, attr))
            if known is not None:
                return known
            for value, scope in self.attr_values(klass, attr):
                if isinstance(value, ast.Call):
                    found = self.klass(scope, value.func)
                elif isinstance(value, ast.Name):
                    param = _param(scope, value.id)
                    found = self.klass(scope, param.annotation) if param is not None else None
                    if found is None and param is not None and param.annotation is None:
                        found = self._creator_of(klass, scope, param)
                else:
                    found = None
                if found is not None and found[1] is not cls:
                    return found
        return None

    def _creator_of(
        self, klass: ast.ClassDef, init: Scope, param: ast.arg
    ) -> tuple[Unit, ast.ClassDef] | None:
        """The class whose methods create every instance of ``klass`` in this file, each
        passing its own ``self`` for ``__init__``'s unannotated ``param``
        (``StoredOffsets(self)`` in ``Worker``: ``self.worker`` holds a ``Worker``)."""
        node = init.node
        if not isinstance(node, ast.FunctionDef) or node.name != "__init__":
            return None
        params = node.args.args
        index = params.index(param) - 1 if param in params else -1
        creators: set[ast.ClassDef] = set()
        for call in self.name_calls(klass.name):
            given = [k.value for k in call.keywords if k.arg == param.arg]
            given += call.args[index : index + 1] if index >= 0 else []
            creator = next(
                (c for c, methods in self.facts.methods.items() if _self_in(given, methods)),
                None,
            )
            if creator is None:
                return None  # a creation given anything else, or not in a method
            creators.add(creator)
        if len(creators) != 1:
            return None
        return self, creators.pop()


def _self_in(given: list[ast.expr], methods: dict[str, FunctionNode]) -> bool:
    """Whether ``given`` is one name that is the first parameter of one of ``methods`` whose
    body holds it (the creating method's own ``self``)."""
    if len(given) != 1 or not isinstance(given[0], ast.Name):
        return False
    name = given[0]
    return any(
        params and params[0].arg == name.id and any(n is name for n in ast.walk(method))
        for method in methods.values()
        for params in [method.args.args]
    )


def _param(scope: Scope, name: str) -> ast.arg | None:
    node = scope.node
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        args = node.args
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
            if arg.arg == name:
                return arg
    return None


def module_names(path: str) -> list[str]:
    """Every dotted name a file could be imported as: ``a.b.c``, ``b.c``, ``c`` for a/b/c.py."""
    stem = path[:-3] if path.endswith(".py") else path
    parts = [p for p in stem.split("/") if p not in ("", ".", "..")]
    if parts and parts[-1] == "__init__":
        parts.pop()
    return [".".join(parts[i:]) for i in range(len(parts))]


class Program:
    """The files of one repository, linked by their imports; units are built on demand."""

    def __init__(self, paths: Iterable[str], load: Callable[[str], Unit | None]) -> None:
        self._load = load
        self._units: dict[str, Unit | None] = {}
        self._by_module: dict[str, list[str]] = {}
        #: effect summaries of followed functions, shared by every file (analysis.effects)
        self.effect_memo: dict[EffectKey, list[Effect]] = {}
        for path in paths:
            for name in module_names(path.replace("\\", "/")):
                self._by_module.setdefault(name, []).append(path)

    def add(self, unit: Unit) -> None:
        unit.program = self
        self._units[unit.path] = unit

    def release(self) -> None:
        """Unlink the units from the program and from each other once nothing more is asked
        of them: reference counting then frees their trees at once, where the cycles left a
        collector pass over every tree of the repository (a tenth of ``check``'s time)."""
        for unit in self._units.values():
            if unit is not None:
                unit.program = None
                unit.owners.clear()
        self._units.clear()
        self.effect_memo.clear()

    def unit(self, path: str) -> Unit | None:
        if path not in self._units:
            self._units[path] = None  # cycle guard while loading
            loaded = self._load(path)
            if loaded is not None:
                self.add(loaded)
        return self._units[path]

    def module(self, importer: str, name: str) -> Unit | None:
        """The unit a dotted module name means when the file ``importer`` imports it."""
        candidates = self._by_module.get(name, [])
        if not candidates:
            return None
        if len(candidates) > 1:  # prefer the one nearest the importer
            here = PurePosixPath(importer).parts
            candidates = sorted(candidates, key=lambda p: -_common(PurePosixPath(p).parts, here))
        return self.unit(candidates[0])

    def _relative(self, importer: str, level: int, module: str) -> str:
        """The repository-relative module path of ``from ..module import x``."""
        base = list(PurePosixPath(importer).parent.parts)
        if level > 1:
            base = base[: len(base) - (level - 1)] if level - 1 <= len(base) else []
        parts = base + ([p for p in module.split(".") if p] if module else [])
        return ".".join(p for p in parts if p not in ("", "."))

    def imported(self, importer: Unit, expr: ast.expr) -> tuple[Unit, Definition] | None:
        """The repository definition ``expr`` imports: ``Worker``, ``handlers.on_assign``."""
        return self.imported_into(importer.path, importer.facts.imports, expr)

    def consumer_base(self, importer: str, imports: ImportMap, base: ast.expr) -> Client | None:
        """The client of a base class imported from the repository that is a consumer class
        (``class ExactlyOnce(DefaultConsumer)``, ``DefaultConsumer(KafkaConsumer)`` elsewhere).

        Asked while ``importer`` is being prepared, before its unit exists."""
        found = self.imported_into(importer, imports, base)
        if found is None or not isinstance(found[1], ast.ClassDef):
            return None
        return found[0].consumers.consumer_class_client(found[1])

    def imported_into(
        self, importer: str, imports: ImportMap, expr: ast.expr
    ) -> tuple[Unit, Definition] | None:
        """:meth:`imported` for the file ``importer`` with its imports ``imports``."""
        path = dotted(expr) if isinstance(expr, ast.Name | ast.Attribute) else None
        if path is None:
            return None
        head, _, rest = path.partition(".")
        relative = imports.relative.get(head)
        if relative is not None:
            level, module, name = relative
            package = self._relative(importer, level, module)
            qualname = ".".join(p for p in (package, name, rest) if p)
        else:
            found = imports.qualname(head)
            if found is None:
                return None
            qualname = ".".join(p for p in (found, rest) if p)
        return self._definition(importer, qualname)

    def _definition(self, importer: str, qualname: str) -> tuple[Unit, Definition] | None:
        """``pkg.mod.Worker`` -> the class in pkg/mod.py (longest module prefix that exists)."""
        parts = qualname.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            unit = self.module(importer, ".".join(parts[:cut]))
            if unit is None:
                continue
            scope = unit.facts.module
            names = parts[cut:]
            if len(names) == 1:
                found: Definition | None = scope.classes.get(names[0]) or scope.defs.get(names[0])
                if found is not None:
                    return unit, found
            elif len(names) == 2 and names[0] in scope.classes:  # Outer.Inner / Cls.method
                cls = scope.classes[names[0]]
                method = unit.facts.methods.get(cls, {}).get(names[1])
                if method is not None:
                    return unit, method
            return None
        return None


def _common(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    count = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        count += 1
    return count
