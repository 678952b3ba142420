"""The migration planner's shapes, one module each, collected like the rule families.

Each module here is one real-world shape (REAL_WORLD.md) the planner recognises: the
functions that recognise it in the model and stage its edits, the refusals it can give with
their next step, and its :class:`~rebalance_lint.analysis.shape.Shape` (``SHAPE``: what it
recognises, the plan, the fixtures that show it). The planners import the functions they
dispatch to; :func:`collected` finds every module's ``SHAPE`` (the tests hold each one to
its fixtures, and ``benchmarks/migration_refusals.py`` reads every module's refusals). A new
shape is one new module plus its fixtures.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from types import ModuleType

from rebalance_lint.analysis.shape import Shape


@cache
def modules() -> tuple[ModuleType, ...]:
    """Every module of this package, in name order."""
    return tuple(
        importlib.import_module(f"{__name__}.{info.name}")
        for info in sorted(pkgutil.iter_modules(__path__), key=lambda info: info.name)
    )


def collected() -> tuple[Shape, ...]:
    """Every module's ``SHAPE``; a module without one is an error (it would be a shape
    nobody can find, or a helper that belongs outside this package)."""
    found: list[Shape] = []
    for module in modules():
        shape = getattr(module, "SHAPE", None)
        if not isinstance(shape, Shape):
            raise TypeError(f"{module.__name__} defines no SHAPE")
        found.append(shape)
    names = [shape.name for shape in found]
    if len(set(names)) != len(names):
        raise ValueError(f"two shape modules share a name: {names}")
    return tuple(found)
