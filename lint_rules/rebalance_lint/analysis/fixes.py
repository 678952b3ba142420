"""The auto-fixes for KRB103 and KRB104, planned from the program model: the one place that
decides whether such a finding has a fix, and what the fix rewrites.

Like the migration planner (:mod:`.migration`), this module reads the ``ast`` model and stages
:class:`~.edits.Edit` actions at source spans; ``rebalance_codemods`` applies them with LibCST
(``rebalance-guard check --fix``, and ``migrate`` after its own edits). A fix is planned only
where the rewrite is provably the intended one and nothing else; everywhere else the finding
gets the reason instead. The decisions, rule by rule:

**KRB103** (an asynchronous commit in a revocation) becomes the same commit made synchronously,
when all of these hold:

- the commit is a statement of the callback's own body (``consumer.commit_async()`` or
  ``await consumer.commit(...)`` on a line of its own): its return value is not used (a
  ``Future`` or ``None`` from the asynchronous form, a list from confluent's synchronous one),
  and it is not in a helper that other code may call too;
- the callback does not also run when partitions are lost, unless the KRB104 fix below gives
  it a lost handler in the same plan: a synchronous commit for lost partitions raises where
  the asynchronous one failed quietly. A bare commit on the rebalance view needs no lost
  handler: on loss the view commits nothing (:func:`harmless_on_loss`);
- kafka-python ``commit_async(offsets)`` -> ``commit(offsets)``: only on the rebalance_guard
  view (the callback's own consumer argument). On the consumer itself a blocking ``commit()``
  raises on kafka-python 3's IO thread (KRB105); a ``callback=`` has no place in
  ``commit()``;
- confluent ``commit(..., asynchronous=True)`` -> ``asynchronous=False``, and a bare
  ``commit(...)`` on the raw confluent consumer gets ``asynchronous=False``: on the
  rebalance_guard views always (their synchronous ``commit()`` returns ``[]`` when there is
  nothing to commit), on the raw consumer only with explicit ``offsets=``/``message=``:
  librdkafka's synchronous commit of the current positions raises ``KafkaException(_NO_OFFSET)``
  when nothing was consumed since the last commit, common in a revocation.

Either way a failing commit now raises from the callback (which is what a synchronous commit
means) instead of being logged.

**KRB104** (a commit that also runs when partitions are lost; not a bare commit on the
rebalance view, which commits nothing for lost partitions: :func:`harmless_on_loss` decides
that, for the rule and for both fixes) gets an explicit lost handler
that does what the lost path did minus the commit, which can be said without guessing only
when the revocation does nothing but commit and log: its body is commit statements, ``pass``,
docstrings, assignments of side-effect-free values to local names, ``if`` statements over
side-effect-free tests holding such statements, and logging calls (``log.info(...)``,
``print(...)``) on lines of their own. The lost handler keeps those logging calls, in order,
under a comment (a log line the lost path wrote before still appears), or is ``pass`` with the
comment. A revocation that also cleans up (clears per-partition state, closes files,
unassigns) needs that clean-up on loss too, without the commit; where the commit sits between
clean-up steps, or the clean-up depends on it, only a person can say what the lost handler
should do: it is reported, not fixed. Further conditions:

- a rebalance_guard or kafka-python 3 listener class with no ``on_partitions_lost``: an
  ``on_partitions_lost`` with the revocation's own signature (``async`` too) is added right
  after ``on_partitions_revoked``, in the class that defines it. Not when a class of the file
  derives from that class and overrides ``on_partitions_revoked`` without an
  ``on_partitions_lost`` (the new method would change what that class does on loss), or when
  the revocation is decorated or also called on the lost path some other way;
- confluent ``subscribe(..., on_revoke=f)`` without ``on_lost=``: a function ``f``'s lost twin
  (``on_revoke`` -> ``on_lost``, a name the file does not use yet) is defined right after
  ``f``, in the same block, and every such ``subscribe()`` of this file that names ``f``
  directly gets ``on_lost=`` that name (``self._on_lost`` for a method registered as
  ``self._on_revoke``). A def rather than a lambda: ``rebalance-guard migrate`` gathers
  defined functions into a listener class, and AIOConsumer awaits its callbacks (the twin is
  ``async def`` there). Not for lambdas, ``functools.partial`` objects, callbacks passed
  through variables or ``**kwargs``, or registrations in another file.

Every fix is idempotent: once applied, the finding it fixes is gone, so nothing is planned
again. ``tests/lint/test_fixes.py`` holds each case, refusals included.
"""

from __future__ import annotations

import ast
import re
import weakref
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from rebalance_guard._client_facts import COMMIT_METHODS as COMMITS

from rebalance_lint.analysis.clients import (
    is_confluent,
    takes_callbacks,
    wraps_only_keyword_callbacks,
)
from rebalance_lint.analysis.collect import FunctionNode, positional_params
from rebalance_lint.analysis.edits import Edit, MigrationPlan, span
from rebalance_lint.analysis.migration_facts import has_star_args
from rebalance_lint.analysis.model import Analysis, Callback, Effect, Registration
from rebalance_lint.analysis.walk import body_nodes
from rebalance_lint.noqa import without_suppressed
from rebalance_lint.report import Finding

#: The codes with auto-fixes (the KRB2xx codes are fixed by the migration).
FIX_CODES = frozenset({"KRB103", "KRB104"})
#: A finding: (code, line, col) of the node it is reported at.
Key = tuple[str, int, int]

#: The comment of the lost handler the KRB104 fix adds.
LOST_COMMENT = "# lost partitions belong to another member already: nothing to commit"
#: Consumer methods that only read (allowed in the arguments of a commit the lost path drops).
_READS = frozenset(
    {"position", "committed", "assignment", "paused", "beginning_offsets", "end_offsets",
     "highwater", "get_watermark_offsets", "offsets_for_times", "partitions_for_topic",
     "topics", "list_topics", "memberid", "consumer_group_metadata", "group_metadata"}
)  # fmt: skip
#: Calls that build values without changing anything (also allowed there).
_PURE_FUNCTIONS = frozenset(
    {"dict", "list", "set", "frozenset", "tuple", "len", "sorted", "min", "max", "int", "str",
     "bool", "range", "enumerate", "zip", "reversed", "isinstance"}
)  # fmt: skip
_PURE_METHODS = frozenset({"items", "keys", "values", "get", "copy"}) | _READS
_NOT_PURE = (ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr)
_REVOKE_WORD = re.compile(r"revoked|revocation|revoke")


def fix_key(code: str, node: ast.AST) -> Key:
    """The key of the finding of ``code`` reported at ``node``."""
    return code, getattr(node, "lineno", 1), getattr(node, "col_offset", 0)


def asynchronous_commit(effect: Effect, callback: Callback) -> str | None:
    """How this commit is asynchronous (KRB103's ``what``), or None if it is synchronous or
    that cannot be known."""
    if effect.name == "commit_async":
        return "commit_async()"
    if effect.name != "commit" or not isinstance(effect.node, ast.Call):
        return None
    flag = next((kw.value for kw in effect.node.keywords if kw.arg == "asynchronous"), None)
    if isinstance(flag, ast.Constant):
        return "commit(asynchronous=True)" if flag.value is True else None
    if flag is not None:
        return None
    return (
        "commit() is asynchronous by default in confluent-kafka"
        if _raw_confluent(effect, callback)
        else None
    )


def harmless_on_loss(effect: Effect, callback: Callback, analysis: Analysis) -> bool:
    """A bare commit on the rebalance view: during ``on_partitions_lost`` the view commits
    nothing, because the lost partitions are already gone (KIP-1306, DESIGN runtime rule 7).
    KRB104 does not report it, and KRB103's fix of it needs no lost handler.

    Bare: no offsets and no message (``commit()``, ``commit_async()``,
    ``commit(asynchronous=...)``); on the view: the consumer argument of a rebalance_guard
    callback, also where it is passed down to a helper or another object's method, not a
    consumer of the client's own (an injected one, a legacy or raw confluent callback's),
    whose commit does fail.
    """
    call = effect.node
    return (
        effect.origin == "param"
        and effect.name in ("commit", "commit_async")
        and isinstance(call, ast.Call)
        and not call.args
        and not any(kw.arg in (None, "offsets", "message") for kw in call.keywords)
        and _given_the_view(callback, analysis, frozenset())
    )


def _given_the_view(callback: Callback, analysis: Analysis, seen: frozenset[int]) -> bool:
    """What ``callback`` knows as the consumer argument (``origin == "param"``) is the
    rebalance view wherever it runs on loss: a rebalance_guard callback's own argument; in a
    helper (whose such names are the parameters its callers pass their consumer argument in),
    only when every call that runs it on the lost path passes each of them a caller's own
    view. A helper shared with a raw confluent callback, or also given an injected consumer
    (``self._commit(self.consumer)`` in ``on_partitions_lost``), commits on a real consumer."""
    if callback.api != "guard":
        return False
    if not callback.helper:
        return True
    if id(callback) in seen:
        return True  # a call cycle among helpers: its entries decide
    seen = seen | {id(callback)}
    params = [a.arg for a in positional_params(callback.func)[1 if callback.is_method else 0 :]]
    calls = [
        (caller, hop.call)
        for caller in analysis.callbacks
        if "lost" in caller.kinds
        for hop, func in caller.helper_calls
        if func is callback.func
    ]
    if not calls:
        return False
    for caller, call in calls:
        for name in callback.passed_consumer:
            arg = _argument(call, params, name)
            if not isinstance(arg, ast.Name) or caller.receivers.get(arg.id) != "param":
                return False
        if not _given_the_view(caller, analysis, seen):
            return False
    return True


def _argument(call: ast.Call, params: list[str], name: str) -> ast.expr | None:
    """The argument ``call`` binds to the parameter ``name`` (``params``: the positional
    ones, after ``self``), if it gives one explicitly."""
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    index = params.index(name) if name in params else len(call.args)
    given = call.args[: index + 1]
    if index < len(call.args) and not any(isinstance(arg, ast.Starred) for arg in given):
        return call.args[index]
    return None


def _raw_confluent(effect: Effect, callback: Callback) -> bool:
    """A commit on confluent's own consumer (not on a rebalance_guard view)."""
    return is_confluent(callback.client) and (
        callback.api == "confluent" or effect.origin == "injected"
    )


@dataclass(frozen=True)
class Fix:
    """The edits that fix one finding. ``requires``: the fix is safe only together with one of
    these (a KRB103 fix in a revocation that also runs on loss needs the KRB104 fix that gives
    it a lost handler)."""

    edits: tuple[Edit, ...]
    requires: frozenset[Key] = frozenset()


@dataclass
class Fixes:
    """Every KRB103/KRB104 candidate of a file: its fix, or why it has none."""

    fixes: dict[Key, Fix] = field(default_factory=dict)
    refused: dict[Key, str] = field(default_factory=dict)

    def plan(self, keys: Iterable[Key]) -> MigrationPlan:
        """The edits that fix the findings ``keys`` (the reported ones: selected, not
        suppressed), each edit once; the others are the plan's manual sites, with why."""
        wanted = {key for key in keys if key[0] in FIX_CODES}
        alone = {key for key in wanted if key in self.fixes and not self.fixes[key].requires}
        chosen = sorted(
            alone
            | {key for key in wanted if key in self.fixes and self.fixes[key].requires & alone}
        )
        plan = MigrationPlan(sites=len(chosen))
        seen: set[Edit] = set()
        for key in chosen:
            for edit in self.fixes[key].edits:
                if edit not in seen:
                    seen.add(edit)
                    plan.edit(edit)
        for key in sorted(wanted - set(chosen)):
            reason = self.refused.get(key)
            if reason is None and key in self.fixes:
                reason = (
                    "needs the KRB104 fix of the same callback (its lost handler), which is "
                    "not selected or is suppressed"
                )
            if reason is not None:
                plan.refuse(key[1], f"{key[0]} not fixed: {reason}")
        return plan


_PLANNED: dict[int, Fixes] = {}


def planned_fixes(analysis: Analysis) -> Fixes:
    """The fixes of the file ``analysis`` models, planned once (on the first fixable question)."""
    found = _PLANNED.get(id(analysis))
    if found is None:
        found = _Planner(analysis).run()
        _PLANNED[id(analysis)] = found
        weakref.finalize(analysis, _PLANNED.pop, id(analysis), None)
    return found


def has_fix(code: str, site: ast.AST, analysis: Analysis) -> bool:
    """Whether the finding of ``code`` at ``site`` has an auto-fix."""
    return fix_key(code, site) in planned_fixes(analysis).fixes


class _Planner:
    def __init__(self, analysis: Analysis) -> None:
        self.analysis = analysis
        self.fixes = Fixes()
        self._names: set[str] | None = None
        self._nodes: set[int] | None = None
        self._lost: dict[int, tuple[Edit, ...] | str] = {}

    def run(self) -> Fixes:
        if self.analysis.tree is None:
            return self.fixes
        for callback in self.analysis.callbacks:
            commits = [e for e in callback.effects if e.kind == "call" and e.name in COMMITS]
            if not commits:
                continue
            lost_keys: set[Key] = set()
            failing = [e for e in commits if not harmless_on_loss(e, callback, self.analysis)]
            if "lost" in callback.kinds and failing:
                lost = self.lost_handler(callback)
                for effect in failing:
                    key = fix_key("KRB104", effect.anchor)
                    reason = _reached(effect) if effect.via else lost
                    if isinstance(reason, str):
                        self.fixes.refused[key] = reason
                    else:
                        self.fixes.fixes[key] = Fix(reason)
                        lost_keys.add(key)
            if "revoked" in callback.kinds:
                for effect in commits:
                    if asynchronous_commit(effect, callback) is None:
                        continue
                    key = fix_key("KRB103", effect.anchor)
                    found = self.synchronous(callback, effect, lost_keys)
                    if isinstance(found, str):
                        self.fixes.refused[key] = found
                    else:
                        self.fixes.fixes[key] = found
        return self.fixes

    # KRB103 ---------------------------------------------------------------------------------

    def synchronous(self, callback: Callback, effect: Effect, lost: set[Key]) -> Fix | str:
        """The fix that makes ``effect``'s commit synchronous, or why there is none."""
        call = effect.node
        if effect.via:
            return _reached(effect)
        if callback.helper:
            return (
                f"the commit is in {callback.label}, which other code may call too; make it "
                "synchronous there by hand if that is right for every caller"
            )
        assert isinstance(call, ast.Call)
        if not _is_statement(call, callback.func):
            return (
                "its result is used (the asynchronous form returns something else than the "
                "synchronous one); make it synchronous by hand"
            )
        if has_star_args(call):
            return "its arguments are unpacked (* or **); make it synchronous by hand"
        requires: frozenset[Key] = frozenset()
        if "lost" in callback.kinds and not harmless_on_loss(effect, callback, self.analysis):
            if not lost:
                return (
                    f"{callback.label} also runs when partitions are lost{callback.lost_via}, "
                    "where a synchronous commit raises instead of failing quietly; keep the "
                    "commit off the lost path first (KRB104)"
                )
            requires = frozenset(self._unsuppressed(lost))
            if not requires:
                return (
                    f"{callback.label} also runs when partitions are lost, and the KRB104 fix "
                    "that would give it a lost handler is suppressed (noqa); a synchronous "
                    "commit there raises: fix it by hand"
                )
        if effect.name == "commit_async":
            edit = self.commit_async(callback, effect, call)
        else:
            edit = self.asynchronous_false(callback, effect, call)
        return edit if isinstance(edit, str) else Fix((edit,), requires)

    def commit_async(self, callback: Callback, effect: Effect, call: ast.Call) -> Edit | str:
        if callback.client != "kafka_python":
            return "not a kafka-python consumer's commit_async(); commit synchronously by hand"
        if callback.api != "guard" or effect.origin != "param":
            return (
                f"commit_async() is called on the consumer itself ({effect.receiver}), not on "
                "the rebalance view: a blocking commit() there raises on kafka-python 3's IO "
                "thread (KRB105); rebalance-guard migrate moves the listener to the view and "
                "then makes this commit synchronous (where it cannot, its manual site says why)"
            )
        keywords = {kw.arg for kw in call.keywords}
        if len(call.args) > 1 or "callback" in keywords:
            return (
                "commit_async() is given a callback, which commit() does not take; commit "
                "synchronously and do the callback's work after it by hand"
            )
        if keywords - {"offsets"}:
            return "commit_async() has arguments commit() does not take; fix it by hand"
        assert isinstance(call.func, ast.Attribute)
        return Edit("rename_method", span(call), value="commit")

    def asynchronous_false(self, callback: Callback, effect: Effect, call: ast.Call) -> Edit | str:
        if not is_confluent(callback.client):
            return "not a confluent-kafka commit; commit synchronously by hand"
        explicit = bool(call.args) or any(kw.arg in ("offsets", "message") for kw in call.keywords)
        if _raw_confluent(effect, callback) and not explicit:
            return (
                "on confluent's own consumer a synchronous commit() of the current positions "
                "raises KafkaException(_NO_OFFSET) when nothing was consumed since the last "
                "commit; rebalance-guard migrate moves the callback to the rebalance view, whose "
                "commit() is synchronous and returns [] then (where it cannot, its manual site "
                "says why; or pass offsets= by hand)"
            )
        return Edit("set_keyword", span(call), value="asynchronous", extra="False")

    # KRB104 ---------------------------------------------------------------------------------

    def lost_handler(self, callback: Callback) -> tuple[Edit, ...] | str:
        """The edits that give ``callback`` a lost handler that does not commit, or why not."""
        known = self._lost.get(id(callback))
        if known is None:
            known = self._lost_handler(callback)
            self._lost[id(callback)] = known
        return known

    def _lost_handler(self, callback: Callback) -> tuple[Edit, ...] | str:
        func = callback.func
        via = callback.lost_via
        if callback.helper:
            return (
                f"the commit is in {callback.label}, reached from a callback that runs on "
                "loss; keep it off the lost path by hand"
            )
        if isinstance(func, ast.Lambda):
            return "the callback is a lambda; pass an on_lost= that does not commit by hand"
        body = self.lost_body(callback, func)
        kept = body if isinstance(body, tuple) else ()
        if callback.lost_fallthrough == "listener" and callback.owner is not None:
            found = self.listener_lost(callback, func, kept)
        elif callback.lost_fallthrough == "confluent" and callback.api == "confluent":
            found = self.confluent_lost(callback, func, kept)
        else:
            return (
                f"{callback.label} is itself called for lost partitions{via}; drop the commit "
                "there by hand"
            )
        if isinstance(found, str):
            return found
        if isinstance(body, str):
            return body
        problem = self.called_on_loss(callback, func)
        return problem if problem is not None else found

    def listener_lost(
        self, callback: Callback, func: FunctionNode, kept: tuple[int, ...]
    ) -> tuple[Edit, ...] | str:
        owner = callback.owner
        assert owner is not None
        parent = callback.scope.parent
        cls = parent.node if parent is not None and parent.is_class_body else None
        if (
            not isinstance(cls, ast.ClassDef)
            or func.name != "on_partitions_revoked"
            or owner.methods.get("on_partitions_revoked") is not func
            or "on_partitions_lost" in owner.methods
        ):
            return "the listener's methods are not all in this file; add on_partitions_lost by hand"
        if func.decorator_list:
            return "on_partitions_revoked() is decorated; add on_partitions_lost by hand"
        for sub in self._subclasses(cls):
            methods = next(
                (lc.methods for lc in self.analysis.listeners if lc.node is sub),
                _own_methods(sub),
            )
            own = methods.get("on_partitions_revoked")
            if own is not None and own is not func and "on_partitions_lost" not in methods:
                return (
                    f"{sub.name} derives from {cls.name} and has its own on_partitions_revoked(), "
                    f"which runs on loss today; an on_partitions_lost() added to {cls.name} "
                    "would change that: add the lost handlers by hand"
                )
        for reg in self.analysis.registrations:
            roles = [expr for role, expr in reg.roles.items() if role != "listener"]
            if any(_names(expr, func.name) for expr in roles):
                return "on_partitions_revoked() is also registered as a callback; fix it by hand"
        return (_stub(func, "on_partitions_lost", kept),)

    def confluent_lost(
        self, callback: Callback, func: FunctionNode, kept: tuple[int, ...]
    ) -> tuple[Edit, ...] | str:
        if callback.bound or callback.partials.keys() - {0}:
            return "on_revoke= is a functools.partial; pass an on_lost= callback by hand"
        if func.decorator_list:
            return f"{callback.label} is decorated; pass an on_lost= callback by hand"
        if callback.is_method:
            parent = callback.scope.parent
            if parent is None or not parent.is_class_body:
                return "the callback is not a method of a class of this file; fix it by hand"
        sites = list({id(reg): reg for reg in callback.sites}.values())
        to_fix: list[Registration] = []
        for reg in sites:
            if not takes_callbacks(reg.client):
                return "the callback is also registered as a listener; fix it by hand"
            lost_expr, revoke_expr = reg.roles.get("on_lost"), reg.roles.get("on_revoke")
            if lost_expr is not None:
                if _names(lost_expr, func.name, callback.is_method):
                    return f"{callback.label} is also passed as on_lost=; drop the commit by hand"
                continue
            if revoke_expr is None or not _names(revoke_expr, func.name, callback.is_method):
                if any(_names(expr, func.name, callback.is_method) for expr in reg.roles.values()):
                    continue  # registered as on_assign here; this site's on_revoke is another
                return (
                    f"a subscribe() does not give on_revoke= as {func.name} itself "
                    "(a variable, a dict of callbacks); pass on_lost= by hand"
                )
            problem = self._site_problem(reg, revoke_expr)
            if problem is not None:
                return problem
            to_fix.append(reg)
        if not to_fix:
            return "no subscribe() of this file registers it without on_lost=; fix it by hand"
        aio = {reg.client == "confluent_aio" for reg in to_fix}
        if len(aio) > 1 or isinstance(func, ast.AsyncFunctionDef) != aio.pop():
            return (
                f"{callback.label} is not async def exactly where the consumer awaits it "
                "(AIOConsumer); pass on_lost= by hand"
            )
        name = self._fresh_name(func.name)
        edits = [_stub(func, name, kept)]
        for reg in to_fix:
            revoke_expr = reg.roles["on_revoke"]
            if isinstance(revoke_expr, ast.Attribute):
                assert isinstance(revoke_expr.value, ast.Name)
                value = f"{revoke_expr.value.id}.{name}"
            else:
                value = name
            edits.append(Edit("set_keyword", span(reg.call), value="on_lost", extra=value))
        return tuple(edits)

    def _site_problem(self, reg: Registration, revoke_expr: ast.expr) -> str | None:
        call = reg.call
        root = reg.scope
        while root.parent is not None:
            root = root.parent
        if root.node is not self.analysis.tree:
            return "it is registered in another file; pass on_lost= there by hand"
        if id(call) not in self._tree_nodes():
            return (
                "a subscribe() gets it through a dict of callbacks or run_in_executor(); pass "
                "on_lost= by hand"
            )
        if has_star_args(call):
            return "a subscribe() of it unpacks * or ** arguments; pass on_lost= by hand"
        given = [*call.args, *(kw.value for kw in call.keywords)]
        if not any(arg is revoke_expr for arg in given):
            return "a subscribe() gets on_revoke= indirectly; pass on_lost= by hand"
        if wraps_only_keyword_callbacks(reg.client) and len(call.args) > 1:
            return (
                "an AIOConsumer subscribe() passes callbacks positionally, which it does not "
                "await (KRB111); pass them by keyword first"
            )
        return None

    def lost_body(self, callback: Callback, func: FunctionNode) -> tuple[int, ...] | str:
        """What the lost handler does: the revocation's top-level logging statements (their
        indexes in its body), so the lost path does what it did minus the commit; or why
        that is not all (the revocation does more than commit and log)."""
        commits = {
            id(e.node)
            for e in callback.effects
            if e.kind == "call" and e.name in COMMITS and not e.via
        }
        declared = {
            name
            for node in body_nodes(func)
            if isinstance(node, ast.Global | ast.Nonlocal)
            for name in node.names
        }
        kept: list[int] = []
        lines = [stmt.lineno for stmt in func.body]
        for index, stmt in enumerate(func.body):
            if _logs(stmt) and lines.count(stmt.lineno) == 1 and stmt.lineno != func.lineno:
                kept.append(index)
                continue
            for other in _statements([stmt], commits, declared):
                text = ast.unparse(other).splitlines()[0]
                text = text if len(text) <= 60 else text[:57] + "..."
                return (
                    f"{callback.label} does more than commit ({text}); the lost handler needs "
                    "that without the commit: write it by hand"
                )
        return tuple(kept)

    def called_on_loss(self, callback: Callback, func: FunctionNode) -> str | None:
        """Another callback that runs on loss and calls this one by name (so it stays on the
        lost path whatever handler is added)."""
        parent = callback.scope.parent
        cls = parent.node if parent is not None and parent.is_class_body else None
        family = {cls, *self._subclasses(cls)} if isinstance(cls, ast.ClassDef) else set()
        for other in self.analysis.callbacks:
            if other is callback or "lost" not in other.kinds:
                continue
            self_name = other.scope.self_name
            for node in body_nodes(other.func):
                if not isinstance(node, ast.Call) or not _names(node.func, func.name):
                    continue
                target = node.func
                if (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == self_name
                    and other.scope.cls not in family
                ):
                    continue  # self.on_partitions_revoked() of another class: not this one
                if isinstance(target, ast.Name) and callback.is_method:
                    continue  # a function of that name, not this method
                return (
                    f"{other.label} also calls {func.name}() when partitions are lost; keep "
                    "the commit off that path by hand"
                )
        return None

    # helpers --------------------------------------------------------------------------------

    def _unsuppressed(self, keys: set[Key]) -> list[Key]:
        """The findings ``keys`` that no ``# noqa`` comment of the file suppresses."""
        found = [Finding(line, col, code, "", True) for code, line, col in keys]
        return [(f.code, f.line, f.col) for f in without_suppressed(found, self.analysis.text)]

    def _tree_nodes(self) -> set[int]:
        if self._nodes is None:
            assert self.analysis.tree is not None
            self._nodes = {id(node) for node in ast.walk(self.analysis.tree)}
        return self._nodes

    def _fresh_name(self, revoke: str) -> str:
        """A name for ``revoke``'s lost twin that nothing in the file uses yet."""
        if self._names is None:
            assert self.analysis.tree is not None
            self._names = set(_identifiers(self.analysis.tree))
        base, count = _REVOKE_WORD.subn("lost", revoke, count=1)
        if not count:
            base = "_on_lost" if revoke.startswith("_") else "on_lost"
        name, n = base, 1
        while name in self._names:
            n += 1
            name = f"{base}_{n}"
        self._names.add(name)
        return name

    def _subclasses(self, cls: ast.ClassDef) -> list[ast.ClassDef]:
        """Classes of the file deriving from ``cls`` by name, directly or not (conservative:
        any class of that name counts)."""
        assert self.analysis.tree is not None
        classes = [n for n in ast.walk(self.analysis.tree) if isinstance(n, ast.ClassDef)]
        names = {cls.name}
        found: list[ast.ClassDef] = []
        changed = True
        while changed:
            changed = False
            for other in classes:
                if other is cls or other in found:
                    continue
                if any(_base_name(base) in names for base in other.bases):
                    found.append(other)
                    names.add(other.name)
                    changed = True
        return found


def _stub(func: FunctionNode, name: str, kept: tuple[int, ...]) -> Edit:
    """The lost handler: ``func``'s signature under ``name``, doing only the statements
    ``kept`` of its body (logging), else nothing; with nothing kept, its parameters are named
    for loss (``revoked`` -> ``lost``)."""
    params = [a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)]
    renames = tuple(
        (old, new, "")
        for old in params
        if (new := _REVOKE_WORD.sub("lost", old, count=1)) != old and new not in params
    )
    return Edit(
        "add_stub_after",
        span(func),
        value=name,
        extra=LOST_COMMENT,
        names=() if kept else renames,
        keep=kept,
    )


#: Receivers of logging calls: ``log``, ``logger``, ``logging``, ``LOG``, ``self._logger`` ...
_LOGGER = re.compile(r"^_*(?:\w+_)?(?:log|logger|logging)$", re.IGNORECASE)
_LOG_METHODS = frozenset(
    {"debug", "info", "warning", "warn", "error", "exception", "critical", "log"}
)


def _logs(stmt: ast.stmt) -> bool:
    """A statement that only logs (``log.info(...)``, ``print(...)``) with side-effect-free
    arguments: the lost path keeps doing it, so the lost handler keeps it too."""
    if not isinstance(stmt, ast.Expr) or not isinstance(stmt.value, ast.Call):
        return False
    call = stmt.value
    func = call.func
    if isinstance(func, ast.Name):
        logs = func.id == "print"
    elif isinstance(func, ast.Attribute) and func.attr in _LOG_METHODS:
        receiver = func.value
        name = receiver.attr if isinstance(receiver, ast.Attribute) else getattr(receiver, "id", "")
        logs = bool(_LOGGER.match(name))
    else:
        logs = False
    return logs and all(_pure(arg) for arg in [*call.args, *(kw.value for kw in call.keywords)])


def _reached(effect: Effect) -> str:
    hops = " -> ".join(hop.text for hop in effect.via)
    line = getattr(effect.node, "lineno", 0)
    where = f"{effect.path}:{line}" if effect.path else f"line {line}"
    return (
        f"the commit is reached through {hops} ({where}), which other code may call too; "
        "fix it by hand"
    )


def _is_statement(call: ast.Call, func: FunctionNode | ast.Lambda) -> bool:
    """``call`` (or ``await call``) is a statement of ``func``'s body: its value is unused."""
    for node in body_nodes(func):
        if isinstance(node, ast.Expr):
            value = node.value.value if isinstance(node.value, ast.Await) else node.value
            if value is call:
                return True
    return False


def _statements(body: list[ast.stmt], commits: set[int], declared: set[str]) -> Iterator[ast.stmt]:
    """The statements of ``body`` that do something besides the commits ``commits`` and
    side-effect-free assignments to local names (not ``declared`` global or nonlocal)."""
    for stmt in body:
        if isinstance(stmt, ast.Pass):
            continue
        if isinstance(stmt, ast.Expr):
            value = stmt.value.value if isinstance(stmt.value, ast.Await) else stmt.value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                continue  # a docstring, or a string used as a comment
            if (
                isinstance(value, ast.Call)
                and id(value) in commits
                and all(_pure(arg) for arg in [*value.args, *(kw.value for kw in value.keywords)])
            ):
                continue
        elif isinstance(stmt, ast.Assign | ast.AnnAssign) and _local(stmt, declared):
            continue  # offsets = [...]: a local value for the commit
        elif isinstance(stmt, ast.If) and _pure(stmt.test):
            inner = [
                *_statements(stmt.body, commits, declared),
                *_statements(stmt.orelse, commits, declared),
            ]
            if not inner:
                continue
            yield inner[0]
            continue
        yield stmt


def _local(stmt: ast.Assign | ast.AnnAssign, declared: set[str]) -> bool:
    """``name = <side-effect-free value>``: it changes nothing outside the function (the
    name is not ``declared`` global or nonlocal)."""
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    if stmt.value is None or not _pure(stmt.value):
        return False
    return all(isinstance(t, ast.Name) and t.id not in declared for t in targets)


def _pure(expr: ast.expr) -> bool:
    """Evaluating ``expr`` changes nothing: no await, yield or assignment expression, and calls
    only of value builders (``dict``, ``sorted``, a class such as ``OffsetAndMetadata``) or of
    reading methods (``.items()``, ``consumer.position(tp)``)."""
    for node in ast.walk(expr):
        if isinstance(node, _NOT_PURE):
            return False
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else None
            attr = func.attr if isinstance(func, ast.Attribute) else None
            if name is not None and (name in _PURE_FUNCTIONS or name[:1].isupper()):
                continue
            if attr is not None and (attr in _PURE_METHODS or attr[:1].isupper()):
                continue
            return False
    return True


def _names(expr: ast.expr, name: str, method: bool = False) -> bool:
    """``expr`` is ``name`` or ``<something>.name`` (a method: ``self.name``)."""
    if isinstance(expr, ast.Name):
        return expr.id == name and not method
    if isinstance(expr, ast.Attribute):
        return expr.attr == name and (not method or isinstance(expr.value, ast.Name))
    return False


def _base_name(base: ast.expr) -> str | None:
    if isinstance(base, ast.Name):
        return base.id
    if isinstance(base, ast.Attribute):
        return base.attr
    return None


def _own_methods(cls: ast.ClassDef) -> dict[str, FunctionNode]:
    return {
        stmt.name: stmt
        for stmt in cls.body
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef)
    }


def _identifiers(tree: ast.AST) -> Iterator[str]:
    """Every name the file binds or mentions (a new definition must not clash with one)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            yield node.id
        elif isinstance(node, ast.Attribute):
            yield node.attr
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield node.name
        elif isinstance(node, ast.arg):
            yield node.arg
        elif isinstance(node, ast.alias):
            yield (node.asname or node.name).partition(".")[0]
        elif isinstance(node, ast.keyword) and node.arg:
            yield node.arg
        elif isinstance(node, ast.Global | ast.Nonlocal):
            yield from node.names
