"""Migrate one file's bytes: byte check, decode, parse, run the codemod, verify the output.

Files that cannot involve Kafka never reach LibCST (the byte check is the lint rules' own
:func:`rebalance_lint.mentions_kafka`, so ``check``, ``migrate`` and the scan agree). A
result that would not parse is treated as a crash and never written.
"""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext, SkipFile
from rebalance_lint.api import MAX_SOURCE_BYTES, mentions_kafka
from rebalance_lint.source import Unparsable, decode

from rebalance_codemods.api import ManualSite, MigrationResult
from rebalance_codemods.commands import (
    MANUAL_KEY,
    PLAN_ONLY_KEY,
    SITES_KEY,
    MigrateRebalanceListeners,
)


def migrate_bytes(source: bytes, filename: str, *, plan_only: bool = False) -> MigrationResult:
    """The implementation behind :func:`rebalance_codemods.api.migrate_source`.

    ``plan_only`` (for ``--check``) stops after planning: the result then has no
    ``new_source``, and ``migrated_sites > 0`` exactly when the file would change.
    """
    if not mentions_kafka(source):
        return MigrationResult("ok", skipped=True)
    if len(source) > MAX_SOURCE_BYTES:
        return MigrationResult("too_large", reason=f"larger than {MAX_SOURCE_BYTES} bytes")
    decoded = decode(source)
    if isinstance(decoded, Unparsable):
        return MigrationResult(decoded.status, reason=decoded.reason)
    try:
        module = cst.parse_module(source)
    except (cst.ParserSyntaxError, SyntaxError) as exc:
        return MigrationResult("syntax_error", reason=_one_line(exc))
    except RecursionError:
        return MigrationResult("too_large", reason="too deeply nested for LibCST")
    context = CodemodContext(filename=filename, scratch={PLAN_ONLY_KEY: plan_only})
    try:
        new_source = _transform(module, context)
    except Exception as exc:  # a codemod bug must be a status, not a failed run
        return MigrationResult("crashed", reason=f"{type(exc).__name__}: {_one_line(exc)}")
    manual: list[ManualSite] = context.scratch.get(MANUAL_KEY, [])
    return MigrationResult(
        "ok",
        new_source=new_source if new_source != source else None,
        migrated_sites=int(context.scratch.get(SITES_KEY, 0)),
        manual=tuple(sorted(set(manual), key=lambda m: (m.line, m.reason))),
    )


def _transform(module: cst.Module, context: CodemodContext) -> bytes:
    """The migrated bytes (the input's when nothing applies); raises if they would not parse."""
    try:
        new_source = MigrateRebalanceListeners(context).transform_module(module).bytes
    except SkipFile:
        return module.bytes
    if new_source != module.bytes:
        cst.parse_module(new_source)  # never hand out code that does not parse
    return new_source


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
