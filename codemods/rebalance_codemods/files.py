"""Finding Python files and replacing them atomically.

A migration run may be killed at any moment (Ctrl-C, OOM killer, CI timeout); every file
must then be either the old or the new version, never a truncated mix. So a new version is
written to a temporary file in the same directory (same filesystem), flushed to disk, given
the original's permission bits, and moved over the original with ``os.replace``.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

TEMP_SUFFIX = ".rebalance-guard.tmp"
_SKIP_DIRS = {"__pycache__", "node_modules"}


def python_files(paths: list[Path]) -> Iterator[Path]:
    """``.py`` files named or found under ``paths`` (hidden and cache directories skipped)."""
    for path in paths:
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS)
                for name in sorted(files):
                    if name.endswith(".py"):
                        yield Path(root, name)
        else:
            yield path


def write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path``'s content with ``data`` so that readers see old or new, never half."""
    target = Path(os.path.realpath(path))  # replace what a symlink points to, not the link
    mode = stat.S_IMODE(target.stat().st_mode)
    fd, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=TEMP_SUFFIX)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, mode)
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
