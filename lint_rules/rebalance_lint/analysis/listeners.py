"""Which classes are rebalance listeners, for which client, with which calling convention.

A class is a listener when it derives (directly, or through classes in the same file)
from a client's listener base or from ``rebalance_guard.<client>.RebalanceListener``, or
when an instance of it is registered (``listener=``, ``set_rebalance_listener``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from rebalance_lint.analysis.clients import Client, client_listener_base, guard_member
from rebalance_lint.analysis.collect import Facts, FunctionNode, Scope
from rebalance_lint.analysis.model import Api, NamedBase


@dataclass(frozen=True)
class BaseInfo:
    client: Client | None
    api: Api
    client_base: bool
    lost_defaults_to_revoked: bool
    #: the listener base the class names itself; None when inherited or only registered
    named_base: NamedBase | None = None


class Hierarchy:
    """Listener classification and in-file ancestry, memoised per class."""

    def __init__(self, facts: Facts) -> None:
        self._facts = facts
        self._scope: dict[ast.ClassDef, Scope] = dict(facts.classes)
        self._info: dict[ast.ClassDef, BaseInfo | None] = {}
        self._ancestry: dict[ast.ClassDef, list[ast.ClassDef]] = {}

    def scope_of(self, cls: ast.ClassDef) -> Scope:
        return self._scope[cls]

    def in_file_base(self, base: ast.expr, cls: ast.ClassDef) -> ast.ClassDef | None:
        if isinstance(base, ast.Name):
            found = self._scope[cls].lookup_class(base.id)
            return found if found is not cls else None
        return None

    def ancestry(self, cls: ast.ClassDef) -> list[ast.ClassDef]:
        """``cls`` and its in-file ancestors, nearest first (each once; cycles cut)."""
        if cls in self._ancestry:
            return self._ancestry[cls]
        out: list[ast.ClassDef] = []
        todo = [cls]
        while todo:
            current = todo.pop(0)
            if current in out:
                continue
            out.append(current)
            for base in current.bases:
                parent = self.in_file_base(base, current)
                if parent is not None:
                    todo.append(parent)
        self._ancestry[cls] = out
        return out

    def methods(self, cls: ast.ClassDef) -> dict[str, FunctionNode]:
        """Methods visible on instances of ``cls`` (own ones override ancestors')."""
        out: dict[str, FunctionNode] = {}
        for klass in reversed(self.ancestry(cls)):
            out.update(self._facts.methods.get(klass, {}))
        return out

    def direct_base(self, cls: ast.ClassDef) -> BaseInfo | None:
        """The listener base ``cls`` names itself (not through in-file classes)."""
        for base in cls.bases:
            qualname = self._facts.imports.resolve(base)
            if not qualname:
                continue
            found = client_listener_base(qualname)
            if found is not None:
                client = found[0]
                # kafka-python 3's bases default on_partitions_lost to on_partitions_revoked;
                # aiokafka has no lost callback at all.
                named: NamedBase = "async" if found[1] else "legacy"
                return BaseInfo(client, "legacy", True, client == "kafka_python", named)
            guard_client = guard_member(qualname, "RebalanceListener")
            if guard_client is not None:
                return BaseInfo(guard_client, "guard", False, True, "guard")
        return None

    def info(self, cls: ast.ClassDef) -> BaseInfo | None:
        """How ``cls`` is called as a listener, from its bases; None if it is not one."""
        if cls in self._info:
            return self._info[cls]
        self._info[cls] = None  # cycle guard
        result = self.direct_base(cls)
        if result is None:
            for klass in self.ancestry(cls)[1:]:
                inherited = self.direct_base(klass)
                if inherited is not None:
                    result = BaseInfo(
                        inherited.client, inherited.api, False, inherited.lost_defaults_to_revoked
                    )
                    break
        self._info[cls] = result
        return result
