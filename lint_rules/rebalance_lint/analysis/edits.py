"""What a migration plan is made of: source spans and the edits planned at them.

Plain data that imports nothing else of the package: the planners (``analysis.migration``,
and ``analysis.fixes`` for the KRB103/KRB104 auto-fixes) fill it from the ``ast`` model, the
codemods (``rebalance_codemods.rewrite``) find each span's LibCST node and apply the edit
there. Columns are ``ast``'s (UTF-8 byte offsets, 0-based).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Literal


@dataclass(frozen=True, order=True)
class Span:
    """Where a node is: ``line``/``end_line`` 1-based, ``col``/``end_col`` UTF-8 byte offsets."""

    line: int
    col: int
    end_line: int
    end_col: int


def span(node: ast.AST) -> Span:
    return Span(
        getattr(node, "lineno", 0),
        getattr(node, "col_offset", 0),
        getattr(node, "end_lineno", 0) or 0,
        getattr(node, "end_col_offset", 0) or 0,
    )


Action = Literal[
    "split_subscribe",  # at a statement: set_rebalance_listener(c, l) + c.subscribe(t)
    "replace_with_name",  # at an expression: the name ``value``
    "drop_param",  # at a def: positional parameter ``index`` goes
    "drop_init_statement",  # at a def: statement ``other`` leaves its body (no pass added)
    "drop_if_empty",  # at a def: an __init__ left empty goes (or keeps a pass)
    "drop_call_arg",  # at a call: the argument for parameter ``value``/position ``index`` goes
    "rename_base",  # at a class base expression: becomes the name ``value``
    "drop_header_comment",  # at a class: its header's trailing comment ``value`` goes
    "append_param",  # at a def: ``value: annotation`` appended to its positional parameters
    "drive_harness",  # at a call x.on_partitions_*(p): ``value``(x).``extra``(p)
    "chain_call",  # at a call x.on_partitions_*(p): ``value``(x, "on_partitions_*", p, ``extra``)
    "gather",  # at the block holding def ``target``: ``names`` defs -> class ``value(extra)``
    # (``index`` 1: ``target`` is the statement the class goes before; ``lambdas``, ``bound``)
    "resubscribe",  # at a call: c.subscribe(t, on_x=f) -> value(c, t, <expression extra>)
    "forward_listener",  # at a statement: class ``value(extra)`` goes before it, each method
    # of ``names`` (parameter, method, self) calling that parameter of the enclosing function
    # with (view, partitions); ``delegated``: those that may be None (called when not);
    # ``index`` 1: async methods awaiting the call; ``other_type``: the partitions' annotation;
    # ``bound`` (parameter, annotation): an ``__init__`` takes them, the methods call ``self.``'s
    "seek_loop",  # at a statement [await] c.assign(p): for ``extra`` in ``value``: c.seek(..)
    "add_base",  # at a class: the name ``value`` appended to its bases
    "listener_method",  # at a method (self, c, p): -> ``value``(self, p, c: ``annotation``)
    "keep_method",  # after a method: its old self kept, calling ``value`` (index 1: async)
    "class_aliases",  # at a class: ``alias = method`` after that method, per ``names`` entry
    "lambda_methods",  # after a method: ``lambdas`` as methods of its class (``gather``'s)
    "drop_final",  # at the block holding statement ``target``: that statement goes
    "guard_imports",  # at a try: ``names`` (module, name, alias) imported after statement
    # ``other`` of its body, each except block then binding the lines of ``extra``
    "await_call",  # at a call: ``await`` it (index 1: parenthesised, a primary's operand)
    "keyword_param",  # at a def: keyword-only ``value: annotation = None`` appended
    # (``extra`` "required": without the default)
    "replace_with_expression",  # at an expression: the expression ``value`` (parenthesised)
    "unreturn",  # at ``return x``: ``x`` as a statement (``value`` "pure": nothing), then
    # ``return`` (``extra`` "last": nothing runs after it, so no ``return``)
    # auto-fixes (analysis.fixes): KRB103, KRB104
    "rename_method",  # at a call ``x.m(...)``: the method becomes ``value`` (``x.value(...)``)
    "set_keyword",  # at a call: keyword ``value`` set to expression ``extra`` (or appended)
    "append_arg",  # at a call with no keyword argument: expression ``value`` appended
    "add_stub_after",  # after a def: a copy named ``value`` keeping body statements ``keep``
    # (else ``pass``) under the comment ``extra``, ``names`` renaming parameters (old, new, "")
]


@dataclass(frozen=True)
class LambdaMethod:
    """A registered lambda that ``gather`` turns into a listener method (its body one statement).

    ``tail``: "" keeps the body; "drop" makes it ``pass`` (a final unassign the adapter does);
    any other value is the loop variable of the seek loop a final ``assign(partitions)`` becomes.
    ``partitions_type``: the annotation of the partitions parameter (the consumer's is the
    edit's ``annotation``); the method returns ``None``. A lambda whose parent is an assignment
    (``on_assign = lambda c, p: ...``) takes that statement with it.
    """

    target: Span
    method: str
    self_name: str
    partitions_type: str
    tail: str = ""


@dataclass(frozen=True)
class Edit:
    """One planned change at one node (found by its span and the action's node kind)."""

    action: Action
    target: Span
    value: str = ""
    extra: str = ""
    index: int = -1
    other: Span | None = None
    annotation: str = ""  # the view's annotation (``append_param``, ``gather``)
    #: ``gather``: (function name, listener method name, name of its ``self``) per callback
    #: (a function named again: the same method under a second name, ``revoked = assigned``);
    #: ``add_stub_after``: (parameter, its new name, ""); ``class_aliases``: (alias, method, "")
    names: tuple[tuple[str, str, str], ...] = ()
    #: ``add_stub_after``: indexes of the def's body statements the copy keeps
    keep: tuple[int, ...] = ()
    #: ``gather``: lambdas that become methods (after the ``names`` defs)
    lambdas: tuple[LambdaMethod, ...] = ()
    #: ``gather``: (function name, parameter) per parameter a ``functools.partial`` bound: the
    #: parameter leaves the method and becomes an ``__init__`` parameter stored on ``self``
    #: (``forward_listener``: (parameter, its annotation) per ``__init__`` parameter, stored
    #: on ``self`` and called by the methods instead of the enclosing function's)
    bound: tuple[tuple[str, str], ...] = ()
    #: ``gather``: functions of ``names`` that stay where they are (something else uses them
    #: too): the listener method calls the function instead of becoming it
    delegated: tuple[str, ...] = ()
    #: ``gather``: statements of the block that go (``cb = handler``: a variable naming a def)
    dropped: tuple[Span, ...] = ()
    #: ``forward_listener``: the annotation of the methods' partitions parameter
    other_type: str = ""


@dataclass
class MigrationPlan:
    """Edits in order, imports to add (module, name, alias) and to drop, refusals, site count.

    ``planned`` holds the spans of the KRB2xx sites the plan migrates (class, injected
    parameter, registration): the rules call a finding fixable exactly when its node is there.
    """

    edits: list[Edit] = field(default_factory=list)
    imports: set[tuple[str, str, str | None]] = field(default_factory=set)
    unused_imports: list[Span] = field(default_factory=list)
    manual: list[tuple[int, str]] = field(default_factory=list)
    sites: int = 0
    planned: set[Span] = field(default_factory=set)

    def edit(self, edit: Edit) -> None:
        self.edits.append(edit)

    def refuse(self, line: int, reason: str) -> None:
        self.manual.append((line, reason))

    def merge(self, other: MigrationPlan) -> None:
        self.edits.extend(other.edits)
        self.imports |= other.imports
        self.unused_imports.extend(other.unused_imports)
        self.manual.extend(other.manual)
        self.sites += other.sites
        self.planned |= other.planned
