"""Type checks for the #27 logging setting (run by test_type_checks.py with mypy and pyright).

``CallbackLogging`` is the typed setting: a listener's ``callback_logging`` (class or
instance attribute) holds one; anything else, or a wrongly typed field, is a coded error.
"""

# pyright: reportMissingTypeStubs=false

from __future__ import annotations

import logging
from typing import assert_type

from rebalance_guard import CallbackLogging
from rebalance_guard.aiokafka import RebalanceListener as AIOKafkaListener
from rebalance_guard.kafka_python import RebalanceListener as KafkaPythonListener


class Quiet(KafkaPythonListener):
    callback_logging = CallbackLogging(slow_after=None)


class Chatty(AIOKafkaListener):
    callback_logging = CallbackLogging(slow_after=0.25, level=logging.INFO)


def settings() -> None:
    assert_type(Quiet.callback_logging, CallbackLogging)
    assert_type(Chatty().callback_logging.slow_after, float | None)
    assert_type(CallbackLogging().level, int)
    listener = Quiet()
    listener.callback_logging = CallbackLogging(slow_after=5)


class Wrong(KafkaPythonListener):
    callback_logging = 0.5  # type: ignore[assignment]


def wrong() -> None:
    CallbackLogging(slow_after="1s")  # type: ignore[arg-type]
    CallbackLogging(level="INFO")  # type: ignore[arg-type]
    Chatty().callback_logging = None  # type: ignore[assignment]
    CallbackLogging().slow_after = 2.0  # type: ignore[misc]
