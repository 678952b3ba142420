"""KRB103 and KRB104: commits that land too late (async on revoke) or cannot land (on lost)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from rebalance_lint.analysis.clients import COMMITS, is_confluent
from rebalance_lint.analysis.model import Analysis, Callback, Effect
from rebalance_lint.rules.rule import Hit, Rule, dropped_coroutine

ASYNC_COMMIT_ON_REVOKE = Rule(
    code="KRB103",
    name="async-commit-on-revoke",
    template=(
        "asynchronous commit ({what}) in {callback}: it can land after the partitions "
        "moved to another member (duplicates); commit synchronously ({fix})"
    ),
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
        "confluent-kafka."
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
    template=(
        "{method} in {callback}, which runs when partitions are lost{via}: they are "
        "already owned by another member and the commit fails; {fix}"
    ),
    rationale=(
        "Lost partitions (session timeout, fencing) already belong to someone else; a "
        "commit for them fails. The trap is indirect: kafka-python 3 and rebalance_guard "
        "listeners default `on_partitions_lost` to `on_partitions_revoked`, and "
        "confluent-kafka delivers lost partitions to `on_revoke` when no `on_lost` is given, "
        "so a committing revoke also runs on loss."
    ),
    fix=(
        "Do not commit for lost partitions: override `on_partitions_lost` (or pass "
        "`on_lost=`) with a callback that discards state instead of committing."
    ),
    invalid=(
        """\
from rebalance_guard.kafka_python import RebalanceListener

class Listener(RebalanceListener):
    def on_partitions_revoked(self, partitions, consumer):
        consumer.commit()

    def on_partitions_assigned(self, partitions, consumer):
        pass
""",
    ),
    valid=(
        """\
from rebalance_guard.kafka_python import RebalanceListener

class Listener(RebalanceListener):
    def on_partitions_revoked(self, partitions, consumer):
        consumer.commit()

    def on_partitions_assigned(self, partitions, consumer):
        pass

    def on_partitions_lost(self, partitions, consumer):
        pass  # owned elsewhere already: nothing to commit
""",
    ),
)


def _asynchronous(effect: Effect, callback: Callback) -> str | None:
    """How this commit is asynchronous, or None if it is synchronous (or unknowable)."""
    if effect.name == "commit_async":
        return "commit_async()"
    if effect.name != "commit" or not isinstance(effect.node, ast.Call):
        return None
    flag = next((kw.value for kw in effect.node.keywords if kw.arg == "asynchronous"), None)
    if isinstance(flag, ast.Constant):
        return "commit(asynchronous=True)" if flag.value is True else None
    if flag is not None:
        return None
    raw_confluent = is_confluent(callback.client) and (
        callback.api == "confluent" or effect.origin == "injected"
    )
    return "commit() is asynchronous by default in confluent-kafka" if raw_confluent else None


@ASYNC_COMMIT_ON_REVOKE.on_effects
def async_commit_on_revoke(effect: Effect, callback: Callback, analysis: Analysis) -> Iterator[Hit]:
    if "revoked" not in callback.kinds or effect.kind != "call":
        return
    if dropped_coroutine(effect, callback):
        return  # a commit coroutine never awaited never commits: KRB106's finding
    what = _asynchronous(effect, callback)
    if what is not None:
        fix = "commit(asynchronous=False)" if is_confluent(callback.client) else "commit()"
        yield ASYNC_COMMIT_ON_REVOKE.hit(
            effect.anchor, what=what, callback=effect.label(callback.label), fix=fix
        )


@COMMIT_ON_LOST.on_effects
def commit_on_lost(effect: Effect, callback: Callback, analysis: Analysis) -> Iterator[Hit]:
    if "lost" not in callback.kinds or effect.kind != "call" or effect.name not in COMMITS:
        return
    if dropped_coroutine(effect, callback):
        return
    via = callback.lost_via
    if "on_partitions_lost override" in via:
        fix = "override on_partitions_lost without the commit"
    elif "no on_lost=" in via:
        fix = "pass an on_lost= callback that does not commit"
    elif via:
        fix = "keep the commit off the lost path"
    else:
        fix = "drop the commit (commit on revoke, not on loss)"
    yield COMMIT_ON_LOST.hit(
        effect.anchor,
        method=f"{effect.name}()",
        callback=effect.label(callback.label),
        via=via,
        fix=fix,
    )
