"""Shape: the callback's consumer only printed, logged or formatted
(``print("assign", consumer, partitions)``): the view's text instead, no edit needed.

Also what "only computes" means for code after a release (:mod:`.assign_release`) or after an
assign that became seeks (:mod:`.assign_at_times`): :func:`only_text_after`."""

from __future__ import annotations

import ast
import re

from rebalance_lint.analysis.confluent_callback import Function
from rebalance_lint.analysis.migration_facts import FileFacts
from rebalance_lint.analysis.shape import Shape

#: Functions that only turn their arguments into text.
_DISPLAY_FUNCTIONS = frozenset({"print", "str", "repr", "format", "ascii"})


#: ``logging.Logger`` methods; counted only on a receiver whose name says it is a logger.
_LOG_METHODS = frozenset(
    {"debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log"}
)


#: ``logger``, ``_log``, ``LOGGER``, ``self.app_logger``, ``logging``: names of loggers.
_LOGGER_NAME = re.compile(r"_*(\w+_)?(log|logger|logging)")


def only_displayed(use: ast.AST, facts: FileFacts) -> bool:
    """Whether ``use`` (the callback's consumer) is only turned into text: printed, logged,
    formatted (``str.format``, ``%``, an f-string) or passed to ``str``/``repr``.

    Handing the view there instead of the consumer changes nothing but the text (the view's
    ``repr`` names its callback), and the text is made while the callback runs, so such a use
    does not stop a migration (REAL_WORLD-style logging: ``print("assign", consumer, parts)``).
    """
    parent = facts.parent(use)
    if isinstance(parent, ast.FormattedValue):
        return parent.value is use
    if isinstance(parent, ast.Tuple):
        grand = facts.parent(parent)
        if isinstance(grand, ast.BinOp) and grand.right is parent:
            parent, use = grand, parent  # "%s %s" % (consumer, partitions)
    if isinstance(parent, ast.BinOp):
        return (
            isinstance(parent.op, ast.Mod)
            and parent.right is use
            and isinstance(parent.left, ast.Constant | ast.JoinedStr)
            and (isinstance(parent.left, ast.JoinedStr) or isinstance(parent.left.value, str))
        )
    keyword = isinstance(parent, ast.keyword)
    if parent is not None and keyword:
        parent = facts.parent(parent)  # only str.format(name=...): print(file=) writes to it
    if not isinstance(parent, ast.Call) or parent.func is use:
        return False
    func = parent.func
    if keyword and not (isinstance(func, ast.Attribute) and func.attr == "format"):
        return False
    return makes_text(func, facts)


#: Builtins that compute a value from their arguments and reach nothing else.
_VALUE_BUILTINS = frozenset(
    {"sorted", "len", "list", "tuple", "set", "frozenset", "dict", "min", "max", "sum",
     "any", "all", "int", "float", "bool", "enumerate", "zip", "range", "reversed"}
)  # fmt: skip


def only_computes(func: ast.expr, facts: FileFacts) -> bool:
    """Whether calling ``func`` only makes text (:func:`makes_text`) or a value from its
    arguments (``sorted``, ``len``...): it can run later without anyone noticing."""
    if isinstance(func, ast.Name) and func.id in _VALUE_BUILTINS:
        return func.id not in facts.index.claimed
    return makes_text(func, facts)


def makes_text(func: ast.expr, facts: FileFacts) -> bool:
    """Whether calling ``func`` only makes or writes text: ``print``, ``str``, ``repr``,
    ``"...".format``, a logger's ``info``/``warning``/...; it reaches no consumer."""
    if isinstance(func, ast.Name):
        return func.id in _DISPLAY_FUNCTIONS and func.id not in facts.index.claimed
    if not isinstance(func, ast.Attribute):
        return False
    if func.attr == "format":
        return isinstance(func.value, ast.Constant) and isinstance(func.value.value, str)
    receiver = func.value.attr if isinstance(func.value, ast.Attribute) else None
    if isinstance(func.value, ast.Name):
        receiver = func.value.id
    return (
        func.attr in _LOG_METHODS
        and receiver is not None
        and _LOGGER_NAME.fullmatch(receiver.lower()) is not None
    )


def only_text_after(statement: ast.stmt, fn: Function, facts: FileFacts) -> bool:
    """Whether everything ``fn`` runs after ``statement`` only logs, prints or computes values
    (:func:`only_computes`; no other call, no ``await``): it cannot see that a release moved
    to the end of the callback (:mod:`.assign_release`), nor that an assign became seeks the
    adapter assigns once the callback returns (:mod:`.assign_at_times`)."""
    end = (statement.end_lineno or statement.lineno, statement.end_col_offset or 0)
    for node in ast.walk(fn):
        at = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
        if at < end:
            continue
        if isinstance(node, ast.Await | ast.Yield | ast.YieldFrom | ast.Lambda) or (
            isinstance(node, ast.Call) and not only_computes(node.func, facts)
        ):
            return False
    return True


SHAPE = Shape(
    name="displayed consumer",
    planner="shared",
    recognises=(
        "the consumer passed to print/str/repr/format, an f-string, %-formatting or a "
        "logger's methods"
    ),
    plan=("none: the use stays and shows the view"),
    fixtures=("tests/codemods/test_displayed_consumer.py",),
)
