"""The reading layer: turn one repository path (or one dataset cell) into bytes or a status.

Runs on executors. Everything that can go wrong before the rules see a file becomes a
:class:`Unreadable` outcome with a reason, so a bad file is a row and never a failed task.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

from rebalance_lint.api import MAX_SOURCE_BYTES
from rebalance_lint.reading import Unreadable, check_content, read_source

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MEMORY_BYTES",
    "ScanOptions",
    "Unreadable",
    "check_content",
    "read_repo_file",
]

DEFAULT_MAX_BYTES = MAX_SOURCE_BYTES  # where check_source itself stops parsing
DEFAULT_MEMORY_BYTES = 64 * 1024 * 1024  # per repository, per Python worker (one per core)


@dataclass(frozen=True)
class ScanOptions:
    """Settings shipped to executors."""

    max_bytes: int = DEFAULT_MAX_BYTES  # larger files are reported too_large, never read whole
    dry_run: bool = True  # False: rules only, no migration dry-run (faster, no readiness)
    diffs: bool = False  # True: also rewrite (LibCST) and return each file's unified diff
    #: bytes of one repository's files held in memory while it is checked; past that, files
    #: that do not mention Kafka wait in a temporary file (rebalance_scan.executor)
    memory_bytes: int = DEFAULT_MEMORY_BYTES


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _symlink_outcome(full: str, root: str) -> Unreadable:
    target = os.readlink(full)
    real_root = os.path.realpath(root)
    resolved = os.path.realpath(full)
    if not _inside(resolved, real_root):
        return Unreadable(
            "symlink_outside", f"symlink to {target} points outside the source tree: not followed"
        )
    if not os.path.exists(resolved):
        return Unreadable("unreadable", f"dangling symlink to {target}")
    return Unreadable(
        "symlink", f"symlink to {target} inside the tree: not followed (the target is scanned)"
    )


def read_repo_file(root: str, rel_path: str, max_bytes: int) -> bytes | Unreadable:
    """Read ``root/rel_path`` without following symlinks, without blocking on FIFOs,
    and without reading more than ``max_bytes + 1`` bytes."""
    full = os.path.join(root, rel_path)
    try:
        info = os.lstat(full)
        if stat.S_ISLNK(info.st_mode):
            return _symlink_outcome(full, root)
        if stat.S_ISDIR(info.st_mode):
            os.listdir(full)  # the lister reports directories only when it could not list them
            return Unreadable("not_regular", "a directory")
        if not stat.S_ISREG(info.st_mode):
            return Unreadable("not_regular", "not a regular file")
    except OSError as error:
        return Unreadable("unreadable", f"{type(error).__name__}: {error.strerror or error}")
    return read_source(full, max_bytes, follow_symlinks=False)
