"""What the migration planner reads about one file, beyond the rules' model: an index of
classes, calls and attributes in source order, name bindings, and small expression tests.

Built only for a file whose model has a migration candidate (``analysis.migration``).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from rebalance_guard._client_facts import ClientFacts

from rebalance_lint.analysis.collect import FunctionNode
from rebalance_lint.analysis.edits import MigrationPlan
from rebalance_lint.analysis.imports import ImportMap
from rebalance_lint.analysis.scopes import Bindings

VIEW_NAMES = ("consumer", "rebalance_consumer", "view")


@dataclass
class FileIndex:
    """Nodes collected in one source-order walk (the order edits and aliases are decided in)."""

    classes: list[ast.ClassDef] = field(default_factory=list)
    calls: list[ast.Call] = field(default_factory=list)
    method_calls: dict[str, list[ast.Call]] = field(default_factory=dict)
    attributes: dict[str, list[ast.Attribute]] = field(default_factory=dict)
    packages: set[str] = field(default_factory=set)  # top-level packages imported absolutely
    names: set[str] = field(default_factory=set)  # every name the file binds or uses
    claimed: dict[str, str] = field(default_factory=dict)  # local name -> imported symbol
    #: top-level packages every import of which sits in ``try:`` ... ``except ImportError``
    optional: set[str] = field(default_factory=set)


@dataclass
class FileFacts:
    """The planner's view of one file."""

    tree: ast.Module
    lines: list[str]
    imports: ImportMap
    index: FileIndex
    bindings: Bindings

    def qualnames(self, expr: ast.expr) -> set[str]:
        """Fully qualified names ``expr`` was imported as (empty when not imported)."""
        found = self.imports.resolve(expr)
        return {found} if found else set()

    def parent(self, node: ast.AST) -> ast.AST | None:
        return self.bindings.parent.get(node)


def file_facts(tree: ast.Module, text: str, imports: ImportMap) -> FileFacts:
    lines = re.split("\r\n|\r|\n", text)
    return FileFacts(tree, lines, imports, build_index(tree), Bindings(tree))


def source_order(root: ast.AST) -> list[ast.AST]:
    """Every node under ``root`` in source order (decorators before the ``def``/``class``)."""
    out: list[ast.AST] = []
    stack = [root]
    while stack:
        node = stack.pop()
        out.append(node)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            first: list[ast.AST] = list(node.decorator_list)
            rest = [c for c in ast.iter_child_nodes(node) if c not in node.decorator_list]
            children = first + rest
        else:
            children = list(ast.iter_child_nodes(node))
        stack.extend(reversed(children))
    return out


def build_index(tree: ast.Module) -> FileIndex:
    index = FileIndex()
    for node in source_order(tree):
        if isinstance(node, ast.ClassDef):
            index.classes.append(node)
        elif isinstance(node, ast.Call):
            index.calls.append(node)
            if isinstance(node.func, ast.Attribute):
                index.method_calls.setdefault(node.func.attr, []).append(node)
        elif isinstance(node, ast.Attribute):
            index.attributes.setdefault(node.attr, []).append(node)
        elif isinstance(node, ast.Import):
            index.packages.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            index.packages.add(node.module.partition(".")[0])
    index.names = names_in(tree)
    index.optional = _optional_packages(tree, index.packages)
    return index


_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


def _optional_packages(tree: ast.Module, packages: set[str]) -> set[str]:
    """The packages the file imports only inside ``try:`` bodies that catch ImportError."""
    inside = _guarded_nodes(tree)
    guarded: set[str] = set()
    required: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            (guarded if id(node) in inside else required).update(_imported_packages(node))
    return (guarded - required) & packages


def _guarded_nodes(tree: ast.Module) -> set[int]:
    ids: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(_catches_import_error(h) for h in node.handlers):
            for stmt in node.body:
                ids.update(id(inner) for inner in ast.walk(stmt))
    return ids


def _imported_packages(node: ast.AST) -> set[str]:
    if isinstance(node, ast.Import):
        return {alias.name.partition(".")[0] for alias in node.names}
    if isinstance(node, ast.ImportFrom) and node.module and not node.level:
        return {node.module.partition(".")[0]}
    return set()


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    caught = handler.type
    if caught is None:
        return True
    names = caught.elts if isinstance(caught, ast.Tuple) else [caught]
    return any(
        (isinstance(n, ast.Name) and n.id in _IMPORT_ERRORS)
        or (isinstance(n, ast.Attribute) and n.attr in _IMPORT_ERRORS)
        for n in names
    )


def optional_import(facts: FileFacts, package: str, guard_module: str) -> str | None:
    """Why a site of ``package``'s client cannot be migrated here: the file imports the client
    only inside ``try``/``except ImportError`` (an optional dependency), and ``guard_module``
    imports the client unconditionally, so the module would stop loading without it."""
    if package not in facts.index.optional:
        return None
    return (
        f"{package} is an optional dependency here (imported only inside try/except "
        f"ImportError), and {guard_module} needs it when imported; import {guard_module} "
        "in that try block, then migrate this site by hand"
    )


def names_in(root: ast.AST) -> set[str]:
    """Every name ``root`` binds or uses (``x.consumer`` and ``f(consumer=...)`` take none)."""
    names: set[str] = set()
    for node in ast.walk(root):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.alias):
            names.add(node.name.partition(".")[0])
            if node.asname:
                names.add(node.asname)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.partition(".")[0])
        elif isinstance(node, ast.Global | ast.Nonlocal):
            names.update(node.names)
        elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            names.add(node.rest)
    return names


def view_name(function: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """A parameter name for the view that nothing in ``function`` already uses."""
    taken = names_in(function)
    return next((name for name in VIEW_NAMES if name not in taken), None)


def guard_name(
    facts: FileFacts, taken: set[str], module: str, obj: str, plan: MigrationPlan
) -> str:
    """Schedule ``from module import obj`` and return the name to use for it.

    A name the file already uses for something else, anywhere (the aiokafka docs call their
    own listener class ``RebalanceListener``; a function may have a local ``subscribe``), or
    one this run already gave to another client's symbol (a file using kafka-python and
    aiokafka needs two ``set_rebalance_listener``), gets the import aliased, not shadowed.
    """
    claimed = facts.index.claimed
    wanted = f"{module}.{obj}"
    client = module.rpartition(".")[2]
    if obj[:1].isupper():
        aliases = [f"Guard{obj}", "".join(p.title() for p in client.split("_")) + obj]
    else:
        aliases = [f"guard_{obj}", f"{client}_{obj}"]
    local = f"_rg_{client}_{obj}"
    for candidate in (obj, *aliases):
        if claimed.get(candidate, wanted) != wanted:
            continue
        if candidate in claimed or candidate not in taken:
            local = candidate
            break
        if _module_binds_only(facts, candidate, wanted):
            local = candidate
            break
    claimed[local] = wanted
    plan.imports.add((module, obj, None if local == obj else local))
    return local


def _module_binds_only(facts: FileFacts, name: str, wanted: str) -> bool:
    """Whether every module-level binding of ``name`` imports exactly ``wanted``."""
    found = facts.bindings.module.assignments.get(name, [])
    qualnames: set[str] = set()
    for node in found:
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            qualnames |= {
                f"{node.module}.{a.name}" for a in node.names if (a.asname or a.name) == name
            }
        elif isinstance(node, ast.Import):
            qualnames |= {a.name for a in node.names if (a.asname or a.name) == name}
        else:
            return False
    return bool(found) and qualnames == {wanted}


# -- expressions --------------------------------------------------------------------------


def is_pure(node: ast.expr) -> bool:
    """True when evaluating ``node`` earlier or later cannot change what the program does."""
    if isinstance(node, ast.Name):
        return True
    if isinstance(node, ast.Constant):
        return not isinstance(node.value, complex)
    if isinstance(node, ast.Attribute):
        return is_pure(node.value)
    if isinstance(node, ast.JoinedStr):
        return all(is_pure(v) for v in node.values)
    if isinstance(node, ast.FormattedValue):
        return is_pure(node.value)
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return all(not isinstance(el, ast.Starred) and is_pure(el) for el in node.elts)
    if isinstance(node, ast.Subscript):
        index = node.slice
        items = index.elts if isinstance(index, ast.Tuple) else [index]
        return is_pure(node.value) and all(
            not isinstance(el, ast.Slice) and is_pure(el) for el in items
        )
    return False


def is_dotted(node: ast.expr) -> bool:
    """``a`` or ``a.b.c``: an expression that names something without calling anything."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def find_arg(call: ast.Call, keyword: str, position: int | None) -> ast.expr | None:
    """The argument bound to parameter ``keyword`` (or at ``position``), if any."""
    for kw in call.keywords:
        if kw.arg == keyword:
            return kw.value
    if position is not None and position < positional_count(call):
        return call.args[position]
    return None


def positional_count(call: ast.Call) -> int:
    """How many leading plain positional arguments a call has."""
    count = 0
    for arg in call.args:
        if isinstance(arg, ast.Starred):
            break
        count += 1
    return count


def has_star_args(call: ast.Call) -> bool:
    return any(isinstance(a, ast.Starred) for a in call.args) or any(
        kw.arg is None for kw in call.keywords
    )


def argument_count(call: ast.Call) -> int:
    return len(call.args) + len(call.keywords)


def ordered_args(call: ast.Call) -> list[ast.expr]:
    """The call's argument values in source order (positional, keyword and starred alike)."""
    return sorted([*call.args, *(kw.value for kw in call.keywords)], key=_position)


def _position(node: ast.expr) -> tuple[int, int]:
    return node.lineno, node.col_offset


Layout = Literal["own", "shared", "suite"]


def statement_layout(stmt: ast.AST, facts: FileFacts) -> Layout:
    """``own``: alone on its line(s); ``shared``: ``a; b``; ``suite``: ``if x: a`` (one line)."""
    parent = facts.parent(stmt)
    body = containing_list(parent, stmt) if parent is not None else None
    if body is None:
        return "own"
    i = next(n for n, item in enumerate(body) if item is stmt)
    first = i
    while first > 0 and body[first - 1].end_lineno == body[first].lineno:
        first -= 1
    head = body[first]
    prefix = facts.lines[head.lineno - 1].encode()[: head.col_offset]
    if prefix.strip():
        return "suite"
    last = i
    while last + 1 < len(body) and body[last + 1].lineno == body[last].end_lineno:
        last += 1
    return "own" if first == last else "shared"


def containing_list(parent: ast.AST, stmt: ast.AST) -> list[ast.stmt] | None:
    for _name, value in ast.iter_fields(parent):
        if isinstance(value, list) and any(item is stmt for item in value):
            return value
    return None


def self_attr(node: ast.AST, self_name: str) -> str | None:
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == self_name
    ):
        return node.attr
    return None


def first_param(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    params = [*fn.args.posonlyargs, *fn.args.args]
    return params[0].arg if params else ""


def methods_of(cls: ast.ClassDef) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    return {
        stmt.name: stmt
        for stmt in cls.body
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef)
    }


def own_returns(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.Return]:
    """The ``return`` statements of ``fn`` itself, not of functions or classes inside it."""
    found: list[ast.Return] = []
    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return):
            found.append(node)
        elif not isinstance(
            node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef
        ):
            stack.extend(ast.iter_child_nodes(node))
    return found


def returned_value(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.Return | None:
    """A ``return <value>`` of ``fn`` itself (not of a nested function), if any: listener
    methods return nothing (or, where the client awaits them, an awaitable of nothing)."""
    return next((r for r in own_returns(fn) if r.value is not None and not is_none(r.value)), None)


def self_class(expr: ast.expr, facts: FileFacts) -> ast.ClassDef | None:
    """The class whose instance ``expr`` is when it is the ``self`` (first parameter) of one of
    that class's own methods, possibly used from a nested function. A ``staticmethod`` or
    ``classmethod`` has no ``self``; any other decorator (``@retry``, ``@log_errors``: real
    code decorates the method that subscribes) wraps a method still called with its instance."""
    if not isinstance(expr, ast.Name):
        return None
    param = facts.bindings.binding(expr)
    method = next(
        (
            node
            for node in facts.bindings.ancestors(expr)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.args.args[:1] == [param]
        ),
        None,
    )
    owner = facts.parent(method) if method is not None else None
    if (
        method is not None
        and isinstance(owner, ast.ClassDef)
        and method in owner.body
        and not any(takes_no_self(d) for d in method.decorator_list)
    ):
        return owner
    return None


def takes_no_self(decorator: ast.expr) -> bool:
    """``@staticmethod``/``@classmethod`` (however spelled): the method has no ``self``."""
    name = decorator.func if isinstance(decorator, ast.Call) else decorator
    last = name.attr if isinstance(name, ast.Attribute) else getattr(name, "id", "")
    return last.endswith(("staticmethod", "classmethod"))


def consumer_escape_step(use: ast.AST, facts: FileFacts) -> str:
    """The next step for a callback whose consumer is used other than by calling a method:
    what the use is, and how to make the callback migratable."""
    parent = facts.parent(use)
    if isinstance(parent, ast.keyword):
        parent = facts.parent(parent)
    if isinstance(parent, ast.Call) and parent.func is not use:
        what = f"passes it to {ast.unparse(parent.func)}()"
        step = (
            "call the consumer's methods in the callback itself (inline that call, or make "
            "it return what the callback should do)"
        )
    elif isinstance(parent, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.NamedExpr):
        what = "stores it"
        step = "drop the stored reference (the view is valid only during the callback)"
    else:
        what = "uses it as a value"
        step = "call only the consumer's methods there"
    return f"{what}; {step}, then run migrate again"


#: Functions that only turn their arguments into text.
_DISPLAY_FUNCTIONS = frozenset({"print", "str", "repr", "format", "ascii"})
#: ``logging.Logger`` methods; counted only on a receiver whose name says it is a logger.
_LOG_METHODS = frozenset(
    {"debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log"}
)


#: ``logger``, ``_log``, ``LOGGER``, ``self.app_logger``, ``logging``: names of loggers.
_LOGGER_NAME = re.compile(r"_*(\w+_)?(log|logger|logging)")


def only_displayed(use: ast.AST, facts: FileFacts) -> bool:
    """Whether ``use`` (the callback's consumer) is only turned into text: printed, logged,
    formatted (``str.format``, ``%``, an f-string) or passed to ``str``/``repr``.

    Handing the view there instead of the consumer changes nothing but the text (the view's
    ``repr`` names its callback), and the text is made while the callback runs, so such a use
    does not stop a migration (REAL_WORLD-style logging: ``print("assign", consumer, parts)``).
    """
    parent = facts.parent(use)
    if isinstance(parent, ast.FormattedValue):
        return parent.value is use
    if isinstance(parent, ast.Tuple):
        grand = facts.parent(parent)
        if isinstance(grand, ast.BinOp) and grand.right is parent:
            parent, use = grand, parent  # "%s %s" % (consumer, partitions)
    if isinstance(parent, ast.BinOp):
        return (
            isinstance(parent.op, ast.Mod)
            and parent.right is use
            and isinstance(parent.left, ast.Constant | ast.JoinedStr)
            and (isinstance(parent.left, ast.JoinedStr) or isinstance(parent.left.value, str))
        )
    keyword = isinstance(parent, ast.keyword)
    if parent is not None and keyword:
        parent = facts.parent(parent)  # only str.format(name=...): print(file=) writes to it
    if not isinstance(parent, ast.Call) or parent.func is use:
        return False
    func = parent.func
    if keyword and not (isinstance(func, ast.Attribute) and func.attr == "format"):
        return False
    return makes_text(func, facts)


#: Builtins that compute a value from their arguments and reach nothing else.
_VALUE_BUILTINS = frozenset(
    {"sorted", "len", "list", "tuple", "set", "frozenset", "dict", "min", "max", "sum",
     "any", "all", "int", "float", "bool", "enumerate", "zip", "range", "reversed"}
)  # fmt: skip


def only_computes(func: ast.expr, facts: FileFacts) -> bool:
    """Whether calling ``func`` only makes text (:func:`makes_text`) or a value from its
    arguments (``sorted``, ``len``...): it can run later without anyone noticing."""
    if isinstance(func, ast.Name) and func.id in _VALUE_BUILTINS:
        return func.id not in facts.index.claimed
    return makes_text(func, facts)


def makes_text(func: ast.expr, facts: FileFacts) -> bool:
    """Whether calling ``func`` only makes or writes text: ``print``, ``str``, ``repr``,
    ``"...".format``, a logger's ``info``/``warning``/...; it reaches no consumer."""
    if isinstance(func, ast.Name):
        return func.id in _DISPLAY_FUNCTIONS and func.id not in facts.index.claimed
    if not isinstance(func, ast.Attribute):
        return False
    if func.attr == "format":
        return isinstance(func.value, ast.Constant) and isinstance(func.value.value, str)
    receiver = func.value.attr if isinstance(func.value, ast.Attribute) else None
    if isinstance(func.value, ast.Name):
        receiver = func.value.id
    return (
        func.attr in _LOG_METHODS
        and receiver is not None
        and _LOGGER_NAME.fullmatch(receiver.lower()) is not None
    )


def helper_takes_view(
    use: ast.AST, facts: FileFacts, call_ok: Callable[[ast.Call, str], bool], depth: int = 0
) -> bool:
    """Whether ``use`` (the callback's consumer) is handed to a function of this file that
    only calls methods the view offers on it (``call_ok``), shows it, or hands it on the same
    way: ``commit_all(consumer)``, ``_check_partitions_at_eof(consumer, partitions)``.

    The helper stays as it is and gets the view instead; that is sound only when the helper's
    parameter has no annotation (a type checker would reject the view for ``Consumer``) and an
    async helper is awaited inside the callback (else it would run after the view expired).
    """
    parent = facts.parent(use)
    keyword = parent.arg if isinstance(parent, ast.keyword) else None
    if isinstance(parent, ast.keyword):
        parent = facts.parent(parent)
    if not isinstance(parent, ast.Call):
        return False
    helper = _helper_called(parent.func, facts)
    if helper is None or helper.decorator_list:
        return False
    if isinstance(helper, ast.AsyncFunctionDef) and not isinstance(facts.parent(parent), ast.Await):
        return False
    positional = [*helper.args.posonlyargs, *helper.args.args]
    if isinstance(parent.func, ast.Attribute):
        positional = positional[1:]  # self.helper(consumer): the method's self comes first
    if keyword is not None:
        named = [*helper.args.args, *helper.args.kwonlyargs]
        param = next((p for p in named if p.arg == keyword), None)
    else:
        index = next((i for i, arg in enumerate(parent.args) if arg is use), None)
        if index is None or any(isinstance(a, ast.Starred) for a in parent.args[:index]):
            return False
        param = positional[index] if index < len(positional) else None
    if param is None or param.annotation is not None:
        return False
    refs = facts.bindings.references(param, param.arg)
    if refs is None:
        return False
    for ref in refs:
        method = facts.parent(ref)
        call = facts.parent(method) if method is not None else None
        if only_displayed(ref, facts) or (
            isinstance(method, ast.Attribute)
            and method.value is ref
            and isinstance(call, ast.Call)
            and call.func is method
            and call_ok(call, method.attr)
        ):
            continue
        if depth < 2 and helper_takes_view(ref, facts, call_ok, depth + 1):
            continue
        return False
    return True


def _helper_called(func: ast.expr, facts: FileFacts) -> FunctionNode | None:
    """The function ``helper(...)`` or ``self.helper(...)`` calls: a def bound once where it
    is called, or a method of the class whose method makes the call."""
    if isinstance(func, ast.Name):
        found = facts.bindings.binding(func)
        return found if isinstance(found, ast.FunctionDef | ast.AsyncFunctionDef) else None
    if isinstance(func, ast.Attribute):
        owner = self_class(func.value, facts)
        return methods_of(owner).get(func.attr) if owner is not None else None
    return None


def offered_by_view(client: ClientFacts, facts: FileFacts) -> Callable[[ast.Call, str], bool]:
    """Whether ``consumer.<name>(...)`` works the same on the client's view: a method the view
    offers, awaited where it is a coroutine (:func:`helper_takes_view`)."""

    def ok(call: ast.Call, name: str) -> bool:
        return name in client.view_methods and (
            name not in client.coroutine_methods or isinstance(facts.parent(call), ast.Await)
        )

    return ok


def dropped_coroutine(
    call: ast.Call, name: str, client: ClientFacts, facts: FileFacts
) -> str | None:
    """Why ``consumer.<name>()`` as a bare statement cannot move to the view: the client's
    method is a coroutine nobody awaits, so the call never ran (KRB106); as the view's it
    would show up as a new type error (an unused coroutine) and still not run."""
    if name in client.coroutine_methods and isinstance(facts.parent(call), ast.Expr):
        return (
            f"calls consumer.{name}() without await (line {call.lineno}), so the call never "
            "ran (KRB106); add the await first"
        )
    return None
