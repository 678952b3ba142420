"""The one client table (rebalance_guard._client_facts) agrees with the runtime and the clients.

The analysis and the codemods read the table; these tests read the runtime Protocols, the
view's OMITTED set and the installed clients themselves, so the table cannot drift from them.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from rebalance_guard import _client_facts, _view
from rebalance_guard._client_facts import (
    CLIENTS,
    CONSUMER_METHODS,
    OMITTED_METHODS,
    SUBSCRIBE_CALLBACKS,
    ClientFacts,
)

ROWS = list(CLIENTS.values())
IDS = [facts.key for facts in ROWS]


def _guard_module(facts: ClientFacts) -> ModuleType:
    return importlib.import_module(facts.guard_module)


@pytest.mark.parametrize("facts", ROWS, ids=IDS)
def test_view_methods_are_the_rebalance_consumer_protocol(facts: ClientFacts) -> None:
    protocol = _guard_module(facts).RebalanceConsumer
    members = {name for name in vars(protocol) if not name.startswith("_")}
    assert facts.view_methods == members


@pytest.mark.parametrize("facts", ROWS, ids=IDS)
def test_coroutine_view_methods_are_the_protocols_async_ones(facts: ClientFacts) -> None:
    protocol = _guard_module(facts).RebalanceConsumer
    asynchronous = {
        name
        for name, member in vars(protocol).items()
        if not name.startswith("_") and inspect.iscoroutinefunction(member)
    }
    assert asynchronous == facts.view_methods & facts.coroutine_methods


@pytest.mark.parametrize("facts", ROWS, ids=IDS)
def test_guard_module_offers_what_the_row_says(facts: ClientFacts) -> None:
    module = _guard_module(facts)
    assert callable(getattr(module, facts.guard_registration))
    assert inspect.isclass(module.RebalanceListener)
    assert f"{module.__name__}.RebalanceListener" == facts.guard_listener
    for name in facts.guard_consumer_classes:
        assert inspect.isclass(getattr(module, name))
    callbacks_async = any(
        inspect.iscoroutinefunction(getattr(module.RebalanceListener, method, None))
        for method in ("on_partitions_assigned", "on_partitions_revoked", "on_partitions_lost")
    )
    assert not callbacks_async or facts.async_callbacks


@pytest.mark.parametrize("facts", ROWS, ids=IDS)
def test_guard_module_imports_the_client_as_the_row_says(facts: ClientFacts) -> None:
    """Importing the guard module in a fresh interpreter imports the client exactly when
    ``guard_imports_client`` says so (the migration of a client imported only inside a
    function relies on it: local_client_import)."""
    probe = f"import sys, {facts.guard_module}; print({facts.package!r} in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    assert result.stdout.strip() == str(facts.guard_imports_client)


def _imports_client_after(facts: ClientFacts, statement: str, blocked: bool = False) -> str:
    """What a fresh interpreter prints running ``statement`` (``blocked``: with the client's
    import refused, as on a machine without it), then whether the client was imported."""
    block = f"sys.modules[{facts.package!r}] = None; " if blocked else ""
    imported = f"sys.modules.get({facts.package!r}) is not None"
    probe = f"import sys; {block}{statement}; print({imported})"
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120
    )
    return result.stdout.strip() or result.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize("facts", ROWS, ids=IDS)
def test_names_import_the_client_on_access_as_the_row_says(facts: ClientFacts) -> None:
    """``from <guard module> import <name>`` imports the client exactly for the names of
    ``guard_names_importing_client`` (the migration hoists the others' imports to module
    level: local_client_import); with the client missing those raise an ImportError naming
    the distribution, and the others still import."""
    public = sorted(set(_guard_module(facts).__all__) | facts.guard_names_importing_client)
    importing = sorted(facts.guard_names_importing_client)
    if not facts.guard_imports_client:
        others = ", ".join(sorted(set(public) - facts.guard_names_importing_client))
        assert _imports_client_after(facts, f"from {facts.guard_module} import {others}") == (
            "False"
        )
        assert _imports_client_after(facts, f"import {facts.guard_module}", blocked=True) == (
            "False"
        )
    for name in importing:
        assert _imports_client_after(facts, f"from {facts.guard_module} import {name}") == "True"
        missing = _imports_client_after(facts, f"from {facts.guard_module} import {name}", True)
        assert (
            missing.startswith("ImportError: ")
            and f"pip install {facts.name.split()[0]}" in missing
        )
        assert f"{facts.guard_module}.{name} needs" in missing


def test_omitted_methods_are_the_views_omitted_set() -> None:
    assert OMITTED_METHODS == _view.OMITTED


@pytest.mark.parametrize("facts", ROWS, ids=IDS)
def test_the_client_itself_has_the_classes_and_methods(facts: ClientFacts) -> None:
    consumers = importlib.import_module(facts.consumer_module)
    package = importlib.import_module(facts.package)
    for base in facts.listener_bases | facts.async_listener_bases:
        assert inspect.isclass(getattr(package, base))
    for name in facts.consumer_classes:
        consumer = getattr(consumers, name)
        assert {m for m in facts.view_methods if not hasattr(consumer, m)} == set()
        coroutines = {
            m
            for m in dir(consumer)
            if not m.startswith("_") and inspect.iscoroutinefunction(getattr(consumer, m))
        }
        assert coroutines == facts.coroutine_methods


def test_shared_names() -> None:
    assert set(SUBSCRIBE_CALLBACKS) == {"on_assign", "on_revoke", "on_lost"}
    assert {m for m in OMITTED_METHODS if not m.startswith("__")} <= CONSUMER_METHODS
    assert len({(facts.package, facts.consumer_module) for facts in ROWS}) == len(ROWS)


def test_the_table_imports_only_the_standard_library() -> None:
    """The lint and the codemods read it without loading a Kafka client or rebalance_guard."""
    path = Path(_client_facts.__file__)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = {
        (alias.name if isinstance(node, ast.Import) else node.module or "").partition(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    assert imported <= set(sys.stdlib_module_names) | {"__future__"}
