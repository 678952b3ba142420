"""Shape: a listener class of the file registered with kafka-python's or aiokafka's
``subscribe()`` whose bases are not (as far as the codemod sees) the client's
``ConsumerRebalanceListener``: the refusal, told apart by what the bases are. A class deriving
from nothing (directly, or through classes of the file that do) is rejected by both clients'
``subscribe()`` (an isinstance check raises: KRB114); any other base may derive from the
client's listener in code the codemod does not read, so it says where to look instead of
claiming a bug. Which classes derive from nothing is :mod:`..unbased_classes`' decision, as
for KRB114."""

from __future__ import annotations

import ast

from rebalance_lint.analysis.migration_facts import FileFacts
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.unbased_classes import (
    derives_from_nothing,
    rejected_self,
    unbased_classes,
)


def self_refusal(own: ast.ClassDef, facts: FileFacts) -> str | None:
    """Why ``listener=self`` in a method of ``own`` (no listener class the planner knows) is
    refused: the clients reject an instance of a class deriving from nothing (KRB114's
    ``self`` case). None for any other class: it may derive from the client's listener in
    code the codemod does not read, and the runtime takes such a legacy listener as is."""
    if not rejected_self(own, facts.tree):
        return None
    return (
        f"listener=self: class {own.name} derives from no client listener base (nor does any "
        "class of this file derive from it), which kafka-python's and aiokafka's subscribe() "
        "reject (an isinstance check raises); derive it from the client's "
        "ConsumerRebalanceListener first (KRB114), then run migrate again"
    )


def unknown_base_refusal(cls: ast.ClassDef, facts: FileFacts) -> str:
    """Why the listener class ``cls`` (no listener class the planner knows) is refused, with
    the next step."""
    if derives_from_nothing(cls):
        return (
            f"listener class {cls.name} derives from no client listener base, which "
            "kafka-python's and aiokafka's subscribe() reject (an isinstance check raises); "
            "derive it from the client's ConsumerRebalanceListener first (KRB114), then run "
            "migrate again"
        )
    bases = ", ".join(ast.unparse(base) for base in cls.bases)
    if cls.name in unbased_classes(facts.tree):
        return (
            f"listener class {cls.name} derives, through {bases} (of this file), from no "
            "client listener base, which kafka-python's and aiokafka's subscribe() reject "
            f"(an isinstance check raises); derive {bases} from the client's "
            "ConsumerRebalanceListener first (KRB114), then run migrate again"
        )
    return (
        f"listener class {cls.name} derives from {bases}, which the codemod cannot tell "
        "derives from the client's ConsumerRebalanceListener (kafka-python's and aiokafka's "
        "subscribe() reject any other listener); if it does, run rebalance-guard migrate on a "
        "directory holding that base's module too, else derive the class from the client's "
        "ConsumerRebalanceListener first, then run migrate again"
    )


SHAPE = Shape(
    name="listener classes of unknown base",
    planner="listeners",
    recognises=(
        "a class of the file registered as subscribe(listener=...) that the planner knows "
        "as no client listener class, or listener=self in a method of a class deriving from "
        "nothing"
    ),
    plan=("refusal"),
    fixtures=(
        "tests/codemods/test_refusals.py",
        "tests/codemods/test_unknown_listener_bases.py",
    ),
)
