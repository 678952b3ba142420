"""What one shape module of the migration planner declares about itself (plain data).

Every module of :mod:`rebalance_lint.analysis.shapes` defines one :class:`Shape` named
``SHAPE``: a real-world shape the migration (or an auto-fix) recognises, the plan it makes of
it, and the fixtures that show it; its refusals are the reasons its code returns, each with
its next step. :func:`rebalance_lint.analysis.shapes.collected` finds them all, the planners
(:mod:`.migration_confluent`, :mod:`.migration_listeners`, :mod:`.fixes`) dispatch to their
functions, and the tests hold every module to having fixtures.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

#: Which planner dispatches to the shape.
Planner = Literal["confluent", "listeners", "repository", "fixes", "shared"]


@dataclass(frozen=True)
class Shape:
    """One shape the planner recognises.

    ``recognises``: what in the model (or the file) makes a site this shape; ``plan``: the
    edits it stages (:class:`~rebalance_lint.analysis.edits.Edit` actions), or "refusal" for a
    shape that only says why not and what to do first; ``fixtures``: the tests and fixture
    files that show it, as paths from the repository root, a test optionally named after
    ``::`` (``tests/codemods/test_two_roles.py::test_one_def_in_two_roles``).
    """

    name: str
    planner: Planner
    recognises: str
    plan: str
    fixtures: tuple[str, ...]
