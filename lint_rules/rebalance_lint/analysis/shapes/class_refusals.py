"""Shape: the cascade: registrations refused only because their listener class is.

A ``subscribe(listener=Cls(...))`` that could be split on its own waits for its class (it
migrates once the class does, with it). Both sites get one message, the class's reason with
its next step, so a report grouping manual sites by reason counts them under what has to
change, not under a second message pointing at the first (issue 25: the fleet's 15
"registers X, which must be migrated by hand first" sites).
"""

from __future__ import annotations

import ast

from rebalance_lint.analysis.shape import Shape


def class_refusal(cls: ast.ClassDef, reason: str) -> str:
    """The one message for a refused listener class and each registration waiting for it."""
    return f"listener class {cls.name}: {reason}"


SHAPE = Shape(
    name="registrations of a refused class",
    planner="listeners",
    recognises=(
        "a listener registration whose own split was planned (family_sites) while its class "
        "is refused"
    ),
    plan="refusal: the class's message at the class and at each of its registrations",
    fixtures=("tests/codemods/test_refusals.py::test_a_registration_waits_for_its_class",),
)
