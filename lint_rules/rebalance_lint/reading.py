"""Finding and reading Python files safely, shared by ``check``, ``migrate`` and the scan.

Bad input is an :class:`Unreadable` outcome with a one-line reason, never an exception
or a hang: FIFOs and devices named ``.py`` are refused without blocking, huge files are
refused before they are read whole, and directory walks never follow symlinks out of the
tree being processed (``migrate`` must never rewrite a file outside it).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from rebalance_lint.report import FileStatus
from rebalance_lint.screening import MAX_SOURCE_BYTES

#: Directories never searched (VCS metadata, caches, virtualenvs), as flake8 does.
EXCLUDED_DIRS = frozenset(
    {".git", ".hg", ".svn", "__pycache__", ".tox", ".nox", ".eggs", ".venv", "venv",
     ".mypy_cache", ".ruff_cache", ".pytest_cache", "node_modules"}
)  # fmt: skip


@dataclass(frozen=True)
class Unreadable:
    """Why a file never reached the rules."""

    status: FileStatus
    reason: str


def check_content(content: bytes | None, max_bytes: int = MAX_SOURCE_BYTES) -> Unreadable | None:
    """Reject content that is missing, too large, or binary before any parsing."""
    if content is None:
        return Unreadable("unreadable", "no content (null)")
    if len(content) > max_bytes:
        return Unreadable("too_large", f"{len(content)} bytes exceeds the limit of {max_bytes}")
    if b"\x00" in content:
        return Unreadable("binary", "contains NUL bytes: not Python source")
    return None


def read_source(
    path: str | os.PathLike[str], max_bytes: int = MAX_SOURCE_BYTES, *, follow_symlinks: bool = True
) -> bytes | Unreadable:
    """The bytes of a regular file, or why not; never blocks on a FIFO, never reads a huge file."""
    flags = os.O_RDONLY | os.O_NONBLOCK | (0 if follow_symlinks else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as error:
        return Unreadable("unreadable", f"{type(error).__name__}: {error.strerror or error}")
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            return Unreadable("not_regular", "a directory")
        if not stat.S_ISREG(info.st_mode):
            return Unreadable("not_regular", "not a regular file (FIFO, socket or device)")
        if info.st_size > max_bytes:
            return Unreadable("too_large", f"{info.st_size} bytes exceeds the limit of {max_bytes}")
        chunks = []
        remaining = max_bytes + 1
        # Read the size the file has, not the limit: a buffer of the limit, cut down to the
        # file's size, leaves holes that the bytes kept pin (96 MB of RSS for 106 MB read
        # and 6 MB kept). One byte more to see the end; a file that grows, in 64 KiB reads.
        size = info.st_size + 1
        while remaining > 0 and (chunk := os.read(fd, min(remaining, size))):
            chunks.append(chunk)
            remaining -= len(chunk)
            size = 1 << 16
        content = b"".join(chunks)
    except OSError as error:
        return Unreadable("unreadable", f"{type(error).__name__}: {error.strerror or error}")
    finally:
        os.close(fd)
    problem = check_content(content, max_bytes)
    return problem if problem is not None else content


def repository_files(root: Path) -> dict[str, Path]:
    """The ``*.py`` files under ``root`` by the names a repository run gives them.

    A name is the path relative to ``root``, below the packages ``root`` itself is in:
    ``app/billing.py`` for ``migrate app/`` when ``app`` has an ``__init__.py``, so that
    ``from app.listeners import X`` in it resolves as when the parent directory is given (a
    listener class was otherwise migrated without its registrations there).
    """
    prefix = package_prefix(root)
    return {prefix + below: path for path, below in _python_files(root)}


#: What makes a directory a project's root: its own repository (the cache's home too).
PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")


def is_project_root(directory: Path) -> bool:
    return any((directory / marker).exists() for marker in PROJECT_MARKERS)


def repositories_in(root: Path) -> list[Path]:
    """The repositories a directory of repositories holds: the outermost directories below
    ``root`` that are project roots (:data:`PROJECT_MARKERS`), in walk order, when neither
    ``root`` nor a directory above it is one (``check ~/src`` over clones; never a monorepo's
    subprojects, whose imports of each other are real). Empty when there is no such split."""
    here = root.resolve()
    if any(is_project_root(directory) for directory in (here, *here.parents)):
        return []
    found: list[Path] = []
    for directory, dirnames, _ in os.walk(root, followlinks=False):
        inside: list[str] = []
        for name in sorted(d for d in dirnames if d not in EXCLUDED_DIRS):
            below = Path(directory, name)
            if below.is_symlink():
                continue  # not walked (see iter_python_files)
            if is_project_root(below):
                found.append(below)
            else:
                inside.append(name)
        dirnames[:] = inside
    return found


def repository_parts(root: Path) -> list[dict[str, Path]] | None:
    """A directory of repositories (:func:`repositories_in`) as its repositories' files,
    each named as when that repository is given alone (:func:`repository_files`), then the
    files in none of them, named as below ``root``; None when ``root`` is one repository.
    ``check`` and ``migrate`` check and migrate each part as one repository."""
    roots = repositories_in(root)
    if not roots:
        return None
    where = {found.relative_to(root).parts: i for i, found in enumerate(roots)}
    prefixes = [package_prefix(found) for found in roots]
    parts: list[dict[str, Path]] = [{} for _ in roots]
    rest: dict[str, Path] = {}
    for name, path in repository_files(root).items():
        below = path.relative_to(root).parts
        depth = next((n for n in range(1, len(below)) if below[:n] in where), 0)
        if depth:
            at = where[below[:depth]]
            parts[at][prefixes[at] + "/".join(below[depth:])] = path
        else:
            rest[name] = path
    return [named for named in (*parts, rest) if named]


def package_prefix(root: Path) -> str:
    """``app/`` for a directory ``app`` with an ``__init__.py`` (``pkg/app/`` if ``pkg`` is a
    package too): what a repository run puts before the names of the files below ``root``."""
    prefix = ""
    here = root.resolve()
    while (here / "__init__.py").is_file() and here.parent != here:
        prefix = f"{here.name}/{prefix}"
        here = here.parent
    return prefix


def iter_python_files(path: Path) -> Iterator[Path]:
    """``path`` itself if not a directory, else its ``*.py`` files (no symlinks out of it)."""
    if not path.is_dir():
        yield path
        return
    for found, _ in _python_files(path):
        yield found


def _python_files(path: Path) -> Iterator[tuple[Path, str]]:
    """The ``*.py`` files under the directory ``path``, each with its name relative to it
    (``a/b.py``), sorted directory by directory, a file reached twice through a link once."""
    root = str(path.resolve())
    seen: set[str] = set()
    for directory, dirnames, filenames in os.walk(path, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d not in EXCLUDED_DIRS)
        below = Path(directory).relative_to(path).as_posix()
        below = "" if below == "." else below + "/"
        # the walk enters no linked directory: below ``root`` the real path is the relative one
        here = os.path.join(root, below)
        for name in sorted(filenames):
            if not name.endswith(".py"):
                continue
            candidate = Path(directory, name)
            if candidate.is_symlink():
                resolved = candidate.resolve()
                if not resolved.is_relative_to(root):
                    continue  # a link out of the tree being processed
                real = str(resolved)
            else:
                real = here + name
            if real not in seen:
                seen.add(real)
                yield candidate, below + name
