"""Replace an output directory all at once: readers see the old outputs or the new, never half.

Outputs are written into a temporary sibling directory which then takes the place of ``out``
(an atomic ``renameat2(RENAME_EXCHANGE)`` on Linux; two renames elsewhere).
"""

from __future__ import annotations

import ctypes
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

MARKER = "summary.json"  # present in every scan output: only such directories are replaced
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


class OutputError(RuntimeError):
    """The output directory cannot be (re)placed."""


def _exchange(first: Path, second: Path) -> bool:
    """Swap two paths atomically; False when the platform cannot."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    result = renameat2(
        _AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE
    )
    return bool(result == 0)


def check_replaceable(out: Path) -> None:
    """Refuse to replace a file, a symlink, or a non-empty directory that no scan wrote."""
    if not out.exists():
        return
    if not out.is_dir() or out.is_symlink():
        raise OutputError(f"{out}: exists and is not a directory")
    if any(out.iterdir()) and not (out / MARKER).exists():
        raise OutputError(f"{out}: refusing to replace a directory that is not a scan output")


@contextmanager
def atomic_directory(out: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a fresh directory; on success it becomes ``out``, on error it is removed."""
    target = Path(out).absolute()
    check_replaceable(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=target.parent))
    try:
        yield staging
        staging.chmod(0o755)
        check_replaceable(target)
        if target.exists():
            if not _exchange(staging, target):
                retired = staging.with_name(staging.name + "-old")
                target.rename(retired)
                staging.rename(target)
                staging = retired
        else:
            staging.rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
