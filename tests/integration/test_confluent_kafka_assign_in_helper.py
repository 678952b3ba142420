"""``on_assign`` ending with a helper that sets where each partition starts and assigns
(``shapes/assign_in_helper.py``), migrated, starts where it did (on raw confluent-kafka, under
the protocol its call is made for).

The shapes (tests/codemods/fixtures/assign_in_helper.py and ``..._aio.py``, each with its
migrated twin, the helper's assign become a seek per partition on the view, staged by the
adapter into the assignment it makes after the callback):

* a method helper moving every partition to ``OFFSET_END`` (a reader's ``_on_assign`` logging
  and calling ``self._reset_offset(consumer, partitions)``): each partition starts at its end;
* ``on_assign=lambda c, p: reset(c, p, replay)`` (on ``AIOConsumer``: a nested ``async def``
  awaiting ``rewind``): with ``replay`` every partition is moved to ``OFFSET_BEGINNING``;
  without, the partitions are assigned as librdkafka gave them (``OFFSET_INVALID``): at the
  committed offset, else where ``auto.offset.reset`` says (both policies are run).

Each in an eager form (``assign``) and an incremental one (``incremental_assign``), on the
sync ``Consumer`` and on ``AIOConsumer``. The topic layout, the committed offset and the way
starts are observed are test_confluent_kafka_assign_derived.py's (imported from there):
partition 0 holds 6 messages and the group committed 4 for it, partition 1 holds 3 and has
nothing committed; a partition starting at its end gets one more message, whose offset is
checked too.

The original's call works under its own protocol only (raw confluent-kafka refuses the other
with ``_STATE``: test_confluent_kafka_assign_derived.py pins that), so the oracle runs each
original under its own protocols; the migrated file must start at the same offsets under
eager, cooperative-sticky and KIP-848 alike.
"""

from __future__ import annotations

import asyncio
import importlib.util
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import confluent_kafka
import pytest
from confluent_kafka.aio import AIOConsumer

from tests.integration.broker import Broker
from tests.integration.confluent_kafka_support import PROTOCOLS
from tests.integration.test_confluent_kafka_assign_derived import (
    COMMITTED,
    Starts,
    _conf,
    _expected,
    _starts,
    _topic,
)

FIXTURES = Path(__file__).parents[1] / "codemods" / "fixtures"


def _load(name: str, migrated: bool) -> ModuleType:
    path = FIXTURES / ("migrated" if migrated else "") / name
    spec = importlib.util.spec_from_file_location(
        f"assign_in_helper_{'migrated' if migrated else 'original'}_{path.stem}", path
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SYNC = {migrated: _load("assign_in_helper.py", migrated) for migrated in (False, True)}
AIO = {migrated: _load("assign_in_helper_aio.py", migrated) for migrated in (False, True)}

RESETS = ("earliest", "latest")
EAGER = ("eager",)
INCREMENTAL = ("cooperative", "consumer")
#: where each shape starts each partition, per auto.offset.reset
AT_END = {reset: _expected({0: "end", 1: "end"}) for reset in RESETS}
FROM_START = {reset: _expected({0: 0, 1: 0}) for reset in RESETS}
AS_GIVEN = {  # the committed offset; nothing committed: auto.offset.reset
    "earliest": _expected({0: COMMITTED[0], 1: 0}),
    "latest": _expected({0: COMMITTED[0], 1: "end"}),
}

Opener = Callable[[ModuleType, dict[str, Any], str], confluent_kafka.Consumer]
#: shape -> (opener, the protocols the original's call is made for, where it starts)
SHAPES: dict[str, tuple[Opener, tuple[str, ...], dict[str, dict[str, Any]]]] = {
    "method helper to the end, assign": (
        lambda m, conf, topic: m.TailReader(conf, topic).open(), EAGER, AT_END
    ),
    "method helper to the end, incremental_assign": (
        lambda m, conf, topic: m.IncrementalTailReader(conf, topic).open(), INCREMENTAL, AT_END
    ),
    "lambda to a function, replaying, assign": (
        lambda m, conf, topic: m.open_replay(conf, topic, True), EAGER, FROM_START
    ),
    "lambda to a function, not replaying, assign": (
        lambda m, conf, topic: m.open_replay(conf, topic, False), EAGER, AS_GIVEN
    ),
    "lambda to a function, replaying, incremental_assign": (
        lambda m, conf, topic: m.open_incremental_replay(conf, topic, True), INCREMENTAL,
        FROM_START,
    ),
    "lambda to a function, not replaying, incremental_assign": (
        lambda m, conf, topic: m.open_incremental_replay(conf, topic, False), INCREMENTAL,
        AS_GIVEN,
    ),
}  # fmt: skip


def _sync_starts(broker: Broker, shape: str, protocol: str, reset: str, migrated: bool) -> Any:
    opener, _, _ = SHAPES[shape]
    group = broker.group()
    topic, _ = _topic(broker, group)
    consumer = opener(SYNC[migrated], _conf(broker, group, protocol, reset), topic)
    assert (type(consumer) is confluent_kafka.Consumer) or migrated
    return _starts(consumer, broker, topic)


def _original_cases(shapes: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(s, p, r) for s, (_, ps, _) in shapes.items() for p in ps for r in RESETS]


@pytest.mark.parametrize(("shape", "protocol", "reset"), _original_cases(SHAPES))
def test_original_on_raw_confluent_is_the_oracle(
    broker: Broker, shape: str, protocol: str, reset: str
) -> None:
    expected = SHAPES[shape][2][reset]
    assert _sync_starts(broker, shape, protocol, reset, migrated=False) == expected


@pytest.mark.parametrize("reset", RESETS)
@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("shape", list(SHAPES))
def test_migrated_file_starts_where_the_original_does(
    broker: Broker, shape: str, protocol: str, reset: str
) -> None:
    """The migrated file's own entry points: a plain consumer and rebalance_guard's
    ``subscribe()`` (the protocol guessed, learnt under an incremental one)."""
    expected = SHAPES[shape][2][reset]
    assert _sync_starts(broker, shape, protocol, reset, migrated=True) == expected


# -- the asyncio AIOConsumer -----------------------------------------------------------------

AioOpener = Callable[[ModuleType, dict[str, Any], str], Awaitable[AIOConsumer]]
AIO_SHAPES: dict[str, tuple[AioOpener, tuple[str, ...], dict[str, dict[str, Any]]]] = {
    "awaited method helper to the end, assign": (
        lambda m, conf, topic: m.TailReader(conf, topic, False).open(), EAGER, AT_END
    ),
    "awaited method helper to the end, incremental_assign": (
        lambda m, conf, topic: m.TailReader(conf, topic, True).open(), INCREMENTAL, AT_END
    ),
    "awaited function, replaying, assign": (
        lambda m, conf, topic: m.open_replay(conf, topic, True), EAGER, FROM_START
    ),
    "awaited function, not replaying, assign": (
        lambda m, conf, topic: m.open_replay(conf, topic, False), EAGER, AS_GIVEN
    ),
    "awaited function, replaying, incremental_assign": (
        lambda m, conf, topic: m.open_incremental_replay(conf, topic, True), INCREMENTAL,
        FROM_START,
    ),
    "awaited function, not replaying, incremental_assign": (
        lambda m, conf, topic: m.open_incremental_replay(conf, topic, False), INCREMENTAL,
        AS_GIVEN,
    ),
}  # fmt: skip


def _aio_starts(broker: Broker, shape: str, protocol: str, reset: str, migrated: bool) -> Any:
    opener, _, _ = AIO_SHAPES[shape]
    group = broker.group()
    topic, _ = _topic(broker, group)
    conf = _conf(broker, group, protocol, reset)

    async def scenario() -> dict[str, Any]:
        consumer = await opener(AIO[migrated], conf, topic)
        assert (type(consumer) is AIOConsumer) or migrated
        starts = Starts(broker, topic)
        try:
            while not starts.done():
                starts.see(await consumer.poll(0.2))
        finally:
            await consumer.close()
        return starts.seen()

    return asyncio.run(scenario())


@pytest.mark.parametrize(("shape", "protocol", "reset"), _original_cases(AIO_SHAPES))
def test_aio_original_on_raw_confluent_is_the_oracle(
    broker: Broker, shape: str, protocol: str, reset: str
) -> None:
    expected = AIO_SHAPES[shape][2][reset]
    assert _aio_starts(broker, shape, protocol, reset, migrated=False) == expected


@pytest.mark.parametrize("reset", RESETS)
@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("shape", list(AIO_SHAPES))
def test_aio_migrated_file_starts_where_the_original_does(
    broker: Broker, shape: str, protocol: str, reset: str
) -> None:
    expected = AIO_SHAPES[shape][2][reset]
    assert _aio_starts(broker, shape, protocol, reset, migrated=True) == expected
