"""A confluent callback chosen at run time among defs of the function
(``shapes/chosen_callbacks.py``), migrated, starts where the original does.

The shapes (tests/codemods/fixtures/chosen_callbacks.py and its migrated twin, where the
listener class takes the chosen callback in ``__init__`` at the ``subscribe()`` and calls it
with the view; each def's final assign became a seek per partition):

* ``open_at``: ``chosen = as_committed`` (the partitions assigned as given), then
  ``to_beginning`` (every partition at ``OFFSET_BEGINNING``) or ``to_end`` (``OFFSET_END``)
  under an ``if``/``elif`` on the start asked for; ``on_assign=chosen``;
* ``tail``: ``on_assign=from_start if rewind else as_given, on_revoke=flush``.

As given means the committed offset, else where ``auto.offset.reset`` says (the real code
chose None there, which confluent's Consumer.subscribe() rejects with TypeError: the codemod
refuses it, tests/codemods/test_chosen_callbacks.py). The topic layout, committed offset and
the way starts are observed are test_confluent_kafka_assign_derived.py's: partition 0 holds 6
messages and the group committed 4 for it, partition 1 holds 3 and has nothing committed; a
partition starting at its end gets one more message, whose offset is checked too. The
original's ``assign()`` works under eager only (raw confluent refuses it under an incremental
protocol), so the oracle runs under eager; the migrated file must start at the same offsets
under eager, cooperative-sticky and KIP-848 alike.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import confluent_kafka
import pytest

from tests.integration.broker import Broker
from tests.integration.confluent_kafka_support import PROTOCOLS
from tests.integration.test_confluent_kafka_assign_derived import (
    COMMITTED,
    _conf,
    _expected,
    _starts,
    _topic,
)

FIXTURES = Path(__file__).parents[1] / "codemods" / "fixtures"


def _load(migrated: bool) -> ModuleType:
    path = FIXTURES / ("migrated" if migrated else "") / "chosen_callbacks.py"
    spec = importlib.util.spec_from_file_location(
        f"chosen_callbacks_{'migrated' if migrated else 'original'}", path
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MODULES = {migrated: _load(migrated) for migrated in (False, True)}

RESETS = ("earliest", "latest")
EAGER = ("eager",)
#: where each shape starts each partition, per auto.offset.reset
AT_END = {reset: _expected({0: "end", 1: "end"}) for reset in RESETS}
FROM_START = {reset: _expected({0: 0, 1: 0}) for reset in RESETS}
AS_GIVEN = {  # the committed offset; nothing committed: auto.offset.reset
    "earliest": _expected({0: COMMITTED[0], 1: 0}),
    "latest": _expected({0: COMMITTED[0], 1: "end"}),
}

Opener = Callable[[ModuleType, dict[str, Any], str], confluent_kafka.Consumer]
#: shape -> (opener, the protocols the original works under, where it starts)
SHAPES: dict[str, tuple[Opener, tuple[str, ...], dict[str, dict[str, Any]]]] = {
    "variable: to_beginning": (
        lambda m, conf, topic: m.open_at(conf, topic, m.StartAt.EARLIEST), EAGER, FROM_START
    ),
    "variable: to_end": (
        lambda m, conf, topic: m.open_at(conf, topic, m.StartAt.LATEST), EAGER, AT_END
    ),
    "variable: as_committed": (
        lambda m, conf, topic: m.open_at(conf, topic, m.StartAt.LAST_CONSUMED), EAGER, AS_GIVEN
    ),
    "conditional expression: from_start": (
        lambda m, conf, topic: m.tail(conf, topic, True), EAGER, FROM_START
    ),
    "conditional expression: as_given": (
        lambda m, conf, topic: m.tail(conf, topic, False), EAGER, AS_GIVEN
    ),
}  # fmt: skip


def _run(broker: Broker, shape: str, protocol: str, reset: str, migrated: bool) -> Any:
    opener, _, _ = SHAPES[shape]
    group = broker.group()
    topic, _ = _topic(broker, group)
    consumer = opener(MODULES[migrated], _conf(broker, group, protocol, reset), topic)
    assert type(consumer) is confluent_kafka.Consumer
    return _starts(consumer, broker, topic)


def _original_cases() -> list[tuple[str, str, str]]:
    return [(s, p, r) for s, (_, ps, _) in SHAPES.items() for p in ps for r in RESETS]


@pytest.mark.parametrize(("shape", "protocol", "reset"), _original_cases())
def test_original_on_raw_confluent_is_the_oracle(
    broker: Broker, shape: str, protocol: str, reset: str
) -> None:
    assert _run(broker, shape, protocol, reset, migrated=False) == SHAPES[shape][2][reset]


@pytest.mark.parametrize("reset", RESETS)
@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("shape", list(SHAPES))
def test_migrated_file_starts_where_the_original_does(
    broker: Broker, shape: str, protocol: str, reset: str
) -> None:
    """The migrated file's own entry points: a plain consumer and rebalance_guard's
    ``subscribe()`` (the protocol guessed, learnt under an incremental one)."""
    assert _run(broker, shape, protocol, reset, migrated=True) == SHAPES[shape][2][reset]
