"""Shape: a helper that registers the callbacks its callers pass (REAL_WORLD.md: "a helper
that takes the callback as a parameter"):
``def consumer_subscribe(conf, topics, on_assign): ...; consumer.subscribe(topics,
on_assign=on_assign)``, called as ``consumer_subscribe(conf, topics, on_assign=on_assign)``.

The helper's ``subscribe()`` registers, through the adapter, a listener class defined just
before it whose methods call the parameters with the view (``on_assign(consumer,
partitions)``; under ``if on_assign is not None`` where the default is None): the helper
keeps its signature, and its callbacks now take the view. That is sound only where every
callback the helper is given is known, so every call of the helper must be known (a helper
nothing calls, or one listed in ``__all__``, is an API: refused), call it by its name, and
pass a callback :mod:`.passed_callbacks` makes take the view. A call passing None, or leaving
out a parameter whose default is None, is refused as :mod:`.chosen_callbacks` refuses a None
choice (:func:`~..confluent_callback.none_callback_refusal`): confluent's ``subscribe()``
raises TypeError for it (``AIOConsumer`` calls None at the rebalance), which a listener
skipping the callback would turn into a working subscription. The parameter must reach only
this ``subscribe()``, with no annotation and no default but None.
``migrate FILE`` sees the calls in the file (as for a listener class, the file is taken to
hold its callers once it calls it); ``migrate DIR`` also those in the repository's other
modules (:attr:`~..migration_facts.FileFacts.callers`; any other use there refuses), whose
callbacks are checked there and left as they are (the feature-pipeline shape:
``subscribe_with_commit(self.consumer, self.topics, self.on_revoke)`` in another module).
"""

from __future__ import annotations

import ast

from rebalance_guard._client_facts import CONFLUENT, ClientFacts
from rebalance_guard._client_facts import SUBSCRIBE_CALLBACKS as CONFLUENT_CALLBACKS

from rebalance_lint.analysis.collect import param_default
from rebalance_lint.analysis.confluent_callback import (
    DEFAULT_DEF,
    Function,
    _argument_of,
    _Callback,
    _class_names,
    _guard_names,
    _statement_of,
    none_callback_refusal,
)
from rebalance_lint.analysis.edits import Edit, MigrationPlan, span
from rebalance_lint.analysis.migration_expressions import is_none
from rebalance_lint.analysis.migration_facts import (
    FileFacts,
    guard_name,
    self_class,
)
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.chosen_callbacks import own_statement
from rebalance_lint.analysis.shapes.passed_callbacks import callback_of, check_passed, only_passed

#: Names the listener methods use for their own parameters (a forwarded one may not be one).
_METHOD_NAMES = frozenset({"self", "partitions", "consumer"})


def parameter_of(value: ast.expr, facts: FileFacts) -> tuple[ast.arg, Function] | None:
    """(the parameter, its def) when ``value`` names a parameter of a def (not a lambda)."""
    bound = facts.bindings.binding(value) if isinstance(value, ast.Name) else None
    if not isinstance(bound, ast.arg):
        return None
    for owner in facts.bindings.ancestors(value):
        if isinstance(owner, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) and any(
            a is bound for a in ast.walk(owner.args)
        ):
            return None if isinstance(owner, ast.Lambda) else (bound, owner)
    return None


def handler_parameter(present: list[tuple[str, ast.expr]], facts: FileFacts) -> str | None:
    """Why callbacks that are all methods of one parameter (``on_assign=handler.on_assign``,
    msgbus's backend ``subscribe(self, topics, handler=None)``) are not migrated: the objects
    its callers pass implement an API of the helper, which taking the view would change."""
    bases = {
        ast.unparse(value.value) if isinstance(value, ast.Attribute) else "" for _, value in present
    }
    value = present[0][1]
    if len(bases) != 1 or not isinstance(value, ast.Attribute) or self_class(value.value, facts):
        return None
    found = parameter_of(value.value, facts)
    if found is None:
        return None
    parameter, helper = found
    roles = ", ".join(f"{keyword}={ast.unparse(v)}" for keyword, v in present)
    owner = facts.parent(helper)
    if isinstance(owner, ast.ClassDef) and helper.args.args[:1] == [parameter]:
        return None  # self or cls: the owner's shape says why not
    name = f"{owner.name}.{helper.name}" if isinstance(owner, ast.ClassDef) else helper.name
    return (
        f"{roles}: methods of {parameter.arg}, a parameter of {name}(), so the "
        f"callbacks are whatever objects its callers pass, whose methods take the whole "
        "consumer (an API of this code); have that API take a rebalance_guard "
        "RebalanceListener and register it with rebalance_guard's subscribe(), by hand"
    )


def plan_helper(
    call: ast.Call,
    present: list[tuple[str, ast.expr]],
    client: ClientFacts,
    facts: FileFacts,
    taken: set[str],
    plan: MigrationPlan,
) -> str | None:
    """Stage the helper's listener and its callers' callbacks, or say why not."""
    found = [(keyword, parameter_of(value, facts)) for keyword, value in present]
    helpers = {id(p[1]) for _, p in found if p is not None}
    if len(helpers) != 1 or any(p is None for _, p in found):
        return (
            "some of this subscribe()'s callbacks are parameters of the function calling it "
            "and some are not; pass them all as parameters, or define them all where "
            "subscribe() is called, first"
        )
    helper = next(p[1] for _, p in found if p is not None)
    parameters = [(keyword, p[0]) for keyword, p in found if p is not None]
    reason = _helper_refusal(call, helper, parameters, facts)
    if reason is not None:
        return reason
    calls = _calls_of(helper, facts)
    if isinstance(calls, str):
        return calls
    optional = {p.arg for _, p in parameters if _defaults_to_none(helper, p)}
    checked: dict[int, tuple[_Callback, bool, FileFacts]] = {}
    for keyword, parameter in parameters:
        arguments = [a for a in (_passed(c, helper, parameter) for *_, c in calls) if a]
        for path, where_facts, caller in calls:
            passed = _passed(caller, helper, parameter)
            line = f"{path}:{caller.lineno}" if path else f"line {caller.lineno}"
            where = f"{helper.name}() is called at {line}"
            if passed is None or is_none(passed):
                if passed is None and not _defaults_to_none(helper, parameter):
                    return f"{where} without {parameter.arg}=; pass it there first"
                given = (
                    f"without {parameter.arg}= (its default None reaches subscribe() as "
                    f"{keyword}=None)"
                    if passed is None
                    else f"with {parameter.arg}=None (subscribe() gets {keyword}=None)"
                )
                return none_callback_refusal(
                    keyword,
                    f"{where} {given}",
                    f"pass a def there ({DEFAULT_DEF.format(keyword=keyword)})",
                )
            callback = callback_of(keyword, passed, where_facts)
            if isinstance(callback, str):
                return f"{where} with {parameter.arg}={ast.unparse(passed)}, {callback}"
            function = callback.function
            previous = checked.get(id(function))
            if previous is not None and previous[0].keyword != keyword:
                checked[id(function)] = (previous[0], False, previous[2])  # kept as it is
            elif previous is None:
                rewrite = where_facts is facts and only_passed(callback, arguments, facts)
                checked[id(function)] = (callback, rewrite, where_facts)
    for callback, rewrite, where_facts in checked.values():
        reason = check_passed(callback, client, where_facts, taken, plan, rewrite=rewrite)
        if reason is not None:
            return f"{reason} (a callback of {helper.name}())"
    listener, protocol, subscribe = _guard_names(facts, taken, client, plan)
    partitions = guard_name(facts, taken, CONFLUENT.package, "TopicPartition", plan)
    class_name = next(n for n in _class_names() if n not in taken)
    taken.add(class_name)
    names = tuple((p.arg, CONFLUENT_CALLBACKS[keyword], "self") for keyword, p in parameters)
    statement = _statement_of(call, facts)
    assert statement is not None
    plan.edit(
        Edit(
            "forward_listener",
            span(statement),
            value=class_name,
            extra=listener,
            annotation=protocol,
            names=names,
            index=1 if client.async_callbacks else 0,
            delegated=tuple(sorted(optional)),
            other_type=f"list[{partitions}]",
        )
    )
    plan.edit(Edit("resubscribe", span(call), value=subscribe, extra=f"{class_name}()"))
    for _, parameter in parameters:
        consumer_type = _callable_consumer(parameter, facts)
        if consumer_type is not None:
            plan.edit(Edit("replace_with_name", span(consumer_type), value=protocol))
            plan.unused_imports.append(span(consumer_type))
    plan.sites += 1
    plan.planned.add(span(call))
    return None


def _helper_refusal(
    call: ast.Call, helper: Function, parameters: list[tuple[str, ast.arg]], facts: FileFacts
) -> str | None:
    """Why the helper itself cannot register a listener forwarding to its parameters."""
    name = f"{helper.name}()"
    if isinstance(facts.parent(helper), ast.ClassDef):
        return (
            f"the callbacks are parameters of the method {name}, whose callers the codemod "
            "does not follow; register them where they are defined (or take a listener "
            "there) first"
        )
    if helper.decorator_list:
        return (
            f"{name} is decorated; the codemod cannot know how it is called; drop the "
            "decorator, or register the callbacks where they are defined, first"
        )
    statement = own_statement(call, facts, f"the subscribe() in {name}")  # chosen_callbacks
    if isinstance(statement, str):
        return statement
    for keyword, parameter in parameters:
        label = f"{keyword}= is {parameter.arg}, a parameter of {name}"
        if parameter in (helper.args.vararg, helper.args.kwarg):
            return f"{label} (*args or **kwargs); take it by name first"
        if parameter.arg in _METHOD_NAMES:
            return f"{label}, named like a listener method's parameter; rename it first"
        if parameter.annotation is not None and _callable_consumer(parameter, facts) is None:
            return (
                f"{label}, annotated {ast.unparse(parameter.annotation)}, which callbacks "
                "taking the view would not match; annotate it Callable[[Consumer, "
                "list[TopicPartition]], None] (or | None), or drop the annotation, first"
            )
        refs = facts.bindings.references(parameter, parameter.arg) or []  # bound once here
        other = next((r for r in refs if not _argument_of(r, call, facts)), None)
        if other is not None:
            return (
                f"{label} that it also uses at line {other.lineno}, where its callbacks, "
                "then taking the view, would get something else; use it only as this "
                "subscribe()'s argument first"
            )
        default = param_default(helper, parameter.arg)
        if default is not None and not is_none(default):
            return (
                f"{label} whose default is not None, a callback the codemod does not "
                "migrate; default it to None first"
            )
    return None


def _calls_of(helper: Function, facts: FileFacts) -> list[tuple[str, FileFacts, ast.Call]] | str:
    """Every call of the helper in this file ("" for its path) and, in repository mode, in
    the other modules; or why they are not all known."""
    refs = facts.bindings.references(helper, helper.name)
    name = f"{helper.name}()"
    if refs is None:
        return f"{name} is bound more than once in this file; give it one name first"
    calls: list[ast.Call] = []
    for ref in refs:
        parent = facts.parent(ref)
        if not (isinstance(parent, ast.Call) and parent.func is ref):
            return (
                f"{name} is used at line {ref.lineno} other than by a call, so the codemod "
                "cannot know every callback it registers; call it by its name only first"
            )
        if any(isinstance(a, ast.Starred) for a in parent.args) or any(
            kw.arg is None for kw in parent.keywords
        ):
            return (
                f"{name} is called with *args or **kwargs at line {ref.lineno}; pass its "
                "arguments one by one first"
            )
        calls.append(parent)
    remote = facts.callers(helper) if facts.callers and helper in facts.tree.body else []
    if isinstance(remote, str):
        return (
            f"{remote}, so the codemod cannot know every callback it registers; call it by "
            "its name only there first"
        )
    if not (calls or remote) or _exported(helper, facts):
        nowhere = "the repository (the directory migrated)" if facts.callers else "this file"
        why = "which __all__ exports" if calls or remote else f"which nothing in {nowhere} calls"
        return (
            f"the callbacks are parameters of {name}, {why}: its callers (an API's users, or "
            "other modules) pass callbacks the codemod cannot see; make it take a "
            "rebalance_guard RebalanceListener and register it with rebalance_guard's "
            "subscribe() by hand, or call subscribe() where the callbacks are defined"
        )
    return [("", facts, call) for call in calls] + remote


def _callable_consumer(parameter: ast.arg, facts: FileFacts) -> ast.expr | None:
    """The consumer type in ``Callable[[Consumer, ...], None]`` (or that ``| None``,
    ``Optional[...]``) annotating ``parameter``: it becomes the view's."""
    annotation = parameter.annotation
    if isinstance(annotation, ast.BinOp) and is_none(annotation.right):
        annotation = annotation.left
    elif isinstance(annotation, ast.Subscript) and facts.qualnames(annotation.value) & {
        "typing.Optional"
    }:
        annotation = annotation.slice
    if not (
        isinstance(annotation, ast.Subscript)
        and facts.qualnames(annotation.value) & {"typing.Callable", "collections.abc.Callable"}
        and isinstance(annotation.slice, ast.Tuple)
        and annotation.slice.elts
        and isinstance(annotation.slice.elts[0], ast.List)
        and len(annotation.slice.elts[0].elts) == 2
    ):
        return None
    return annotation.slice.elts[0].elts[0]


def _exported(helper: Function, facts: FileFacts) -> bool:
    """Whether the module's ``__all__`` lists the helper (its callers are elsewhere too)."""
    for node in facts.tree.body if helper in facts.tree.body else ():
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign) and "__all__" in {
            getattr(t, "id", "") for t in getattr(node, "targets", [getattr(node, "target", None)])
        }:
            value = node.value
            names = [e.value for e in getattr(value, "elts", []) if isinstance(e, ast.Constant)]
            if helper.name in names:
                return True
    return False


def _positional(helper: Function) -> list[ast.arg]:
    return [*helper.args.posonlyargs, *helper.args.args]


def _passed(caller: ast.Call, helper: Function, parameter: ast.arg) -> ast.expr | None:
    """What ``caller`` passes for ``parameter`` (None: nothing, the default applies)."""
    if parameter not in helper.args.posonlyargs:
        for keyword in caller.keywords:
            if keyword.arg == parameter.arg:
                return keyword.value
    positional = _positional(helper)
    index = next((i for i, a in enumerate(positional) if a is parameter), None)
    if index is not None and index < len(caller.args):
        return caller.args[index]
    return None


def _defaults_to_none(helper: Function, parameter: ast.arg) -> bool:
    default = param_default(helper, parameter.arg)
    return default is not None and is_none(default)


SHAPE = Shape(
    name="callbacks a helper takes as parameters",
    planner="confluent",
    recognises=(
        "on_assign=/on_revoke=/on_lost= naming parameters of the def calling subscribe(), "
        "every call of which (in this file; in migrate DIR, in the repository) passes None, a "
        "def, a lambda or self.method of the caller's class"
    ),
    plan=(
        "forward_listener (a listener class before the subscribe() calling the parameters "
        "with the view) + resubscribe; the callers' defs take the view (final assign "
        "rewritten, consumer annotation the view's)"
    ),
    fixtures=(
        "tests/codemods/test_callback_parameters.py",
        "tests/codemods/test_callback_parameters_repository.py",
        "tests/codemods/fixtures/callback_parameters.py",
    ),
)
