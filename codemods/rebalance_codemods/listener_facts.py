"""What the kafka-python/aiokafka planners know about one file: who creates and registers
which listener, on which consumer."""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from rebalance_codemods.clients import Client
from rebalance_codemods.meta import Index, Meta

LISTENER_POSITION = 2  # subscribe(topics=(), pattern=None, listener=None) in both clients


@dataclass
class FileFacts:
    """Per-file facts shared by the listener planners."""

    module: cst.Module
    meta: Meta
    index: Index
    clients: list[Client]
    #: listener creation -> source text of the consumer it is registered on
    registrations: dict[cst.Call, str] = field(default_factory=dict)
    instance_names: dict[cst.Call, cst.Name] = field(default_factory=dict)
    pinned: dict[cst.ClassDef, int] = field(default_factory=dict)
    registered_values: set[int] = field(default_factory=set)  # ids of listener expressions


def creation_of(value: cst.BaseExpression, facts: FileFacts) -> cst.Call | None:
    """The ``Cls(...)`` call that produced a listener expression, if the codemod can see it."""
    if isinstance(value, cst.Call):
        return value
    if not isinstance(value, cst.Name):
        return None
    target = facts.meta.binding(value)
    assign_target = facts.meta.parent(target) if target is not None else None
    assign = facts.meta.parent(assign_target) if assign_target is not None else None
    if (
        isinstance(target, cst.Name)
        and isinstance(assign, cst.Assign)
        and len(assign.targets) == 1
        and isinstance(assign.value, cst.Call)
    ):
        facts.instance_names[assign.value] = target
        return assign.value
    return None


def class_of(creation: cst.Call | None, facts: FileFacts) -> cst.ClassDef | None:
    if creation is None or not isinstance(creation.func, cst.Name):
        return None
    bound = facts.meta.binding(creation.func)
    return bound if isinstance(bound, cst.ClassDef) else None


def methods_of(cls: cst.ClassDef) -> dict[str, cst.FunctionDef]:
    return {stmt.name.value: stmt for stmt in cls.body.body if isinstance(stmt, cst.FunctionDef)}


def self_attr(node: cst.CSTNode, self_name: str) -> str | None:
    if (
        isinstance(node, cst.Attribute)
        and isinstance(node.value, cst.Name)
        and node.value.value == self_name
    ):
        return node.attr.value
    return None


def first_param(fn: cst.FunctionDef) -> str:
    return fn.params.params[0].name.value if fn.params.params else ""
