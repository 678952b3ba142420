"""One pass over the tree that records what the rules need, with the scope of each fact.

It visits every statement but descends into expressions only where a line mentions a
method the analysis looks for (``subscribe``, ``pause``, ``set_rebalance_listener``): on a
Kafka-heavy file that is a small part of the tree, which keeps the rules cheaper than the
parse. It is iterative (deeply nested code cannot exhaust the interpreter stack).
"""

from __future__ import annotations

import ast
import bisect
import re
from dataclasses import dataclass, field

from rebalance_lint.analysis.imports import ImportMap

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
#: Method names whose calls the analysis needs (registration sites and KRB107).
INTERESTING_METHODS = frozenset({"subscribe", "pause", "set_rebalance_listener"})


@dataclass(eq=False)
class Scope:
    """A function, lambda, class body or the module, with what it defines directly."""

    node: ast.AST
    parent: Scope | None
    cls: ast.ClassDef | None = None  # class whose method (or method's closure) this is
    self_name: str | None = None  # that method's first parameter
    is_class_body: bool = False
    defs: dict[str, FunctionNode] = field(default_factory=dict)
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)

    def chain(self) -> list[Scope]:
        """This scope and the ones whose names it can see (class bodies are not visible)."""
        out: list[Scope] = []
        scope: Scope | None = self
        while scope is not None:
            if scope is self or not scope.is_class_body:
                out.append(scope)
            scope = scope.parent
        return out

    def lookup_function(self, name: str) -> FunctionNode | None:
        for scope in self.chain():
            if name in scope.defs:
                return scope.defs[name]
        return None

    def lookup_class(self, name: str) -> ast.ClassDef | None:
        for scope in self.chain():
            if name in scope.classes:
                return scope.classes[name]
        return None

    def encloses(self, other: Scope) -> bool:
        """Is ``other`` this scope or nested inside it?"""
        scope: Scope | None = other
        while scope is not None:
            if scope is self:
                return True
            scope = scope.parent
        return False


@dataclass
class Facts:
    """Everything the single walk recorded."""

    module: Scope
    imports: ImportMap = field(default_factory=ImportMap)
    classes: list[tuple[ast.ClassDef, Scope]] = field(default_factory=list)
    methods: dict[ast.ClassDef, dict[str, FunctionNode]] = field(default_factory=dict)
    scope_of: dict[ast.AST, Scope] = field(default_factory=dict)  # function/lambda -> own scope
    calls: list[tuple[ast.Call, Scope]] = field(default_factory=list)
    bindings: list[tuple[ast.expr, ast.expr, Scope]] = field(default_factory=list)  # target, value


def positional_params(func: FunctionNode | ast.Lambda) -> list[ast.arg]:
    return [*func.args.posonlyargs, *func.args.args]


def all_params(func: FunctionNode | ast.Lambda) -> list[ast.arg]:
    return [*positional_params(func), *func.args.kwonlyargs]


def param_default(func: FunctionNode | ast.Lambda, name: str) -> ast.expr | None:
    """The default of ``func``'s parameter ``name`` (None: no such parameter, or no default)."""
    args = func.args
    positional = positional_params(func)
    first = len(positional) - len(args.defaults)
    for i, arg in enumerate(positional):
        if arg.arg == name and i >= first:
            return args.defaults[i - first]
    for arg, value in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        if arg.arg == name:
            return value
    return None


def _first_param(node: FunctionNode | ast.Lambda) -> str | None:
    args = positional_params(node)
    return args[0].arg if args else None


def collect(tree: ast.Module, text: str) -> Facts:
    """Walk ``tree``'s statements once (expressions only on lines that can matter)."""
    module = Scope(tree, None)
    facts = Facts(module)
    hot = _hot_lines(text)
    stack: list[tuple[ast.AST, Scope]] = [(stmt, module) for stmt in reversed(tree.body)]
    push = stack.append
    while stack:
        node, scope = stack.pop()
        kind = type(node)
        inner = scope
        if kind is ast.Assign or kind is ast.AnnAssign:
            _on_assign(node, scope, facts)  # type: ignore[arg-type]
        elif kind is ast.With or kind is ast.AsyncWith:
            for item in node.items:  # type: ignore[attr-defined]
                if item.optional_vars is not None:
                    facts.bindings.append((item.optional_vars, item.context_expr, scope))
        elif kind is ast.Import:
            facts.imports.add_import(node)  # type: ignore[arg-type]
        elif kind is ast.ImportFrom:
            facts.imports.add_import_from(node)  # type: ignore[arg-type]
        elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            inner = _enter_function(node, scope, facts)  # type: ignore[arg-type]
        elif kind is ast.ClassDef:
            inner = _enter_class(node, scope, facts)  # type: ignore[arg-type]
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, list):
                if name in _BLOCK_FIELDS:
                    for item in reversed(value):  # popped in source order: later defs win
                        push((item, inner))
                elif hot:
                    for item in value:
                        if isinstance(item, ast.AST) and _touches(item, hot):
                            _walk_expression(item, inner, facts)
            elif hot and isinstance(value, ast.AST) and _touches(value, hot):
                _walk_expression(value, inner, facts)
    facts.imports.finish()
    return facts


#: Fields holding statements (or handlers/cases that hold statements).
_BLOCK_FIELDS = frozenset({"body", "orelse", "finalbody", "handlers", "cases"})
#: Expressions are walked only on lines mentioning a method the analysis looks for.
_HOT = re.compile("|".join(sorted(INTERESTING_METHODS)))


def _hot_lines(text: str) -> list[int]:
    """Sorted numbers of the lines where an interesting call can be."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines: list[int] = []
    for match in _HOT.finditer(text):
        number = text.count("\n", 0, match.start()) + 1
        if not lines or lines[-1] != number:
            lines.append(number)
    return lines


def _touches(node: ast.AST, hot: list[int]) -> bool:
    first = getattr(node, "lineno", None)
    if first is None:  # withitem, arguments, comprehension: no position of their own
        return True
    index = bisect.bisect_left(hot, first)
    return index < len(hot) and hot[index] <= (getattr(node, "end_lineno", None) or first)


def _walk_expression(root: ast.AST, scope: Scope, facts: Facts) -> None:
    """Record the interesting calls and the lambdas in an expression."""
    stack: list[tuple[ast.AST, Scope]] = [(root, scope)]
    while stack:
        node, current = stack.pop()
        if type(node) is ast.Call:
            _on_call(node, current, facts)
        elif type(node) is ast.Lambda:
            current = _enter_function(node, current, facts)
        for child in ast.iter_child_nodes(node):
            stack.append((child, current))


def _on_call(node: ast.Call, scope: Scope, facts: Facts) -> None:
    func = node.func
    if (
        (isinstance(func, ast.Attribute) and func.attr in INTERESTING_METHODS)
        or (isinstance(func, ast.Name) and func.id in ("set_rebalance_listener", "subscribe"))
        or (  # loop.run_in_executor(pool, consumer.subscribe, topics, on_assign, ...)
            isinstance(func, ast.Attribute)
            and func.attr == "run_in_executor"
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Attribute)
            and node.args[1].attr == "subscribe"
        )
    ):
        facts.calls.append((node, scope))


def _on_assign(node: ast.Assign | ast.AnnAssign, scope: Scope, facts: Facts) -> None:
    value = node.value
    if value is None:
        return
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    if isinstance(value, ast.Lambda) and value not in facts.scope_of:
        _enter_function(value, scope, facts)  # a callback kept in a variable: on_assign = lambda
    for target in targets:
        if (
            isinstance(value, ast.Call)
            or (isinstance(target, ast.Attribute | ast.Name) and isinstance(value, ast.Name))
            or (isinstance(target, ast.Name) and isinstance(value, ast.Lambda | ast.Dict))
        ):
            facts.bindings.append((target, value, scope))
        elif (
            scope is facts.module
            and isinstance(target, ast.Name)
            and isinstance(value, ast.Attribute | ast.Name)
        ):
            facts.imports.add_alias(target.id, value)


def _enter_function(node: FunctionNode | ast.Lambda, scope: Scope, facts: Facts) -> Scope:
    if scope.is_class_body:
        inner = Scope(node, scope, cls=scope.cls, self_name=_first_param(node))
    else:
        inner = Scope(node, scope, cls=scope.cls, self_name=scope.self_name)
    if not isinstance(node, ast.Lambda) and not _is_accessor(node):
        scope.defs[node.name] = node
        if scope.is_class_body and scope.cls is not None:
            facts.methods[scope.cls][node.name] = node
    facts.scope_of[node] = inner
    return inner


def _enter_class(node: ast.ClassDef, scope: Scope, facts: Facts) -> Scope:
    scope.classes[node.name] = node
    facts.classes.append((node, scope))
    facts.methods[node] = {}
    return Scope(node, scope, cls=node, self_name=None, is_class_body=True)


def _is_accessor(node: FunctionNode) -> bool:
    """``@x.setter`` / ``@x.deleter``: the name keeps meaning the property getter."""
    return any(
        isinstance(d, ast.Attribute) and d.attr in ("setter", "deleter")
        for d in node.decorator_list
    )
