"""The results cache of ``rebalance-guard check`` (ruff and mypy style).

An entry is keyed by everything that decides its findings: the content digest of each file
it covers, a digest of the tool's own code (every module of this package, the rule table
included, since the version stays 0.1.0 while the code changes, and the ``rebalance_guard``
modules the rules load, its client facts; editing its views changes no finding), the Python
version (``ast`` differs between them) and the options that change findings. Nothing else
is read (no modification times): a file touched is a hit, a file edited and edited back is a
hit again.

A single file is one entry, keyed by its name as given too (the parser is given it). A
repository (a directory, :func:`rebalance_lint.check_repository`) is one entry keyed by
every file of it, name and content: a module's findings there depend on the modules it
imports (Kafka or not), on those that register its listeners and on every file that names
a legacy listener class, so when any module changes, everything that may depend on it is
checked again (the whole repository: a superset of what depends on it).

The directory is ``.rebalance_guard_cache/`` at the project root (the nearest directory
above the working directory holding ``pyproject.toml``, ``setup.py``, ``setup.cfg`` or
``.git``; the working directory when there is none), or ``$REBALANCE_GUARD_CACHE_DIR``. It
holds its own ``.gitignore`` (``*``) and a ``CACHEDIR.TAG``. Every file is written to a
temporary name in its final directory and renamed over the target, so concurrent runs never
see half an entry and a killed run leaves at most a ``.tmp-*`` file no reader opens; an entry
that cannot be read or decoded is a miss. A cache that cannot be written costs its speed,
never the check. Entries are content-keyed, so edits add new ones: a hit refreshes an entry's
modification time, and once a day a run removes those unused for 30 days.

Only the ``check`` command uses it: the flake8 plugin and the fleet scan never import it.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping
from contextlib import suppress
from functools import lru_cache
from pathlib import Path

from rebalance_lint.reading import is_project_root
from rebalance_lint.report import FileReport, Finding

#: The environment variable that moves the cache directory.
CACHE_ENV = "REBALANCE_GUARD_CACHE_DIR"
CACHE_DIR_NAME = ".rebalance_guard_cache"
_TAG = b"Signature: 8a477f597d28d172789f06886806bc55\n# rebalance-guard check's cache\n"
#: Bumped when the entry format changes.
_FORMAT = "1"
#: An entry no run has read or written for this long (seconds) is removed.
MAX_AGE = 30 * 24 * 3600
_PRUNE_EVERY = 24 * 3600


def default_directory(cwd: Path | None = None) -> Path:
    """Where the cache lives when no option or environment variable says otherwise."""
    moved = os.environ.get(CACHE_ENV)
    if moved:
        return Path(moved)
    here = (cwd or Path.cwd()).resolve()
    for directory in (here, *here.parents):
        if is_project_root(directory):
            return directory / CACHE_DIR_NAME
    return here / CACHE_DIR_NAME


@lru_cache(maxsize=1)
def tool_digest() -> str:
    """A digest of :func:`tool_modules` and of the Python that parses with them."""
    digest = hashlib.sha256(f"{_FORMAT}\0{sys.version}\0".encode())
    for name, path in sorted(tool_modules().items()):
        digest.update(f"{name}\0".encode() + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def tool_modules() -> dict[str, Path]:
    """The code that decides findings: every module of this package (the rule table
    included) and the ``rebalance_guard`` modules the rules load (its client facts): every
    one this process has loaded once the rules are, so never fewer than they read."""
    # Loaded for what they import: the rules, the analysis and the planners.
    import rebalance_lint.engine
    import rebalance_lint.repository  # noqa: F401

    package = Path(__file__).resolve().parent
    modules = {f"rebalance_lint/{p.relative_to(package).as_posix()}": p
               for p in package.rglob("*.py")}  # fmt: skip
    for name, module in list(sys.modules.items()):
        location = getattr(module, "__file__", None)
        if name.split(".")[0] == "rebalance_guard" and location:
            modules[name] = Path(location)
    return modules


def content_digest(source: bytes) -> str:
    return hashlib.sha256(source).hexdigest()


class Cache:
    """Reports by key, on disk under ``directory``."""

    def __init__(self, directory: Path, options: Iterable[str] = ()) -> None:
        self.directory = directory
        self._salt = "\0".join((tool_digest(), *options))
        self._ready = False

    def file_key(self, name: str, source: bytes) -> str:
        return self._key("file", name, content_digest(source))

    def repository_key(self, sources: Mapping[str, bytes]) -> str:
        return self.repository_key_of({name: content_digest(s) for name, s in sources.items()})

    def repository_key_of(self, digests: Mapping[str, str]) -> str:
        """:meth:`repository_key` from each file's :func:`content_digest`."""
        return self._key("repository", *(f"{name}\0{d}" for name, d in sorted(digests.items())))

    def _key(self, *parts: str) -> str:
        return hashlib.sha256("\0".join((self._salt, *parts)).encode()).hexdigest()

    def get(self, key: str) -> dict[str, FileReport] | None:
        """The reports stored under ``key`` (by name; ``""`` for a single file), or None."""
        path = self._path(key)
        try:
            data = json.loads(path.read_bytes())
            reports = {name: _report(value) for name, value in data.items()}
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            return None
        with suppress(OSError):
            os.utime(path)  # used: kept by prune()
        return reports

    def prune(self, now: float | None = None) -> None:
        """Remove the entries no run has used for :data:`MAX_AGE` seconds and what killed
        runs left (``.tmp-*`` over an hour old); at most once a day, so that a run does not
        list the whole directory each time."""
        now = time.time() if now is None else now
        stamp = self.directory / "last-pruned"
        try:
            if now - stamp.stat().st_mtime < _PRUNE_EVERY:
                return
        except FileNotFoundError:
            if not (self.directory / "entries").is_dir():
                return  # nothing cached yet
        except OSError:
            return
        for path in (self.directory / "entries").glob("*/*"):
            with suppress(OSError):  # removed meanwhile by a concurrent run, or not ours
                age = now - path.stat().st_mtime
                if age > MAX_AGE or (path.name.startswith(".tmp-") and age > 3600):
                    path.unlink(missing_ok=True)
        with suppress(OSError):
            _write_atomic(stamp, b"")
            os.utime(stamp, (now, now))

    def put(self, key: str, reports: Mapping[str, FileReport]) -> None:
        data = json.dumps(
            {name: _plain(report) for name, report in reports.items()}, separators=(",", ":")
        ).encode()
        try:
            self._prepare()
            path = self._path(key)
            path.parent.mkdir(exist_ok=True)
            _write_atomic(path, data)
        except OSError:
            pass  # an unwritable cache only costs speed

    def _path(self, key: str) -> Path:
        return self.directory / "entries" / key[:2] / key

    def _prepare(self) -> None:
        """The directory with its ``.gitignore`` and ``CACHEDIR.TAG``, once per process."""
        if self._ready:
            return
        (self.directory / "entries").mkdir(parents=True, exist_ok=True)
        for name, data in ((".gitignore", b"# Created by rebalance-guard.\n*\n"),
                           ("CACHEDIR.TAG", _TAG)):  # fmt: skip
            if not (self.directory / name).exists():
                _write_atomic(self.directory / name, data)
        self._ready = True


def _write_atomic(path: Path, data: bytes) -> None:
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _plain(report: FileReport) -> dict[str, object]:
    return {
        "status": report.status,
        "reason": report.reason,
        "skipped": report.skipped,
        "findings": [
            [f.line, f.col, f.code, f.message, f.fixable, f.kind] for f in report.findings
        ],
    }


def _report(value: dict[str, object]) -> FileReport:
    findings = value["findings"]
    if not isinstance(findings, list):
        raise TypeError("findings")
    return FileReport(
        status=value["status"],  # type: ignore[arg-type]
        reason=str(value["reason"]),
        skipped=bool(value["skipped"]),
        findings=tuple(Finding(*f) for f in findings),
    )
