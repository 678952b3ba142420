"""Shape: ``functools.partial(handler, a, ...)`` callbacks of a def of this file, including
ones whose bound first argument pushes the consumer to the second position.

``handler`` becomes the method as a function does; the parameters the partial binds become
``__init__`` parameters stored on ``self``, and the constructor call takes the partial's place
in ``subscribe()``, so each bound value is still evaluated once, in the same order."""

from __future__ import annotations

import ast

from rebalance_guard._client_facts import ClientFacts

from rebalance_lint.analysis.confluent_callback import _Callback, _param
from rebalance_lint.analysis.migration_expressions import has_star_args, is_pure
from rebalance_lint.analysis.migration_facts import FileFacts, self_class
from rebalance_lint.analysis.shape import Shape


def _partial_callback(keyword: str, value: ast.Call, facts: FileFacts) -> _Callback | str:
    """``functools.partial(handler, *bound)`` of a def of this file, checked."""
    wrapped = value.args[0] if value.args else None
    function = facts.bindings.binding(wrapped) if isinstance(wrapped, ast.Name) else None
    if has_star_args(value) or wrapped is None:
        return (
            f"{keyword}= is a functools.partial given *args or **kwargs; pass the function "
            "and the bound arguments one by one first"
        )
    if isinstance(wrapped, ast.Attribute) and self_class(wrapped.value, facts) is not None:
        return (
            f"{keyword}= is a functools.partial of the method {ast.unparse(wrapped)}; store "
            f"the bound values on {ast.unparse(wrapped.value)} and register the method itself "
            f"({keyword}={ast.unparse(wrapped)}, taking (self, consumer, partitions)) first"
        )
    if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
        where = "imported, not" if isinstance(function, ast.Import | ast.ImportFrom) else "not"
        return (
            f"{keyword}= is a functools.partial of {ast.unparse(wrapped)}, which is {where} "
            f"a function defined in this file; write def {keyword}(consumer, partitions) "
            "calling it with the bound arguments next to the subscribe() and pass its name, "
            "then run migrate again"
        )
    args = function.args
    given = len(value.args) - 1
    rest = [a.arg for a in args.args[given + 2 :]] + [a.arg for a in args.kwonlyargs]
    keywords = [kw.arg for kw in value.keywords]
    if (
        args.posonlyargs
        or args.vararg
        or args.kwarg
        or args.defaults
        or any(d is not None for d in args.kw_defaults)
        or len(args.args) < given + 2
        or sorted(rest) != sorted(k for k in keywords if k is not None)
    ):
        return (
            f"functools.partial({function.name}, ...) does not leave exactly (consumer, "
            f"partitions) of {function.name} unbound (or {function.name} has defaults, *args "
            "or **kwargs); bind the parameters before the consumer positionally and the ones "
            "after the partitions by keyword, without defaults, first (KRB109)"
        )
    bound = tuple(a.arg for a in args.args[:given]) + tuple(rest)
    return _Callback(keyword, function, partial=value, bound=bound)


def _bound_arguments(callbacks: list[_Callback], facts: FileFacts) -> dict[str, str] | str:
    """The source of each value the partials bind, by parameter (the listener's constructor
    arguments, in this order), or why a bound parameter cannot become an attribute.

    The constructor call takes the partials' place in the ``subscribe()`` call, so every value
    is still evaluated once, when ``subscribe()`` runs, after the consumer and the topics. Its
    arguments follow the callbacks' and the functions' parameter order, not necessarily the
    source's: that is the same program when the values with side effects (calls, ...: not
    ``migration_facts.is_pure``) keep their relative order, and none is bound twice (the
    partials evaluated it once each; the listener would share one value)."""
    values: dict[str, str] = {}
    effects: list[tuple[tuple[int, int], str, ast.expr]] = []  # (where, parameter, value)
    text = "\n".join(facts.lines)
    for callback in callbacks:
        partial, function = callback.partial, callback.function
        if partial is None or isinstance(function, ast.Lambda):
            continue
        given = dict(zip(callback.bound, partial.args[1:], strict=False))
        given |= {kw.arg: kw.value for kw in partial.keywords if kw.arg is not None}
        for parameter in callback.bound:
            value = given[parameter]
            source = ast.get_source_segment(text, value) or ""
            shared = parameter in values
            if values.setdefault(parameter, source) != source:
                return (
                    f"two functools.partial callbacks bind {parameter} to different values; "
                    "rename the parameter in one of the functions first"
                )
            if not is_pure(value):
                if shared:
                    return _evaluated_once(function.name, value)
                effects.append(((value.lineno, value.col_offset), parameter, value))
            refs = facts.bindings.references(_param(function, parameter), parameter)
            if refs is None or any(
                isinstance(node, ast.Global | ast.Nonlocal) and parameter in node.names
                for node in ast.walk(function)
            ):
                return (
                    f"{function.name} rebinds {parameter}, which functools.partial binds "
                    "(it becomes an attribute of the listener); use a new name first"
                )
    in_source = [parameter for _, parameter, _ in sorted(effects, key=lambda e: e[0])]
    in_call = [parameter for parameter in values if parameter in in_source]
    if in_source != in_call:
        first = next(v for _, p, v in effects if p == in_call[0])
        name = next(cb.label for cb in callbacks if cb.partial and first in _partial_values(cb))
        return _evaluated_once(name, first)
    return values


def _partial_values(callback: _Callback) -> list[ast.expr]:
    partial = callback.partial
    return [] if partial is None else [*partial.args[1:], *(k.value for k in partial.keywords)]


def _evaluated_once(function: str, value: ast.expr) -> str:
    return (
        f"functools.partial({function}, ...) binds {ast.unparse(value)}, which has side "
        "effects and would be evaluated twice or in another order by the listener's "
        "constructor; assign it to a variable before the subscribe() and bind that, then "
        "run migrate again"
    )


def resolve(
    keyword: str, value: ast.expr, client: ClientFacts, facts: FileFacts
) -> _Callback | str | None:
    """A ``functools.partial(...)`` call, checked; None when ``value`` is not one."""
    if isinstance(value, ast.Call) and "functools.partial" in facts.qualnames(value.func):
        return _partial_callback(keyword, value, facts)
    return None


SHAPE = Shape(
    name="functools.partial callbacks",
    planner="confluent",
    recognises=("a functools.partial(...) call registered as a callback"),
    plan=("gather (bound attributes) + replace_with_name + resubscribe with constructor arguments"),
    fixtures=(
        "tests/codemods/test_confluent_lambda_partial.py",
        "tests/codemods/fixtures/partial_aio.py",
        "tests/codemods/fixtures/partial_in_a_worker.py",
        "tests/codemods/fixtures/partial_settings_first.py",
    ),
)
