"""Rule registration and dispatch tables: rules are plain functions keyed by node type.

Callback rules see each node a callback body executes (``@on(ast.Call)``); file rules see
the whole :class:`Analysis` once (``@per_file``). Rules yield :class:`Hit`; the engine turns
hits into findings through the one rule table.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from rebalance_lint.analysis.model import Analysis, Callback, Origin, dotted


@dataclass(frozen=True)
class Hit:
    """A rule firing at ``node`` (its line and column), with the message template's fields."""

    node: ast.AST
    code: str
    fields: dict[str, str] = field(default_factory=dict)


CallbackRule = Callable[[ast.AST, Callback, Analysis], Iterable[Hit]]
FileRule = Callable[[Analysis], Iterable[Hit]]

CALLBACK_RULES: dict[type[ast.AST], list[CallbackRule]] = {}
FILE_RULES: list[FileRule] = []


def on(*node_types: type[ast.AST]) -> Callable[[CallbackRule], CallbackRule]:
    """Register a rule for nodes of these types inside callback bodies."""

    def register(rule: CallbackRule) -> CallbackRule:
        for node_type in node_types:
            CALLBACK_RULES.setdefault(node_type, []).append(rule)
        return rule

    return register


def per_file(rule: FileRule) -> FileRule:
    """Register a rule that reads the whole analysis once."""
    FILE_RULES.append(rule)
    return rule


def consumer_method(node: ast.AST, callback: Callback) -> tuple[str, Origin] | None:
    """(method, origin) when ``node`` calls a method on one of the callback's consumers."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return None
    path = dotted(node.func.value)
    if path is None or path not in callback.receivers:
        return None
    return node.func.attr, callback.receivers[path]
