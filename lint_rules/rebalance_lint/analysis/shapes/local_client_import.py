"""Shape: the client imported lazily inside a function (an optional dependency, or an import
deferred to where it is needed): ``def make(): from confluent_kafka import Consumer ...``,
also inside ``try: ... except ImportError: raise SystemExit(...)`` in ``__init__``.

The module must keep importing without the client, and must not start importing it when
imported. So the imports the migration adds from that client (its ``rebalance_guard``
module, ``TopicPartition``) go right after the function's own import of it, in the same
block (a ``try`` body stays covered by its ``except``), as the module-level optional import
shape puts them into the module-level ``try``. That import binds them only in that
function, after it: every edit naming them must be there, in the statements after the
client's import (after the ``try`` holding it too, when each of its ``except`` blocks ends
in ``raise``/``return``). A name used elsewhere only in annotations, with annotations
postponed, is never evaluated: it joins the client's import under the module-level ``if
TYPE_CHECKING:``, for type checkers. Where that import does not reach them all (an owner
class that becomes its own listener, its base evaluated when the module is imported; another
method using ``set_rebalance_listener``; a callback defined before the import), the names whose
import imports no client go to module level instead (:func:`client_import`: a ``rebalance_guard``
module importing its client only on first use, except the names it serves lazily, per the client
facts), and the others must be reached: else the whole file is refused, saying where and why."""

from __future__ import annotations

import ast
import re
from typing import NamedTuple

from rebalance_guard._client_facts import CLIENTS

from rebalance_lint.analysis.edits import Edit, MigrationPlan, Span, span
from rebalance_lint.analysis.migration_facts import FileFacts, containing_list
from rebalance_lint.analysis.shape import Shape

Function = ast.FunctionDef | ast.AsyncFunctionDef
_JUMPS = (ast.Raise, ast.Return, ast.Continue, ast.Break)


def lazy_packages(tree: ast.Module) -> dict[str, list[ast.Import | ast.ImportFrom]]:
    """The client packages imported only inside functions, with those imports (the
    ``rebalance_guard`` module of a client counts as its import; an import under ``if
    TYPE_CHECKING:`` does not run, so it counts as none)."""
    executed: set[str] = set()
    local: dict[str, list[ast.Import | ast.ImportFrom]] = {}
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:
        node, inside = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            for package in _client_packages(node):
                if inside:
                    local.setdefault(package, []).append(node)
                else:
                    executed.add(package)
            continue
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack += [(child, inside) for child in node.orelse]
            continue
        nested = inside or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        stack += [(child, nested) for child in ast.iter_child_nodes(node)]
    return {
        package: sorted(found, key=span)
        for package, found in local.items()
        if package not in executed
    }


def _client_packages(node: ast.Import | ast.ImportFrom) -> set[str]:
    """The client packages whose absence makes ``node`` fail: the client's own modules, and
    its ``rebalance_guard`` modules that import it (:func:`client_import`)."""
    names: list[tuple[str, str | None]]
    if isinstance(node, ast.Import):
        names = [(alias.name, None) for alias in node.names]
    else:
        names = [(node.module or "", a.name) for a in node.names] if not node.level else []
    return {
        found.package
        for module, name in names
        if (found := client_import(module, name)) is not None and found.imports_client
    }


class ClientImport(NamedTuple):
    """What importing a module (or a name from it) has to do with a Kafka client."""

    #: The client package the module belongs to.
    package: str
    #: Whether the import imports that client, and so fails without it.
    imports_client: bool


def client_import(module: str, name: str | None = None) -> ClientImport | None:
    """The client ``module`` belongs to, and whether importing it (``from module import
    name``) imports that client: the client's own modules do; its ``rebalance_guard``
    module does as its row says (:attr:`ClientFacts.guard_imports_client`, and per name
    :attr:`ClientFacts.guard_names_importing_client`); ``rebalance_guard.testing.<client>``
    does. None: the module of no client."""
    for client in CLIENTS.values():
        if module == client.package or module.startswith(f"{client.package}."):
            return ClientImport(client.package, True)
        if module == client.guard_module:
            imports = client.guard_imports_client or name in client.guard_names_importing_client
            return ClientImport(client.package, imports)
        suffix = client.guard_module.rpartition(".")[2]
        if module.startswith("rebalance_guard.") and module.rpartition(".")[2] == suffix:
            return ClientImport(client.package, True)  # the testing harness imports it
    return None


def package_of(module: str) -> str | None:
    """The client package ``module`` belongs to (:func:`client_import`)."""
    found = client_import(module)
    return found.package if found is not None else None


def place_lazy_client_imports(
    facts: FileFacts,
    plan: MigrationPlan,
    package: str,
    anchors: list[ast.Import | ast.ImportFrom],
    wanted: list[tuple[str, str, str | None]],
) -> str | None:
    """Put ``wanted`` after the function-local imports of the client (:func:`place_local_imports`);
    where those do not reach every edit naming them, leave the names whose import imports
    no client (:func:`client_import`) to the module level and place only the others, or say
    why they cannot be placed either."""
    why = place_local_imports(facts, plan, package, anchors, wanted)
    rest = [entry for entry in wanted if _imports_client(entry)]
    if why is None or len(rest) == len(wanted):
        return why
    return place_local_imports(facts, plan, package, anchors, rest) if rest else None


def _imports_client(entry: tuple[str, str, str | None]) -> bool:
    found = client_import(entry[0], entry[1])
    return found is None or found.imports_client  # not a client's: kept with the client's


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def place_local_imports(
    facts: FileFacts,
    plan: MigrationPlan,
    package: str,
    anchors: list[ast.Import | ast.ImportFrom],
    wanted: list[tuple[str, str, str | None]],
) -> str | None:
    """Put ``wanted`` (the plan's imports from ``package``'s client) after the function-local
    import of the client whose reach holds every edit naming them (an edit ``guard_imports``
    at that import), or say why no such import reaches them all."""
    local = {alias or obj for _, obj, alias in wanted}
    using = [edit for edit in plan.edits if _names(edit) & local]
    reaches = [(anchor, *_reach(anchor, facts)) for anchor in anchors]
    chosen: dict[int, ast.Import | ast.ImportFrom] = {}
    checking = _checking_import(facts.tree, package) if lazy_annotations(facts.tree) else None
    annotations: set[str] = set()
    for edit in using:
        found = next((a for a, region, _ in reaches if _inside(edit.target, region)), None)
        if found is None and checking is not None and _annotation_only(edit, facts, local):
            annotations |= _names(edit) & local  # never evaluated: for type checkers
        elif found is None:
            return _why_not(edit, facts, package, reaches, local)
        else:
            chosen[id(found)] = found
    if not chosen:
        chosen[id(anchors[0])] = anchors[0]
    plan.imports.difference_update(wanted)
    if checking is not None and annotations:
        typed = [(m, obj, alias or "") for m, obj, alias in wanted if (alias or obj) in annotations]
        plan.edit(Edit("guard_imports", span(checking), names=tuple(typed)))
    for anchor in sorted(chosen.values(), key=span):
        plan.edit(
            Edit(
                "guard_imports",
                span(anchor),
                names=tuple((module, obj, alias or "") for module, obj, alias in wanted),
            )
        )
    return None


def lazy_annotations(tree: ast.Module) -> bool:
    """``from __future__ import annotations``: no annotation is evaluated at run time."""
    return any(
        isinstance(stmt, ast.ImportFrom)
        and stmt.module == "__future__"
        and any(alias.name == "annotations" for alias in stmt.names)
        for stmt in tree.body
    )


def _checking_import(tree: ast.Module, package: str) -> ast.Import | ast.ImportFrom | None:
    """The last import of ``package`` in a module-level ``if TYPE_CHECKING:`` block."""
    found = [
        stmt
        for block in tree.body
        if isinstance(block, ast.If) and _is_type_checking(block.test)
        for stmt in block.body
        if isinstance(stmt, ast.Import | ast.ImportFrom) and package in _client_packages(stmt)
    ]
    return found[-1] if found else None


def _annotation_only(edit: Edit, facts: FileFacts, local: set[str]) -> bool:
    """Whether ``edit`` names ``local`` only in annotations: its view annotation, or an
    expression it replaces that is a parameter's, a return's or a variable's annotation."""
    if edit.action == "replace_with_expression" and any(
        span(annotation) == edit.target
        for holder in ast.walk(facts.tree)
        for annotation in _annotations(holder)
    ):
        return True
    rest = Edit(edit.action, edit.target, edit.value, edit.extra, names=edit.names)
    return not (_names(rest) & local) and bool(_names(edit) & local)


def _annotations(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.arg | ast.AnnAssign):
        return [node.annotation] if node.annotation is not None else []
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return [node.returns] if node.returns is not None else []
    return []


def _names(edit: Edit) -> set[str]:
    """The names the text an edit writes uses."""
    texts = [edit.value, edit.extra, edit.annotation, edit.other_type]
    texts += [part for entry in edit.names for part in entry]
    texts += [lam.partitions_type for lam in edit.lambdas]
    return set(re.findall(r"[A-Za-z_]\w*", " ".join(texts)))


def _reach(anchor: ast.stmt, facts: FileFacts) -> tuple[list[ast.stmt], ast.ExceptHandler | None]:
    """The statements where ``anchor``'s bindings are certain: those after it in its block,
    then, out of a ``try`` body whose ``except`` blocks all end in a jump (and of a ``with``),
    its ``else`` and the statements after it; with the ``except`` that falls through, if one
    stopped it there."""
    region: list[ast.stmt] = []
    stmt: ast.stmt = anchor
    while True:
        owner = facts.parent(stmt)
        block = containing_list(owner, stmt) if owner is not None else None
        if owner is None or block is None:
            return region, None
        region += block[block.index(stmt) + 1 :]
        if isinstance(owner, ast.Try | ast.TryStar) and block is not owner.finalbody:
            open_ = next((h for h in owner.handlers if not _jumps(h.body)), None)
            if open_ is not None:
                return region, open_
            if block is owner.body:
                region += owner.orelse
        elif not isinstance(owner, ast.With | ast.AsyncWith):
            return region, None
        stmt = owner


def _jumps(body: list[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], _JUMPS)


def _inside(target: Span, region: list[ast.stmt] | list[ast.AST]) -> bool:
    return any(
        (s.line, s.col) <= (target.line, target.col)
        and (target.end_line, target.end_col) <= (s.end_line, s.end_col)
        for s in map(span, region)
    )


def _why_not(
    edit: Edit,
    facts: FileFacts,
    package: str,
    reaches: list[tuple[ast.Import | ast.ImportFrom, list[ast.stmt], ast.ExceptHandler | None]],
    local: set[str],
) -> str:
    node = _node_at(edit.target, facts)
    near = [  # the import in the class or function holding the edit, if there is one
        r
        for r in reaches
        if node is not None
        and (_inside(span(r[0]), [node]) or _function_of(r[0], facts) is _function_of(node, facts))
    ]
    anchor, region, open_ = (near or reaches)[0]
    function = _function_of(anchor, facts)
    where = _qualname(function, facts) if function is not None else "a block"
    name = sorted(_names(edit) & local)[0]
    guard = next(c.guard_module for c in CLIENTS.values() if c.package == package)
    used = f"at line {edit.target.line}"
    if edit.action == "add_base" and isinstance(node, ast.ClassDef):
        used = f"as {node.name}'s base, evaluated when the module is imported (line {node.lineno})"
    elif node is not None and (outer := _function_of(node, facts)) is not function:
        used += f", in {_qualname(outer, facts)}" if outer is not None else ", outside functions"
    if open_ is not None and function is not None and not _inside(edit.target, region):
        stop = (
            f"; the except at line {open_.lineno} goes on without it: end it with raise or return"
        )
    else:
        stop = ""
    return (
        f"{package} is imported only inside {where} (line {anchor.lineno}), where the codemod "
        f"adds {guard}'s import, but the migration uses {name} {used}, which that import does "
        f"not reach{stop}; import {package} at module level (in a try block, the except binding "
        f"the names used) or register callbacks defined inside {where} after its import, then "
        "run migrate again"
    )


def _function_of(node: ast.AST, facts: FileFacts) -> Function | None:
    parent = facts.parent(node)
    while parent is not None and not isinstance(parent, ast.FunctionDef | ast.AsyncFunctionDef):
        parent = facts.parent(parent)
    return parent


def _qualname(function: Function, facts: FileFacts) -> str:
    owner = facts.parent(function)
    prefix = f"{owner.name}." if isinstance(owner, ast.ClassDef) else ""
    return f"{prefix}{function.name}()"


def _node_at(target: Span, facts: FileFacts) -> ast.AST | None:
    return next((n for n in ast.walk(facts.tree) if span(n) == target), None)


def refuse_all(plan: MigrationPlan, reason: str) -> None:
    """Leave the file as written: every planned site refused with ``reason``."""
    lines = sorted({site.line for site in plan.planned})
    plan.edits.clear()
    plan.imports.clear()
    plan.unused_imports.clear()
    plan.planned.clear()
    plan.sites = 0
    for line in lines:
        plan.refuse(line, reason)


SHAPE = Shape(
    name="client imported inside a function",
    planner="shared",
    recognises=(
        "a client package every executed import of which is inside a function (plain, or in "
        "try: ... except ImportError), none at module level"
    ),
    plan=(
        "the planners' edits, their imports of that client put right after the function's "
        "import of it (guard_imports at that import), names only annotations elsewhere use "
        "(postponed) after the client's import under a module-level if TYPE_CHECKING; where "
        "another edit naming them is not after it in that function, the names importing no "
        "client (ClientFacts.guard_imports_client, guard_names_importing_client) imported at "
        "module level, the whole file refused if one importing it is such an edit's"
    ),
    fixtures=(
        "tests/codemods/test_optional_client_import.py",
        "tests/codemods/fixtures/local_import_confluent_init.py",
        "tests/codemods/fixtures/local_import_confluent.py",
        "tests/codemods/fixtures/local_import_kafka_python.py",
        "tests/codemods/fixtures/local_import_annotated_helper.py",
        "tests/codemods/fixtures/local_import_confluent_owner.py",
        "tests/codemods/fixtures/local_import_aiokafka_listener_factory.py",
    ),
)
