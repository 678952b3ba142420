"""Shape: the client imported only inside ``try``/``except ImportError`` (REAL_WORLD.md:
"the listener's module imports the client only inside try/except ImportError").

A refusal for every planner: the guard module imports the client unconditionally, so the
migrated module would stop loading without it."""

from __future__ import annotations

from rebalance_lint.analysis.migration_facts import FileFacts
from rebalance_lint.analysis.shape import Shape


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


SHAPE = Shape(
    name="optional client import",
    planner="shared",
    recognises=(
        "a client package the file imports only inside try: ... except ImportError "
        "(FileIndex.optional)"
    ),
    plan=("refusal"),
    fixtures=("tests/codemods/test_refusals.py",),
)
