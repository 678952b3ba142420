"""Small tests of the expressions and calls the migration planners read: whether a value
can be evaluated earlier or later without changing the program, whether it names something
without calling anything, and which argument a call binds to a parameter."""

from __future__ import annotations

import ast


def is_pure(node: ast.expr) -> bool:
    """True when evaluating ``node`` earlier or later cannot change what the program does:
    names, constants, attribute and item reads, and (issue 25's argument evaluation order)
    choices and tests made of those, ``a if t else b``, ``a or b``, ``not a``, ``a is None``
    (a property, ``__getitem__`` or ``__bool__`` that does more than read is not assumed)."""
    if isinstance(node, ast.Name):
        return True
    if isinstance(node, ast.Constant):
        return not isinstance(node.value, complex)
    if isinstance(node, ast.Attribute):
        return is_pure(node.value)
    if isinstance(node, ast.JoinedStr):
        return all(is_pure(v) for v in node.values)
    if isinstance(node, ast.FormattedValue):
        return is_pure(node.value)
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return all(not isinstance(el, ast.Starred) and is_pure(el) for el in node.elts)
    if isinstance(node, ast.IfExp):
        return is_pure(node.test) and is_pure(node.body) and is_pure(node.orelse)
    if isinstance(node, ast.BoolOp):
        return all(is_pure(value) for value in node.values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return is_pure(node.operand)
    if isinstance(node, ast.Compare) and all(isinstance(op, ast.Is | ast.IsNot) for op in node.ops):
        return is_pure(node.left) and all(is_pure(c) for c in node.comparators)
    if isinstance(node, ast.Subscript):
        index = node.slice
        items = index.elts if isinstance(index, ast.Tuple) else [index]
        return is_pure(node.value) and all(
            not isinstance(el, ast.Slice) and is_pure(el) for el in items
        )
    return False


def is_dotted(node: ast.expr) -> bool:
    """``a`` or ``a.b.c``: an expression that names something without calling anything."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def is_plain_reference(node: ast.expr) -> bool:
    """``a``, ``a.b.c`` or ``consumers[topic]`` (a name or constant key): an expression that
    names something, calling nothing but a container's item lookup, evaluated once wherever
    it is written (the receiver of ``consumers[topic].subscribe(...)`` passed along)."""
    while isinstance(node, ast.Attribute | ast.Subscript):
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Name | ast.Constant):
            return False
        node = node.value
    return isinstance(node, ast.Name)


def is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def find_arg(call: ast.Call, keyword: str, position: int | None) -> ast.expr | None:
    """The argument bound to parameter ``keyword`` (or at ``position``), if any."""
    for kw in call.keywords:
        if kw.arg == keyword:
            return kw.value
    if position is not None and position < positional_count(call):
        return call.args[position]
    return None


def positional_count(call: ast.Call) -> int:
    """How many leading plain positional arguments a call has."""
    count = 0
    for arg in call.args:
        if isinstance(arg, ast.Starred):
            break
        count += 1
    return count


def has_star_args(call: ast.Call) -> bool:
    return any(isinstance(a, ast.Starred) for a in call.args) or any(
        kw.arg is None for kw in call.keywords
    )


def argument_count(call: ast.Call) -> int:
    return len(call.args) + len(call.keywords)


def ordered_args(call: ast.Call) -> list[ast.expr]:
    """The call's argument values in source order (positional, keyword and starred alike)."""
    return sorted([*call.args, *(kw.value for kw in call.keywords)], key=_position)


def _position(node: ast.expr) -> tuple[int, int]:
    return node.lineno, node.col_offset
