"""Name bindings and their uses, over ``ast``: who binds a name where it is used, and every use.

The migration planner needs exact answers ("the class name is bound once and used only
here"); the rules do not. So this pass runs only for a file with a migration candidate. Python's
rules: a name bound anywhere in a function is local to it; class bodies are not visible from
the functions inside them; ``global``/``nonlocal`` redirect. A use refers to every binding of
its name in the scope that resolves it (two bindings: two candidates, so no single answer).
The walk is iterative (deeply nested code cannot exhaust the interpreter stack).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
#: The parser's shared instances (one ``Load()`` for a whole tree, one ``Add()``...): no
#: parent or scope of their own, so not walked.
_SINGLETONS = frozenset(
    t
    for base in (ast.expr_context, ast.operator, ast.unaryop, ast.boolop)
    for t in base.__subclasses__()
)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


@dataclass(eq=False)
class NameScope:
    node: ast.AST
    parent: NameScope | None
    is_class: bool = False
    assignments: dict[str, list[ast.AST]] = field(default_factory=dict)
    declared_global: set[str] = field(default_factory=set)

    def bind(self, name: str, node: ast.AST) -> None:
        self.assignments.setdefault(name, []).append(node)


class Bindings:
    """Parents, scopes, bindings and uses of one module (built once, on demand)."""

    def __init__(self, tree: ast.Module) -> None:
        self.parent: dict[ast.AST, ast.AST] = {}
        self.scope_at: dict[ast.AST, NameScope] = {}  # node -> scope it is evaluated in
        self.module = NameScope(tree, None)
        self.uses: dict[ast.AST, list[ast.Name]] = {}  # binding node -> uses
        self.in_annotation: set[ast.AST] = set()
        self._accesses: list[tuple[ast.Name, NameScope]] = []
        self._walk(tree)
        for name, scope in self._accesses:
            for binding in self._visible(scope, name.id):
                self.uses.setdefault(binding, []).append(name)

    # -- queries --------------------------------------------------------------------
    def binding(self, name: ast.Name) -> ast.AST | None:
        """The one node that binds ``name`` where it is used, or None if not exactly one."""
        found = self.visible(name)
        return found[0] if len(found) == 1 else None

    def visible(self, name: ast.Name) -> list[ast.AST]:
        """Every node that binds ``name`` where it is used (none: a builtin or unbound)."""
        return self._visible(self.scope_at[name], name.id)

    def references(self, node: ast.AST, name: str) -> list[ast.Name] | None:
        """Every use of ``name`` as bound by ``node``'s own scope; None if bound twice there."""
        scope = self.scope_at.get(node)
        if scope is None:
            return None
        found = scope.assignments.get(name, [])
        if len(found) != 1:
            return None
        return list(self.uses.get(found[0], []))

    def ancestors(self, node: ast.AST) -> list[ast.AST]:
        out: list[ast.AST] = []
        current = self.parent.get(node)
        while current is not None:
            out.append(current)
            current = self.parent.get(current)
        return out

    def _visible(self, scope: NameScope, name: str) -> list[ast.AST]:
        if name in scope.declared_global:
            return self.module.assignments.get(name, [])
        current: NameScope | None = scope
        while current is not None:
            if (current is scope or not current.is_class) and name in current.assignments:
                return current.assignments[name]
            current = current.parent
        return []

    # -- the walk -------------------------------------------------------------------
    def _walk(self, tree: ast.Module) -> None:
        stack: list[tuple[ast.AST, NameScope, bool]] = [(tree, self.module, False)]
        while stack:
            node, scope, annotation = stack.pop()
            self.scope_at[node] = scope
            if annotation:
                self.in_annotation.add(node)
            children: list[tuple[ast.AST, NameScope, bool]] = []
            inner = scope
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                scope.bind(node.name, node)
                inner = NameScope(node, scope, is_class=isinstance(node, ast.ClassDef))
                outer_fields = {"decorator_list", "bases", "keywords", "returns", "args"}
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    self._arguments(node.args, scope, inner, children)
                    if node.returns is not None:
                        children.append((node.returns, scope, True))
                for name in ("decorator_list", "bases", "keywords"):
                    children += [(n, scope, annotation) for n in getattr(node, name, [])]
                children += [(n, inner, False) for n in node.body]
                for name, value in ast.iter_fields(node):
                    if name not in outer_fields and name != "body" and isinstance(value, list):
                        children += [(n, inner, False) for n in value if isinstance(n, ast.AST)]
            elif isinstance(node, ast.Lambda):
                inner = NameScope(node, scope)
                self._arguments(node.args, scope, inner, children)
                children.append((node.body, inner, False))
            else:
                if isinstance(node, _COMPREHENSIONS):
                    inner = NameScope(node, scope)
                self._bind_or_use(node, scope, annotation)
                for name in node._fields:  # ast.iter_fields, without its generator
                    value = getattr(node, name, None)
                    is_annotation = annotation or name == "annotation"
                    if isinstance(value, list):
                        children += [(n, inner, is_annotation) for n in value
                                     if isinstance(n, ast.AST)]  # fmt: skip
                    elif isinstance(value, ast.AST) and type(value) not in _SINGLETONS:
                        children.append((value, inner, is_annotation))
            for child, _, _ in children:
                self.parent[child] = node
            stack.extend(reversed(children))

    def _arguments(
        self,
        args: ast.arguments,
        outer: NameScope,
        inner: NameScope,
        children: list[tuple[ast.AST, NameScope, bool]],
    ) -> None:
        every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
        every += [a for a in (args.vararg, args.kwarg) if a is not None]
        for arg in every:
            inner.bind(arg.arg, arg)
            self.scope_at[arg] = inner
            if arg.annotation is not None:
                children.append((arg.annotation, outer, True))
        for default in [*args.defaults, *(d for d in args.kw_defaults if d is not None)]:
            children.append((default, outer, False))

    def _bind_or_use(self, node: ast.AST, scope: NameScope, annotation: bool) -> None:
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Store):
                target = scope
                if isinstance(self.parent.get(node), ast.NamedExpr):
                    while target.parent is not None and isinstance(target.node, _COMPREHENSIONS):
                        target = target.parent
                target.bind(node.id, node)
            else:
                self._accesses.append((node, scope))
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            self._accesses.append((node.target, scope))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                scope.bind(alias.asname or alias.name.partition(".")[0], node)
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name != "*":
                    scope.bind(alias.asname or alias.name, node)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            if isinstance(node, ast.Global):
                scope.declared_global.update(node.names)
        elif (isinstance(node, ast.ExceptHandler) and node.name) or (
            isinstance(node, ast.MatchAs | ast.MatchStar) and node.name
        ):
            scope.bind(node.name, node)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            scope.bind(node.rest, node)


def is_function(node: ast.AST) -> bool:
    return isinstance(node, _FUNCTIONS)
