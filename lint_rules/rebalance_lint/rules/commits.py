"""KRB103 and KRB104: commits that land too late (async on revoke) or cannot land (on lost)."""

from __future__ import annotations

from collections.abc import Iterator

from rebalance_lint.analysis.clients import COMMITS, is_confluent
from rebalance_lint.analysis.fixes import asynchronous_commit, harmless_on_loss
from rebalance_lint.analysis.migration import is_fixable
from rebalance_lint.analysis.model import Analysis, Callback, Effect
from rebalance_lint.rules.rule import Hit, KindCase, Rule, dropped_coroutine

ASYNC_COMMIT_ON_REVOKE = Rule(
    code="KRB103",
    name="async-commit-on-revoke",
    kinds={
        "revoke": KindCase(
            "bug",
            "an asynchronous commit in a callback that runs on revocation, on every client",
            "nothing waits for it: the next owner can start from the previous offset before "
            "it lands, and records are processed twice.",
        ),
    },
    template=(
        "asynchronous commit ({what}) in {callback}: it can land after the partitions "
        "moved to another member (duplicates); commit synchronously ({fix})"
    ),
    has_codemod=True,
    rationale=(
        "Revocation is the last moment this member owns the partitions. An asynchronous "
        "commit returns at once and may reach the broker after the new owner has started "
        "from the previous offset, so records are processed twice. confluent-kafka's bare "
        "`commit()` is asynchronous by default, and so is `await commit()` on its asyncio "
        "`AIOConsumer`: the await only hands the request to librdkafka."
    ),
    fix=(
        "Commit synchronously in the revocation callback: `commit()` on kafka-python and "
        "on the rebalance_guard views, `commit(asynchronous=False)` on raw "
        "confluent-kafka, there with explicit `offsets=` (librdkafka's synchronous commit "
        "of the current positions raises `KafkaException(_NO_OFFSET)` when nothing was "
        "consumed since the last commit; the rebalance_guard view's `commit()` returns `[]` "
        "then). `rebalance-guard check --fix` (and `migrate`, after migrating) does it where "
        "the rewrite is that same commit made synchronously: `commit_async(offsets)` -> "
        "`commit(offsets)` on the kafka-python view, `asynchronous=True` -> `False` (or "
        "`asynchronous=False` added) on confluent, when the commit is a statement of the "
        "callback's own body (its result unused, no `callback=`), is on the rebalance view "
        "(or on raw confluent with explicit offsets), and the callback does not also run "
        "when partitions are lost, unless the KRB104 fix gives it a lost handler at the same "
        "time (a synchronous commit of lost partitions raises) or the commit is a bare one "
        "on the rebalance view, which commits nothing for lost partitions (KRB104 exempts "
        "it). Anywhere else the finding "
        "is left as it is and `--fix` prints why. A failing commit then raises from the "
        "callback instead of being logged: that is what committing synchronously means."
    ),
    invalid=(
        """\
from confluent_kafka import Consumer

def on_revoke(consumer, partitions):
    consumer.commit()

c = Consumer({"group.id": "g"})
c.subscribe(["orders"], on_revoke=on_revoke, on_lost=lambda consumer, partitions: None)
""",
    ),
    valid=(
        """\
from confluent_kafka import Consumer

def on_revoke(consumer, partitions):
    consumer.commit(asynchronous=False)

c = Consumer({"group.id": "g"})
c.subscribe(["orders"], on_revoke=on_revoke, on_lost=lambda consumer, partitions: None)
""",
    ),
)


COMMIT_ON_LOST = Rule(
    code="KRB104",
    name="commit-on-lost",
    kinds={
        "lost": KindCase(
            "bug",
            "the commit runs only when partitions are lost (`on_partitions_lost`, a function "
            "passed only as `on_lost=`, or a helper reached only from one)",
            "it runs only when partitions are lost, and then always fails: they belong to "
            "another member.",
        ),
        "fallthrough": KindCase(
            "risk",
            "the commit runs on revocation and also on loss (no lost override, the same "
            "function passed as `on_revoke=` and `on_lost=`, confluent without `on_lost=`)",
            "it commits correctly on every revocation and fails only when partitions are "
            "lost (session timeout, fencing): the condition the message names.",
        ),
    },
    template=(
        "{method} in {callback}, which runs when partitions are lost{via}: they are "
        "already owned by another member and this commit fails (only a bare commit on the "
        "rebalance view is exempt: it commits nothing); {fix}"
    ),
    has_codemod=True,
    rationale=(
        "Lost partitions (session timeout, fencing) already belong to someone else; a "
        "commit for them fails. The trap is indirect: kafka-python 3 and rebalance_guard "
        "listeners default `on_partitions_lost` to `on_partitions_revoked`, and "
        "confluent-kafka delivers lost partitions to `on_revoke` when no `on_lost` is given, "
        "so a committing revoke also runs on loss. One commit is exempt: a bare commit on the "
        "rebalance_guard view (`commit()`, `commit_async()`, confluent's "
        "`commit(asynchronous=...)`, with no offsets and no message). During "
        "`on_partitions_lost` the lost partitions are already gone from the view (KIP-1306; "
        "not in `assignment()`, no `position()`), so such a commit has nothing to commit for "
        "them and returns, on every client; a revocation that commits that way can run on "
        "loss as it is. An explicit commit of offsets on the view, and any commit on the "
        "client's own consumer (a legacy listener, raw confluent callbacks, a consumer "
        "injected into a rebalance_guard listener), still fails for lost partitions."
    ),
    fix=(
        "Do not commit for lost partitions: override `on_partitions_lost` (or pass "
        "`on_lost=`) with a callback that discards state instead of committing, or, on the "
        "rebalance_guard view, commit bare when the consumed positions are what you mean "
        "to commit (`commit()`: the revoked partitions' positions on revocation, nothing "
        "on loss). "
        "`rebalance-guard check --fix` (and `migrate`, after migrating) adds a lost handler "
        "that does what the lost path did minus the commit when the revocation only commits "
        "and logs (commit statements, local values for them, `if` over side-effect-free "
        "tests, logging calls, `pass`, docstrings): it keeps the logging calls, or is `pass`, "
        "under a comment. It is `on_partitions_lost` with the revocation's own signature right "
        "after `on_partitions_revoked` (not when another class of the file derives from that "
        "one and overrides `on_partitions_revoked` alone); for confluent, a function named "
        "after the revocation (`on_revoke` -> `on_lost`, a name the file does not use) "
        "defined right after it, `async def` for AIOConsumer, and passed as `on_lost=` to "
        "each `subscribe()` of the file that names the revocation directly. A revocation "
        "that also cleans up (clears per-partition state, closes files, unassigns) needs "
        "that clean-up on loss too, without the commit: `--fix` leaves it to you and says "
        "why, as it does for lambdas, `functools.partial` callbacks, callbacks passed "
        "through variables or `**kwargs`, and registrations in another file."
    ),
    invalid=(
        """\
from kafka import OffsetAndMetadata
from rebalance_guard.kafka_python import RebalanceListener

class Listener(RebalanceListener):
    def on_partitions_revoked(self, partitions, consumer):
        offsets = {tp: OffsetAndMetadata(consumer.position(tp), "", -1) for tp in partitions}
        consumer.commit(offsets)

    def on_partitions_assigned(self, partitions, consumer):
        pass
""",
    ),
    valid=(
        """\
from kafka import OffsetAndMetadata
from rebalance_guard.kafka_python import RebalanceListener

class Listener(RebalanceListener):
    def on_partitions_revoked(self, partitions, consumer):
        offsets = {tp: OffsetAndMetadata(consumer.position(tp), "", -1) for tp in partitions}
        consumer.commit(offsets)

    def on_partitions_assigned(self, partitions, consumer):
        pass

    def on_partitions_lost(self, partitions, consumer):
        pass  # owned elsewhere already: nothing to commit
""",
        """\
from rebalance_guard.kafka_python import RebalanceListener

class Listener(RebalanceListener):
    def on_partitions_revoked(self, partitions, consumer):
        consumer.commit()  # on loss the view has no lost partitions: it commits nothing

    def on_partitions_assigned(self, partitions, consumer):
        pass
""",
    ),
)


@ASYNC_COMMIT_ON_REVOKE.on_effects
def async_commit_on_revoke(effect: Effect, callback: Callback, analysis: Analysis) -> Iterator[Hit]:
    if "revoked" not in callback.kinds or effect.kind != "call":
        return
    if dropped_coroutine(effect, callback):
        return  # a commit coroutine never awaited never commits: KRB106's finding
    what = asynchronous_commit(effect, callback)
    if what is not None:
        fix = "commit(asynchronous=False)" if is_confluent(callback.client) else "commit()"
        yield ASYNC_COMMIT_ON_REVOKE.hit(
            effect.anchor,
            fixable=is_fixable(effect.anchor, analysis, ASYNC_COMMIT_ON_REVOKE.code),
            what=what,
            callback=effect.label(callback.label),
            fix=fix,
        )


@COMMIT_ON_LOST.on_effects
def commit_on_lost(effect: Effect, callback: Callback, analysis: Analysis) -> Iterator[Hit]:
    if "lost" not in callback.kinds or effect.kind != "call" or effect.name not in COMMITS:
        return
    if dropped_coroutine(effect, callback) or harmless_on_loss(effect, callback, analysis):
        return
    via = callback.lost_via
    if callback.lost_fallthrough == "listener":
        fix = "override on_partitions_lost without the commit"
    elif callback.lost_fallthrough == "confluent":
        fix = "pass an on_lost= callback that does not commit"
    elif via:
        fix = "keep the commit off the lost path"
    else:
        fix = "drop the commit (commit on revoke, not on loss)"
    yield COMMIT_ON_LOST.hit(
        effect.anchor,
        case="fallthrough" if "revoked" in callback.kinds else "lost",
        fixable=is_fixable(effect.anchor, analysis, COMMIT_ON_LOST.code),
        method=f"{effect.name}()",
        callback=effect.label(callback.label),
        via=via,
        fix=fix,
    )
