"""KRB106 and KRB111: consumer coroutines and coroutine callbacks that nothing awaits.

When an AIOConsumer coroutine is both dropped and wrong to call, one code fires: an
omitted method (``poll``, ``close``, ``subscribe``, ``assign``...) is KRB101/KRB110 whether
awaited or not (the fix is to remove it, not to await it); any other dropped coroutine is
KRB106, and KRB103/KRB104 stay quiet about a ``commit()`` that never runs.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from rebalance_guard._client_facts import SUBSCRIBE_CALLBACKS

from rebalance_lint.analysis.clients import (
    FORBIDDEN,
    wraps_only_keyword_callbacks,
)
from rebalance_lint.analysis.model import Analysis, Callback, Effect, Registration
from rebalance_lint.rules.rule import Hit, KindCase, Rule, dropped_coroutine

COROUTINE_NOT_AWAITED = Rule(
    code="KRB106",
    name="consumer-coroutine-not-awaited",
    kinds={
        "dropped": KindCase(
            "bug",
            "a consumer coroutine called and not awaited (aiokafka, AIOConsumer)",
            "the call never runs: nothing is committed, moved or paused.",
        ),
    },
    template=(
        "{method}() returns a coroutine that {callback} never awaits: the {effect} "
        "silently never happens; {fix}"
    ),
    rationale=(
        "aiokafka's `commit`, `seek_to_*`, `position`, `committed` and offset queries are "
        "coroutines, and every method of confluent-kafka's asyncio `AIOConsumer` is one. "
        "Calling one without `await` creates a coroutine object and drops it: nothing is "
        "committed, moved or paused, and the only trace is a RuntimeWarning. A dropped "
        "AIOConsumer `commit()` is reported here, not as an asynchronous commit (KRB103), "
        "since it never runs at all; a dropped `poll()`, `close()`, `subscribe()` or "
        "`assign()` stays KRB101/KRB110, whose fix is to remove the call."
    ),
    fix=(
        "`await` every aiokafka or AIOConsumer coroutine; a callback that needs one must be "
        "`async def`."
    ),
    invalid=(
        """\
from aiokafka import ConsumerRebalanceListener

class Listener(ConsumerRebalanceListener):
    def __init__(self, consumer):
        self.consumer = consumer

    async def on_partitions_revoked(self, revoked):
        self.consumer.commit()

    async def on_partitions_assigned(self, assigned):
        pass
""",
        """\
from confluent_kafka.aio import AIOConsumer

async def on_revoke(consumer, partitions):
    consumer.commit(asynchronous=False)

async def main():
    consumer = AIOConsumer({"group.id": "g"})
    await consumer.subscribe(["orders"], on_revoke=on_revoke, on_lost=on_revoke)
""",
    ),
    valid=(
        """\
from aiokafka import ConsumerRebalanceListener

class Listener(ConsumerRebalanceListener):
    def __init__(self, consumer):
        self.consumer = consumer

    async def on_partitions_revoked(self, revoked):
        await self.consumer.commit()

    async def on_partitions_assigned(self, assigned):
        pass
""",
        """\
from confluent_kafka.aio import AIOConsumer

async def on_assign(consumer, partitions):
    await consumer.pause(partitions)

async def main():
    consumer = AIOConsumer({"group.id": "g"})
    await consumer.subscribe(["orders"], on_assign=on_assign)
""",
    ),
)

POSITIONAL_COROUTINE_CALLBACK = Rule(
    code="KRB111",
    name="positional-coroutine-callback",
    kinds={
        "positional": KindCase(
            "bug",
            "an `async def` callback passed positionally to `AIOConsumer.subscribe()`",
            "confluent-kafka wraps only keyword callbacks: this one is called, never "
            "awaited, and never runs.",
        ),
    },
    template=(
        "async def {callback} is passed positionally to AIOConsumer.subscribe() as {role}: "
        "confluent-kafka wraps only keyword callbacks, so this one is called, never awaited, "
        "and silently never runs; pass it by keyword ({role}={name}) or register a "
        "RebalanceListener with rebalance_guard.confluent_kafka_aio"
    ),
    rationale=(
        "confluent-kafka's `AIOConsumer.subscribe()` wraps the `on_assign`, `on_revoke` and "
        "`on_lost` keyword arguments so that their coroutines are awaited on the event "
        "loop. Callbacks passed positionally go to the underlying consumer unwrapped: it "
        "calls the `async def` function, gets a coroutine object and drops it. No offsets "
        "are committed on revoke and no start offsets set on assign, and the only trace is "
        "a RuntimeWarning."
    ),
    fix=(
        "Pass the callbacks by keyword (`on_assign=`, `on_revoke=`, `on_lost=`), or "
        "register a `RebalanceListener` with `rebalance_guard.confluent_kafka_aio`."
    ),
    invalid=(
        """\
from confluent_kafka.aio import AIOConsumer

async def on_assign(consumer, partitions):
    await consumer.seek(partitions[0])

async def main():
    consumer = AIOConsumer({"group.id": "g"})
    await consumer.subscribe(["orders"], on_assign)
""",
    ),
    valid=(
        """\
from confluent_kafka.aio import AIOConsumer

async def on_assign(consumer, partitions):
    await consumer.seek(partitions[0])

async def main():
    consumer = AIOConsumer({"group.id": "g"})
    await consumer.subscribe(["orders"], on_assign=on_assign)
""",
    ),
)

_POSITIONAL_ROLES = tuple(SUBSCRIBE_CALLBACKS)  # also positions 1-3


@COROUTINE_NOT_AWAITED.on_effects
def coroutine_dropped(effect: Effect, callback: Callback, analysis: Analysis) -> Iterator[Hit]:
    if not dropped_coroutine(effect, callback):
        return
    method = effect.name
    if callback.client == "confluent_aio" and method in FORBIDDEN:
        return  # KRB101/KRB110: the call must go, awaited or not
    effect_text = "commit" if "commit" in method else ("seek" if "seek" in method else "call")
    if effect.via:
        fix = f"await {method}(...) where it is called"
    elif isinstance(callback.func, ast.AsyncFunctionDef):
        fix = f"write await {method}(...)"
    else:
        fix = f"make the callback async def and await {method}(...)"
    yield COROUTINE_NOT_AWAITED.hit(
        effect.anchor,
        method=method,
        callback=effect.label(callback.label),
        effect=effect_text,
        fix=fix,
    )


@POSITIONAL_COROUTINE_CALLBACK.per_file
def positional_coroutine(analysis: Analysis) -> Iterator[Hit]:
    for reg in analysis.registrations:
        if reg.guard or not wraps_only_keyword_callbacks(reg.client):
            continue
        for role, arg in zip(_POSITIONAL_ROLES, reg.call.args[1:], strict=False):
            callback = _registered_callback(analysis, reg, arg)
            if callback is not None and isinstance(callback.func, ast.AsyncFunctionDef):
                yield POSITIONAL_COROUTINE_CALLBACK.hit(
                    arg,
                    callback=callback.label,
                    role=role,
                    name=ast.unparse(arg),
                )


def _registered_callback(analysis: Analysis, reg: Registration, arg: ast.expr) -> Callback | None:
    """The callback ``reg`` registers through the positional argument ``arg``."""
    name = arg.id if isinstance(arg, ast.Name) else getattr(arg, "attr", None)
    for callback in analysis.callbacks:
        if reg not in callback.sites or callback.helper:
            continue
        if any(expr is arg for expr in callback.partials.values()):
            return callback
        if name is not None and getattr(callback.func, "name", None) == name:
            return callback
    return None
