"""Repository mode: check the files of one repository together, linked by their imports.

A listener class in one module registered in another, a callback function imported into the
module that subscribes, an owner class whose method commits (``self.worker.flush()``), a
helper in another module: single-file checking (flake8) sees only half of each, and says
nothing about what it cannot see. Here every file that mentions Kafka is prepared
(:func:`rebalance_lint.analysis.build.prepare`), registration sites are linked to the
definitions they import from the repository, and each file is then finished and checked
with everything it reaches. A file that does not mention Kafka is parsed only when Kafka
code imports something from it, and reports nothing itself (as in single-file mode).

Paths are the repository-relative names (``billing/consumer.py``): they decide module names
(``billing.consumer``), and ``src/`` layouts resolve by suffix.
"""

from __future__ import annotations

import ast
import gc
from collections.abc import Collection, Iterable, Iterator, Mapping
from contextlib import contextmanager
from functools import partial

from rebalance_lint.analysis.build import Builder, Prepared, prepare
from rebalance_lint.analysis.collect import FunctionNode
from rebalance_lint.analysis.migration_facts import FileFacts, facts_shared, file_facts
from rebalance_lint.analysis.migration_repository import (
    RepositoryPlan,
    legacy_listeners,
    plan_repository,
)
from rebalance_lint.analysis.model import Analysis, Callback, Registration
from rebalance_lint.analysis.program import Program, Unit
from rebalance_lint.analysis.references import ClassReference, ReferenceFinder, mentioning
from rebalance_lint.analysis.registrations import (
    resolve_function,
    resolve_listener,
    unwrap_partial,
)
from rebalance_lint.analysis.walk import bodies_kept
from rebalance_lint.engine import check_bytes, findings_for_analysis, plans_migration
from rebalance_lint.noqa import without_suppressed
from rebalance_lint.report import FileReport
from rebalance_lint.screening import MAX_SOURCE_BYTES, mentions_kafka
from rebalance_lint.source import Unparsable, load


def check_repository(
    files: Mapping[str, bytes] | Iterable[tuple[str, bytes]],
    codes: Collection[str] | None = None,
) -> dict[str, FileReport]:
    """Run every KRB rule on a repository's files at once: ``{path: report}`` for each file.

    ``files`` maps repository-relative paths to their bytes (a mapping or pairs); ``codes``:
    only those rules (None: all), the migration planned only when a KRB2xx code is. Never
    raises for bad input: a file that cannot be checked gets the same status as
    :func:`rebalance_lint.check_source` gives it, and an internal error while linking
    falls back to checking each file on its own.
    """
    # A mapping is read, not copied: the fleet scan passes one that keeps files without
    # Kafka on disk and reads one back only when a Kafka module imports it.
    sources = files if isinstance(files, Mapping) else dict(files)
    # Every Kafka file's tree stays alive until the repository is checked; the cyclic
    # collector would rescan that growing heap after every few thousand allocations (it
    # doubled the cost on site-packages), and trees have no cycles to collect.
    collecting = gc.isenabled()
    gc.disable()
    try:
        repository = _Repository(sources, codes)
        try:
            with bodies_kept():  # the passes and rules walk each callback's body once
                return repository.check()
        finally:
            repository.release()
    except (RecursionError, MemoryError):
        return {path: check_bytes(source, path, codes) for path, source in sources.items()}
    except Exception:  # never let one repository take down a fleet scan: single-file mode
        return {path: check_bytes(source, path, codes) for path, source in sources.items()}
    finally:
        if collecting:
            gc.enable()


def migration_repository(
    files: Mapping[str, bytes],
) -> tuple[dict[str, Analysis], RepositoryPlan] | None:
    """Repository mode of ``rebalance-guard migrate DIR``: the linked model of every Kafka
    file (each with its repository plan on ``Analysis.migration``) and the listener groups
    to write together. None when linking fails (the caller then migrates file by file)."""
    with _collector_paused():
        try:
            repository = _Repository(dict(files))
            analyses = repository.analyse()
        except Exception:  # RecursionError, MemoryError, a bug: single-file mode
            return None
    if repository.migration is None:
        return None
    return {p: a for p, a in analyses.items() if isinstance(a, Analysis)}, repository.migration


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic collector off while a repository's trees are alive (see check_repository)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


class _Repository:
    def __init__(self, sources: Mapping[str, bytes], codes: Collection[str] | None = None) -> None:
        self.sources = sources
        self.codes = codes
        self.prepared: dict[str, Prepared] = {}
        self.reports: dict[str, FileReport] = {}
        self.program = Program(sources, self._load)
        self.migration: RepositoryPlan | None = None
        #: the planner facts of modules whose functions a planned file imports
        self._facts: dict[str, FileFacts] = {}

    def release(self) -> None:
        """Drop the links between the repository's objects once its reports are made
        (:meth:`Program.release`)."""
        self.program.release()
        self.prepared.clear()
        self.reports.clear()
        self._facts.clear()
        self.__dict__.pop("_finder", None)

    def _load(self, path: str) -> Unit | None:
        """Prepare a file on first use (a Kafka file, or one that Kafka code imports)."""
        source = self.sources.get(path)
        if source is None or len(source) > MAX_SOURCE_BYTES:
            return None
        loaded = load(source, path)
        if isinstance(loaded, Unparsable):
            return None
        try:
            prepared = prepare(
                loaded.tree,
                loaded.text,
                path,
                lambda imports, base: self.program.consumer_base(path, imports, base),
            )
        except RecursionError:
            return None
        self.prepared[path] = prepared
        return prepared.unit

    def check(self) -> dict[str, FileReport]:
        for path, analysis in self.analyse().items():
            self.reports[path] = self._report(path, analysis)
        return {path: self.reports[path] for path in self.sources}

    def analyse(self) -> dict[str, Analysis | FileReport]:
        """Each Kafka file's linked model (or the report of why it has none), with the
        repository's migration plan on it (so fixable means what ``migrate DIR`` does)."""
        kafka: list[str] = []
        # a mapping that screened its files on reading them (``check``'s, which keeps only
        # those that mention Kafka in memory) names them: the others are not read again
        screened: Collection[str] | None = getattr(self.sources, "mentioning_kafka", None)
        for path in self.sources:
            if screened is not None and path not in screened:
                self.reports[path] = FileReport("ok", skipped=True)  # as below
                continue
            source = self.sources[path]
            if len(source) > MAX_SOURCE_BYTES:
                self.reports[path] = check_bytes(source, path, self.codes)  # too_large
                continue
            if not mentions_kafka(source):
                self.reports[path] = FileReport("ok", skipped=True)
                continue
            if self.program.unit(path) is None:
                self.reports[path] = check_bytes(source, path, self.codes)  # its status
                continue
            kafka.append(path)
        for path in kafka:
            self._link(self.prepared[path])
        for path in kafka:
            self.prepared[path].builder.attributes_set_on_other_files(self._builder_of)
        for prepared in list(self.prepared.values()):
            prepared.finish()
        registered: dict[int, list[Callback]] = {}  # site -> callbacks (of every file)
        for prepared in self.prepared.values():
            for callback in prepared.builder.callbacks.values():
                for site_id in {id(site) for site in callback.sites}:
                    registered.setdefault(site_id, []).append(callback)
        analyses = {path: self._analysis(path, registered) for path in kafka}
        linked = {path: a for path, a in analyses.items() if isinstance(a, Analysis)}
        if not plans_migration(self.codes):
            return analyses  # no finding asked for shows the plan
        try:
            names = {cls.name for _, cls in legacy_listeners(linked)}
            mentions = mentioning(self.sources, names) if names else {}
            self._finder = ReferenceFinder(self.program, mentions)
            with facts_shared():  # a tree's index and bindings built once
                self.migration = plan_repository(
                    linked, self._references, self._function, self._callers
                )
        except Exception:  # RecursionError, a planner bug: each file planned on its own
            for analysis in linked.values():
                analysis.migration = None
        return analyses

    def _references(self, path: str, cls: ast.ClassDef) -> list[ClassReference]:
        """The uses of ``cls`` (defined in ``path``) in the repository's other modules."""
        unit = self.program.unit(path)
        if unit is None:
            return []
        return self._finder.find(unit, cls)

    def _function(self, path: str, name: ast.expr) -> tuple[FileFacts, FunctionNode] | None:
        """The module-level function ``name`` (imported into ``path``) is in another module
        of the repository, with that module's planner facts (built once per module)."""
        unit = self.program.unit(path)
        found = self.program.imported(unit, name) if unit is not None else None
        if found is None or found[0] is unit:
            return None
        other, function = found
        prepared = self.prepared.get(other.path)
        tree = other.facts.module.node
        if (
            prepared is None
            or not isinstance(tree, ast.Module)
            or not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
            or function not in tree.body
        ):
            return None
        facts = self._facts.get(other.path)
        if facts is None:
            facts = self._facts[other.path] = file_facts(tree, prepared.text, other.facts.imports)
            facts.imported = partial(self._function, other.path)
        return facts, function

    def _callers(
        self, path: str, function: FunctionNode
    ) -> list[tuple[str, FileFacts, ast.Call]] | str:
        """The calls of the module-level ``function`` of ``path`` in the repository's other
        modules, each with its module's planner facts; or why a use there is not a call."""
        unit = self.program.unit(path)
        if unit is None:
            return []
        finder = ReferenceFinder(self.program, mentioning(self.sources, [function.name]))
        out: list[tuple[str, FileFacts, ast.Call]] = []
        for ref in finder.find(unit, function):
            other = self.program.unit(ref.path)
            tree = other.facts.module.node if other is not None else None
            if ref.kind == "unreadable":
                return f"{ref.path} mentions {function.name}() but {ref.text}"
            if ref.kind != "creation" or not isinstance(ref.node, ast.Call) or other is None:
                return f"{ref.path}:{ref.line} uses {function.name}() other than by a call"
            facts = self._facts.get(ref.path)
            prepared = self.prepared.get(ref.path)
            if facts is None and isinstance(tree, ast.Module) and prepared is not None:
                facts = file_facts(tree, prepared.text, other.facts.imports)
                facts.imported = partial(self._function, ref.path)
                self._facts[ref.path] = facts
            if facts is None:
                return f"{ref.path} cannot be read"
            out.append((ref.path, facts, ref.node))
        return out

    def _builder_of(self, unit: Unit) -> Builder | None:
        prepared = self.prepared.get(unit.path)
        return prepared.builder if prepared is not None and not prepared.finished else None

    def _link(self, prepared: Prepared) -> None:
        """Attach the sites whose listener or callbacks are defined in other files."""
        unit = prepared.unit
        for reg in list(prepared.unresolved):
            targets: set[str] = set()
            for role, expr in reg.roles.items():
                found = self._target(unit, reg, role, expr)
                if found is None:
                    break
                if found is not unit:
                    targets.add(found.path)
            else:  # every role found: attach the remote ones in the files defining them
                for path in sorted(targets):
                    self.prepared[path].link(reg, unit)
                prepared.unresolved.remove(reg)

    def _target(self, unit: Unit, reg: Registration, role: str, expr: ast.expr) -> Unit | None:
        """The unit defining what ``expr`` registers (this one if it is local), or None."""
        found: tuple[Unit, ast.AST] | None
        if role == "listener":
            cls, call = resolve_listener(expr, reg.scope, unit.facts)
            if cls is not None:
                return unit
            found = unit.klass(reg.scope, call.func if call is not None else expr)
        else:
            if resolve_function(expr, reg.scope, unit.facts, unit.hierarchy) is not None:
                return unit
            found = unit.function(reg.scope, unwrap_partial(expr, unit.facts.imports)[0])
        if found is None or found[0].path not in self.prepared:
            return None
        return found[0]

    def _analysis(self, path: str, registered: dict[int, list[Callback]]) -> Analysis | FileReport:
        prepared = self.prepared[path]
        try:
            own = set(prepared.builder.callbacks.values())
            foreign = list(
                {
                    id(callback): callback
                    for site in prepared.registrations
                    for callback in registered.get(id(site), [])
                    if callback not in own
                }.values()
            )
            return prepared.analysis(foreign)
        except Exception as exc:
            return _failed(exc)

    def _report(self, path: str, analysis: Analysis | FileReport) -> FileReport:
        if isinstance(analysis, FileReport):
            return analysis
        try:
            findings = findings_for_analysis(analysis, self.codes)
            return FileReport("ok", without_suppressed(findings, self.prepared[path].text))
        except Exception as exc:
            return _failed(exc)


def _failed(exc: Exception) -> FileReport:
    if isinstance(exc, RecursionError):
        return FileReport("too_large", reason="too deeply nested to analyse")
    reason = f"internal error in the KRB rules: {type(exc).__name__}: {exc}"
    return FileReport("crashed", reason=reason.splitlines()[0])
