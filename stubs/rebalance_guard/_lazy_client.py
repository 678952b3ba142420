"""Importing a client on first use: what a ``rebalance_guard`` module needs only at run time.

``rebalance_guard.confluent_kafka`` and ``rebalance_guard.confluent_kafka_aio`` import without
confluent-kafka (code importing it only inside a function, as an optional dependency, may
import them at module level: ``ClientFacts.guard_imports_client``); their consumer classes and
functions import it when first used, through :func:`client_needed`, which turns the client's
absence into an ImportError saying what needs which distribution. Standard library only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any


@contextmanager
def client_needed(what: str, package: str, distribution: str) -> Iterator[None]:
    """Run the block that imports ``package`` for ``what``; re-raise its absence clearly."""
    try:
        yield
    except ImportError as exc:
        missing = exc.name or ""
        if missing != package and not missing.startswith(f"{package}."):
            raise
        raise ImportError(
            f"{what} needs {distribution}, which cannot be imported here ({exc}): "
            f"pip install {distribution}",
            name=exc.name,
        ) from exc


def served_lazily(
    namespace: dict[str, Any],
    names: tuple[str, ...],
    load: Callable[[], ModuleType],
    package: str,
    distribution: str,
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A module's ``__getattr__`` and ``__dir__`` (PEP 562) serving ``names`` from the module
    ``load()`` imports (which imports ``package``) on first access; ``namespace``: the serving
    module's ``globals()``, where each name is kept once served."""
    module = namespace["__name__"]

    def __getattr__(name: str) -> Any:
        if name not in names:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        with client_needed(f"{module}.{name}", package, distribution):
            value = getattr(load(), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *names})

    return __getattr__, __dir__
