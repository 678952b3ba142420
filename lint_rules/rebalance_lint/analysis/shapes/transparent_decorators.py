"""Shape: a callback decorated with a decorator of the file that passes every call through
unchanged (the application samples: ``@synchronized_lag`` taking a lock around the callback,
and the logging, timing and error-catching wrappers real code puts on its callbacks):

    def synchronized(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with LOCK:
                return fn(*args, **kwargs)
        return wrapper

Such a wrapper never looks at the arguments, so the callback may take the view in its new
place (``(self, partitions, consumer)``) and keep the decorator. Proven from the decorator's
source: a module-level ``def d(fn)`` whose body is one ``def wrapper(*args, **kwargs)`` (or
``(self, *args, **kwargs)``), decorated at most with ``functools.wraps(fn)``, and
``return wrapper``; the wrapper uses ``fn``, ``args`` and ``kwargs`` only in one call
``fn(*args, **kwargs)`` (``fn(self, *args, **kwargs)``), awaited when the wrapper is async,
whose value it returns or drops. On a method, which stays a method, the wrapper may also read
its ``self`` (``with self.metrics_lock:``): the instance before and after; on a def that
becomes a method its first argument was the consumer, so there it must only be passed on.
Any other decorator (a factory ``@d(...)``, an imported one, one that reads or changes the
arguments) still refuses the callback, which says why."""

from __future__ import annotations

import ast

from rebalance_lint.analysis.migration_facts import FileFacts
from rebalance_lint.analysis.shape import Shape

Function = ast.FunctionDef | ast.AsyncFunctionDef


def passes_calls_through(fn: Function, facts: FileFacts, *, method: bool) -> bool:
    """Whether every decorator of ``fn`` is one of the file's pass-through wrappers of the
    same kind (async for an async callback), so ``fn``'s signature may change under it.
    ``method``: ``fn`` is a method before and after (its first argument the instance both
    times), so a wrapper's ``self`` may be read too (``with self.lock:``)."""
    return bool(fn.decorator_list) and all(
        _transparent(decorator, isinstance(fn, ast.AsyncFunctionDef), method, facts)
        for decorator in fn.decorator_list
    )


def decorated_refusal(label: str) -> str:
    """The refusal for a callback under any other decorator, with its next step."""
    return (
        f"{label} is decorated; the codemod cannot know what the decorator expects: it "
        "follows only a decorator defined in this file whose wrapper calls fn(*args, **kwargs) "
        "once and does nothing else with them; make the decorator pass the arguments through "
        "like that, or move the decorated work into a function the undecorated callback "
        "calls, then run migrate again"
    )


def _transparent(decorator: ast.expr, is_async: bool, method: bool, facts: FileFacts) -> bool:
    if not isinstance(decorator, ast.Name):
        return False
    found = facts.bindings.binding(decorator)
    if not isinstance(found, ast.FunctionDef) or found.decorator_list:
        return False
    if facts.parent(found) is not facts.tree:
        return False  # a method or a nested def: what it closes over is not read here
    args = found.args
    if len(args.args) != 1 or args.posonlyargs or args.kwonlyargs or args.vararg or args.kwarg:
        return False
    body = [s for s in found.body if not _is_docstring(s)]
    if len(body) != 2:
        return False
    wrapper, returned = body
    if not isinstance(wrapper, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    if not (isinstance(returned, ast.Return) and isinstance(returned.value, ast.Name)):
        return False
    if returned.value.id != wrapper.name or is_async != isinstance(wrapper, ast.AsyncFunctionDef):
        return False
    wrapped = args.args[0].arg
    if not all(_is_wraps(d, wrapped, facts) for d in wrapper.decorator_list):
        return False
    return _passes_through(wrapper, wrapped, is_async, method)


def _is_docstring(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)


def _is_wraps(decorator: ast.expr, wrapped: str, facts: FileFacts) -> bool:
    """``@functools.wraps(fn)`` (or ``@wraps(fn)`` imported from functools)."""
    if not isinstance(decorator, ast.Call) or decorator.keywords or len(decorator.args) != 1:
        return False
    argument = decorator.args[0]
    if not (isinstance(argument, ast.Name) and argument.id == wrapped):
        return False
    return facts.imports.resolve(decorator.func) == "functools.wraps"


def _passes_through(wrapper: Function, wrapped: str, is_async: bool, method: bool) -> bool:
    """The wrapper's parameters are ``(*args, **kwargs)`` or ``(self, *args, **kwargs)``,
    used (with ``fn``) only in one ``fn(<the same>)`` call, awaited if the wrapper is async,
    whose value is returned or dropped."""
    args = wrapper.args
    if args.posonlyargs or args.kwonlyargs or args.defaults or len(args.args) > 1:
        return False
    if args.vararg is None or args.kwarg is None:
        return False
    names = [a.arg for a in args.args] + [args.vararg.arg, args.kwarg.arg]
    if wrapped in names:
        return False
    free = {args.args[0].arg} if method and args.args else set()  # the instance: read freely
    if any(
        isinstance(node, ast.Name) and node.id in free and not isinstance(node.ctx, ast.Load)
        for node in ast.walk(wrapper)
    ):
        return False  # rebound: no longer the instance
    uses = [
        node
        for statement in wrapper.body
        for node in ast.walk(statement)
        if isinstance(node, ast.Name) and node.id in {wrapped, *names} - free
    ]
    calls = [
        node
        for statement in wrapper.body
        for node in ast.walk(statement)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == wrapped
    ]
    if len(calls) != 1 or len(uses) != len(names) - len(free) + 1:
        return False  # fn used once, each parameter once: all of them in that call
    call = calls[0]
    positional = [a.arg for a in args.args]
    expected = [*positional, f"*{args.vararg.arg}"]
    given = [
        f"*{a.value.id}"
        if isinstance(a, ast.Starred) and isinstance(a.value, ast.Name)
        else (a.id if isinstance(a, ast.Name) else "")
        for a in call.args
    ]
    keywords = [(k.arg, k.value) for k in call.keywords]
    if given != expected or len(keywords) != 1 or keywords[0][0] is not None:
        return False
    spread = keywords[0][1]
    if not (isinstance(spread, ast.Name) and spread.id == args.kwarg.arg):
        return False
    return _value_returned_or_dropped(wrapper, call, is_async)


def _value_returned_or_dropped(wrapper: Function, call: ast.Call, is_async: bool) -> bool:
    """The call's (awaited, for an async wrapper) value is a statement of its own or the
    value of a ``return``: nothing else sees it."""
    for node in ast.walk(wrapper):
        if isinstance(node, ast.Expr | ast.Return) and node.value is not None:
            value = node.value
            if is_async:
                if not isinstance(value, ast.Await):
                    continue
                value = value.value
            if value is call:
                return True
    return False


SHAPE = Shape(
    name="transparent decorators",
    planner="shared",
    recognises=(
        "a callback (confluent's or a listener's method) decorated with module-level def "
        "d(fn) returning a wrapper(*args, **kwargs) (functools.wraps at most) that only calls "
        "fn(*args, **kwargs) once"
    ),
    plan="none: the callback migrates as if undecorated, keeping its decorators",
    fixtures=(
        "tests/codemods/test_transparent_decorators.py",
        "tests/codemods/fixtures/transparent_decorators.py",
    ),
)
