"""Shape: a legacy listener callback whose partitions parameter is annotated with a type the
client's KIP-1306 listener base does not declare: ``revoked: set[TopicPartition]`` or
``assigned: List[TopicPartition]`` on aiokafka, whose ``RebalanceListener`` declares
``AbstractSet`` (aiokafka passes a frozenset on revocation, a set on assignment), or a list on
kafka-python, whose base declares ``set``. The client's own base is untyped, so this never
mattered; after the rebase the override no longer type-checks (mypy ``[override]``, pyright
``reportIncompatibleMethodOverride``). The annotation becomes the base's collection, the
user's element type kept: ``set[TopicPartition]`` -> ``AbstractSet[TopicPartition]``.

Annotations the base's type already satisfies stay as written (``Iterable[...]``,
``Collection[...]``, ``AbstractSet[...]``, and ``set[...]`` on kafka-python), and so does
anything not plainly one of the collections below (a string, an alias, a union). Only the
annotation changes: the callback gets what it got before, now typed as it is (and so do the
helpers it hands them to that only read them: :mod:`.partition_helpers`).
"""

from __future__ import annotations

import ast
import importlib.util
from collections.abc import Mapping
from functools import cache, partial
from pathlib import Path

from rebalance_guard._client_facts import ClientFacts

from rebalance_lint.analysis.confluent_callback import Function
from rebalance_lint.analysis.edits import Edit, MigrationPlan, span
from rebalance_lint.analysis.migration_facts import FileFacts
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.partition_helpers import widen_helpers

#: Collections no KIP-1306 listener base declares for the partitions (builtins by name).
_SEQUENCES = frozenset(
    {
        "list",
        "tuple",
        "typing.List",
        "typing.Tuple",
        "typing.Sequence",
        "typing.MutableSequence",
        "collections.abc.Sequence",
        "collections.abc.MutableSequence",
    }
)
_CONCRETE_SETS = frozenset(
    {
        "set",
        "frozenset",
        "typing.Set",
        "typing.FrozenSet",
        "typing.MutableSet",
        "collections.abc.MutableSet",
    }
)


@cache
def declared(client: ClientFacts) -> tuple[str, tuple[str, str, str] | None]:
    """What the client's KIP-1306 ``RebalanceListener`` declares its partitions as, read from
    its ``rebalance_guard`` module's source (the one source of truth; not imported: that would
    cost every ``check`` run): the collection's name, and (module, name, local name) to import
    it as that module does, or None for a builtin (``set`` on kafka-python; on aiokafka
    ``AbstractSet``, ``collections.abc.Set``)."""
    spec = importlib.util.find_spec(client.guard_module)
    assert spec is not None and spec.origin is not None, client.guard_module
    tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
    listener = next(
        node
        for node in tree.body
        if isinstance(node, ast.ClassDef) and node.name == "RebalanceListener"
    )
    method = next(
        node
        for node in listener.body
        if isinstance(node, ast.FunctionDef) and node.name == "on_partitions_revoked"
    )
    annotation = [*method.args.posonlyargs, *method.args.args][1].annotation
    head = annotation.value if isinstance(annotation, ast.Subscript) else annotation
    assert isinstance(head, ast.Name), ast.dump(method.args)
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                if (alias.asname or alias.name) == head.id:
                    return head.id, (node.module, alias.name, head.id)
    return head.id, None


def plan_partition_annotations(
    callbacks: Mapping[Function, str], client: ClientFacts, facts: FileFacts, plan: MigrationPlan
) -> None:
    """Stage the declared collection for each migrated callback's partitions parameter
    annotated with one the client's base does not declare (``callbacks``: each callback
    with its view's name)."""
    for fn in callbacks:
        params = [*fn.args.posonlyargs, *fn.args.args]
        annotation = params[1].annotation if len(params) > 1 else None
        if annotation is None:
            continue
        head = annotation.value if isinstance(annotation, ast.Subscript) else annotation
        name = declared(client)[0]
        wrong = _SEQUENCES if name in _CONCRETE_SETS else _SEQUENCES | _CONCRETE_SETS
        if _qualname(head, facts) not in wrong:
            continue
        collection = _collection(client, facts, plan)
        if collection is None:
            continue
        element = (
            f"[{ast.unparse(annotation.slice)}]" if isinstance(annotation, ast.Subscript) else ""
        )
        plan.edit(Edit("replace_with_expression", span(annotation), value=collection + element))
        plan.unused_imports.append(span(head))  # ``List``: dropped if nothing else uses it
        widen_helpers(fn, collection, partial(_names_one_of, wrong, facts), facts, plan)


def _names_one_of(collections: frozenset[str], facts: FileFacts, node: ast.expr) -> bool:
    return _qualname(node, facts) in collections


def _qualname(node: ast.expr, facts: FileFacts) -> str | None:
    """The collection ``node`` names: an imported one's qualified name, or a builtin's name
    where nothing in the file binds it."""
    found = facts.qualnames(node)
    if found:
        return next(iter(found))
    if isinstance(node, ast.Name) and facts.bindings.binding(node) is None:
        return node.id
    return None


def _collection(client: ClientFacts, facts: FileFacts, plan: MigrationPlan) -> str | None:
    """The name to write for the base's collection (:func:`declared`: ``set`` on kafka-python;
    on aiokafka ``AbstractSet``, imported as the stubs do unless the file binds that name to
    something else, then None: left as it was)."""
    name, imported = declared(client)
    if imported is None:
        return name
    module, original, local = imported
    if local in facts.index.names and facts.imports.qualname(local) not in (
        f"{module}.{original}",
        f"typing.{local}",
    ):
        return None
    plan.imports.add(imported)
    return local


SHAPE = Shape(
    name="partition annotations",
    planner="listeners",
    recognises=(
        "a migrated callback's partitions parameter annotated with a collection the client's "
        "RebalanceListener does not declare (list/Sequence; on aiokafka also set/frozenset)"
    ),
    plan="replace_with_expression (the annotation -> AbstractSet[...] on aiokafka, set[...])",
    fixtures=(
        "tests/codemods/test_partition_annotations.py",
        "tests/codemods/fixtures/partition_annotations.py",
    ),
)
