"""Shape: static owner callbacks (``@staticmethod`` registered as ``self.__on_assign`` or
through its class, ``on_revoke=Client.__on_revoke`` in a method of ``Client``).

Called as ``(consumer, partitions)``; as a listener method it only gains a ``self`` it does
not use."""

from __future__ import annotations

import ast

from rebalance_lint.analysis.confluent_callback import Function
from rebalance_lint.analysis.migration_facts import FileFacts, methods_of, takes_no_self
from rebalance_lint.analysis.shape import Shape


def _static_through_class(
    value: ast.Attribute, facts: FileFacts
) -> tuple[ast.ClassDef, str, str] | None:
    """``Owner.__on_revoke`` (a staticmethod named through its class) registered in a method
    of ``Owner`` itself: the same as ``self.__on_revoke``, so (owner, that method's self,
    method name)."""
    assert isinstance(value.value, ast.Name)
    owner = facts.bindings.binding(value.value)
    if not isinstance(owner, ast.ClassDef):
        return None
    method = methods_of(owner).get(value.attr)
    if method is None or not _is_staticmethod(method, facts):
        return None
    for node in facts.bindings.ancestors(value):
        if (
            isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node in owner.body
            and node.args.args
            and not any(takes_no_self(d) for d in node.decorator_list)
        ):
            return owner, node.args.args[0].arg, value.attr
    return None


def _is_staticmethod(function: Function, facts: FileFacts) -> bool:
    """Decorated with the builtin ``@staticmethod`` and nothing else: registered as
    ``self._on_assign`` it is called as ``(consumer, partitions)``, and as a listener method
    it only gains a ``self`` it does not use."""
    match function.decorator_list:
        case [ast.Name(id="staticmethod")]:
            return "staticmethod" not in facts.index.claimed and not any(
                isinstance(node, ast.Name) and node.id == "self" for node in ast.walk(function)
            )
    return False


SHAPE = Shape(
    name="static owner callbacks",
    planner="confluent",
    recognises=(
        "a method decorated with the builtin @staticmethod alone, registered through self "
        "or through its class inside the class"
    ),
    plan=("listener_method (static)"),
    fixtures=(
        "tests/codemods/test_confluent_owner.py::test_static_methods_named_through_their_class",
        "tests/codemods/fixtures/owner_static_and_logged.py",
    ),
)
