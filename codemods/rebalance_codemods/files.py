"""Replacing files atomically.

A migration run may be killed at any moment (Ctrl-C, OOM killer, CI timeout); every file
must then be either the old or the new version, never a truncated mix. So a new version is
written to a temporary file in the same directory (same filesystem), flushed to disk, given
the original's permission bits, and moved over the original with ``os.replace``.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

TEMP_SUFFIX = ".rebalance-guard.tmp"
_SKIP_DIRS = {"__pycache__", "node_modules"}


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
