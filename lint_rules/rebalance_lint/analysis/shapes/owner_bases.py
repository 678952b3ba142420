"""Which owner classes can become their own listener by gaining ``RebalanceListener`` as a
further base (:mod:`.owner_callbacks`): one decision, with the refusal naming the next step.

RebalanceListener's metaclass is ``type``, so a class keeps its own metaclass and gains one
more base; refused are class decorators (but ``@dataclass``), keywords other than
``metaclass=``, enum, typing and ctypes bases or metaclasses, and bases that are not plain
names (but ``Generic[T]``, after which Python's MRO takes another base)."""

from __future__ import annotations

import ast

from rebalance_lint.analysis.migration_expressions import is_dotted
from rebalance_lint.analysis.migration_facts import FileFacts
from rebalance_lint.analysis.shape import Shape

#: Bases an owner class cannot simply gain another base next to.
_SPECIAL_BASES = ("typing.", "typing_extensions.", "enum.", "ctypes.")


def why_not_a_listener(owner: ast.ClassDef, facts: FileFacts) -> str | None:
    """Why ``owner`` cannot take RebalanceListener as another base; None when it can."""
    if not _plain_metaclass(owner, facts) or (
        owner.decorator_list and not _only_dataclass(owner, facts)
    ):
        return (
            f"{owner.name} has class decorators, class keywords or a metaclass of enum, typing "
            "or ctypes; make a RebalanceListener class that calls its methods by hand"
        )
    for base in owner.bases:
        if generic(base, facts):
            continue  # Generic[T]: its MRO takes another base after it (held_out_7 010)
        if not is_dotted(base) or any(
            name.startswith(_SPECIAL_BASES) for name in facts.qualnames(base)
        ):
            return (
                f"{owner.name} derives from {ast.unparse(base)}, which cannot take "
                "RebalanceListener as another base; make a listener class by hand"
            )
    return None


def _plain_metaclass(owner: ast.ClassDef, facts: FileFacts) -> bool:
    """No class keywords but ``metaclass=M`` (held_out_7 014: ``metaclass=SingletonMeta``):
    RebalanceListener's metaclass is ``type``, so ``M`` stays the class's metaclass, seeing
    one more base and the renamed methods, as any base class the codemod cannot see may;
    an enum, typing or ctypes metaclass is refused, as those bases are."""
    for keyword in owner.keywords:
        if keyword.arg != "metaclass" or not is_dotted(keyword.value):
            return False
        if any(name.startswith(_SPECIAL_BASES) for name in facts.qualnames(keyword.value)):
            return False
    return True


def generic(base: ast.expr, facts: FileFacts) -> bool:
    """``Generic[T, ...]`` (typing's or typing_extensions'), each argument a name bound once
    to ``TypeVar(...)``."""
    typing = ("typing.", "typing_extensions.")
    if not isinstance(base, ast.Subscript) or not is_dotted(base.value):
        return False
    if not {f"{t}Generic" for t in typing} & facts.qualnames(base.value):
        return False
    args = base.slice.elts if isinstance(base.slice, ast.Tuple) else [base.slice]
    for arg in args:
        found = facts.sole_assignment(arg) if isinstance(arg, ast.Name) else None
        made = found[1] if found is not None else None
        if not (
            isinstance(made, ast.Call)
            and {f"{t}TypeVar" for t in typing} & facts.qualnames(made.func)
        ):
            return False
    return True


def _only_dataclass(cls: ast.ClassDef, facts: FileFacts) -> bool:
    wanted = {"dataclasses.dataclass"}
    return all(
        facts.qualnames(d.func if isinstance(d, ast.Call) else d) & wanted
        for d in cls.decorator_list
    )


SHAPE = Shape(
    name="owner classes that can take the listener base",
    planner="confluent",
    recognises="an owner class's decorators, keywords, metaclass and bases",
    plan="refusal (else owner_callbacks' add_base)",
    fixtures=("tests/codemods/test_owner_bases.py",),
)
