"""Which classes of a file derive from no base at all: the one decision behind KRB114 (a
listener the clients' ``subscribe()`` rejects) and the migration's refusal that names it."""

from __future__ import annotations

import ast


def derives_from_nothing(cls: ast.ClassDef) -> bool:
    """No base but ``object``, no class keywords and no decorators (a metaclass or a
    decorator could make anything of it)."""
    return (
        not cls.keywords
        and not cls.decorator_list
        and all(isinstance(base, ast.Name) and base.id == "object" for base in cls.bases)
    )


def unbased_classes(tree: ast.Module) -> set[str]:
    """Names bound in the file only by one ``class`` statement (no other class, def, import
    or assignment of the name) deriving from nothing (:func:`derives_from_nothing`), directly
    or through such classes of the file only (``class Mixin: ...``, ``class L(Mixin)``)."""
    classes: dict[str, list[ast.ClassDef]] = {}
    other: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            classes.setdefault(node.name, []).append(node)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            other.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            other.update((alias.asname or alias.name).partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            other.add(node.id)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            other.update(node.names)
    single = {
        name: found[0]
        for name, found in classes.items()
        if len(found) == 1
        and name not in other
        and not found[0].keywords
        and not found[0].decorator_list
    }
    unbased = {name for name, cls in single.items() if derives_from_nothing(cls)}
    grown = True
    while grown:  # a class whose every base is one of them derives from nothing too
        grown = False
        for name, cls in single.items():
            if name not in unbased and all(
                isinstance(base, ast.Name) and (base.id == "object" or base.id in unbased)
                for base in cls.bases
            ):
                unbased.add(name)
                grown = True
    return unbased


def rejected_self(cls: ast.ClassDef, tree: ast.Module) -> bool:
    """Whether ``listener=self`` in a method of ``cls`` gives the clients an instance they
    reject: ``cls`` derives from nothing (:func:`unbased_classes`) and no class of the file
    derives from it. A subclass defined elsewhere could still add the client's base, so this
    is a risk, never a certainty (KRB114's ``self`` case)."""
    if cls.name not in unbased_classes(tree):
        return False
    return not any(
        isinstance(node, ast.ClassDef)
        and any(
            isinstance(name, ast.Name) and name.id == cls.name
            for base in node.bases
            for name in ast.walk(base)
        )
        for node in ast.walk(tree)
    )
