"""Shape: static owner callbacks (``@staticmethod`` registered as ``self.__on_assign`` or
through its class, ``on_revoke=Client.__on_revoke`` in a method of ``Client``), and plain
functions of the class body reached only through the class (``on_assign=KafkaBase.on_assign``
with ``def on_assign(consumer, partitions):`` undecorated in ``KafkaBase``: in Python 3 the
class attribute is the function itself).

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
    if method is None or not (
        _is_staticmethod(method, facts) or _is_class_function(method, owner, facts)
    ):
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


def _is_class_function(function: Function, owner: ast.ClassDef, facts: FileFacts) -> bool:
    """An undecorated function of ``owner``'s body that never gets a ``self``: every attribute
    naming it in the file is ``Owner.<name>`` (through an instance it would be a bound method
    taking the instance as its first argument), it has positional parameters, and no ``self``
    in it. Named through its class it is the plain function, called as ``(consumer,
    partitions)`` exactly as a staticmethod is."""
    if function.decorator_list or not function.args.args:
        return False
    if function.args.args[0].arg in ("self", "cls") or any(
        isinstance(node, ast.Name) and node.id == "self" for node in ast.walk(function)
    ):
        return False
    return all(
        isinstance(use.value, ast.Name) and facts.bindings.binding(use.value) is owner
        for use in facts.index.attributes.get(function.name, [])
    )


def is_static_callback(function: Function, owner: ast.ClassDef, facts: FileFacts) -> bool:
    """Called without a ``self``: a builtin ``@staticmethod``, or a plain function of the class
    body reached only through the class."""
    return _is_staticmethod(function, facts) or _is_class_function(function, owner, facts)


SHAPE = Shape(
    name="static owner callbacks",
    planner="confluent",
    recognises=(
        "a method decorated with the builtin @staticmethod alone, registered through self "
        "or through its class inside the class; an undecorated function of the class body "
        "named only through its class"
    ),
    plan=("listener_method (static)"),
    fixtures=(
        "tests/codemods/test_confluent_owner.py::test_static_methods_named_through_their_class",
        "tests/codemods/fixtures/owner_static_and_logged.py",
        "tests/codemods/fixtures/owner_class_functions.py",
    ),
)
