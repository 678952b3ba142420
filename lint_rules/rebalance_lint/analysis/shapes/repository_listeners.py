"""Shape: the listener class in one module, created or registered in another (repository
mode, :mod:`rebalance_lint.analysis.migration_repository`): its creations there count when
they are registered at a site their own file's plan migrates."""

from __future__ import annotations

from rebalance_lint.analysis.listener_state import RemoteUses, _State
from rebalance_lint.analysis.shape import Shape


def _remote_creations(remote: RemoteUses, state: _State) -> str | None:
    """Why the other modules' uses of the class stop its migration (None: they do not);
    records their creations and consumers in ``state``."""
    if remote.blocker is not None:
        return remote.blocker
    for creation in remote.creations:
        where = f"{creation.path}:{creation.call.lineno}"
        if creation.receiver is None and creation.driven is not None:
            continue  # a test calling its callbacks: .harness_direct_calls decides
        if creation.receiver is None:
            return (
                f"the instance created at {where} is not registered with "
                "subscribe(listener=...) there (or that subscribe() cannot be migrated); "
                "register it where it is created first"
            )
        if creation.escapes is not None:
            return f"{creation.escapes} (at {where})"
        state.registrations[creation.call] = creation.receiver
        state.remote[creation.call] = creation.path
    return None


SHAPE = Shape(
    name="listeners of another module",
    planner="repository",
    recognises=(
        "RemoteUses of a listener class (the other modules' creations, found by repository linking)"
    ),
    plan=("drop_call_arg in the other files (RemoteUses.edits)"),
    fixtures=(
        "tests/codemods/test_repository_mode.py",
        "tests/codemods/test_consumer_from_another_module.py",
        "tests/codemods/fixtures/repos",
    ),
)
