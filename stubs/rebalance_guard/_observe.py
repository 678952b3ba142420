"""What rebalance_guard logs about each listener callback (standard library only).

Every adapter runs a listener callback inside :func:`rebalance_guard._view.live` (or
:func:`~rebalance_guard._view.awaited` for async views); that block times the callback with
:class:`Timing` and, when it ends, logs one record on the ``rebalance_guard`` logger:

* at the listener's :attr:`CallbackLogging.level` (``DEBUG`` by default): which callback, the
  client, the partitions, the protocol, the duration, and what the listener did through the
  view (commits with their offsets, seeks, pauses; the view books them, see
  :class:`~rebalance_guard._view.ExpiringView`);
* at ``WARNING`` instead when the callback ran longer than :attr:`CallbackLogging.slow_after`
  (one second by default), the same record saying what the group went through meanwhile.

The record's fields are also attributes of the ``logging.LogRecord`` (``rebalance_callback``,
``rebalance_client``, ``rebalance_event``, ``rebalance_partitions``, ``rebalance_protocol``,
``rebalance_duration``, ``rebalance_actions``, ``rebalance_slow``, ``rebalance_error``), for
JSON formatters and log pipelines. Nothing here runs on the message path: only when a
rebalance callback starts and ends (two clock reads and one ``isEnabledFor``; a record is
formatted only when the logger would emit it).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["LOGGER", "CallbackLogging", "Timing", "describe_offsets", "settings_of"]

#: The logger every adapter's callback records and slow-callback warnings go to.
LOGGER = logging.getLogger("rebalance_guard")

#: The clock callbacks are timed with (seconds); tests replace it with a controllable one.
clock: Callable[[], float] = time.perf_counter

#: The listener attribute that holds its :class:`CallbackLogging` (class or instance).
ATTRIBUTE = "callback_logging"

#: KIP-1306 callback names, as adapters label them (``Listener.on_partitions_revoked``).
EVENTS = ("on_partitions_assigned", "on_partitions_revoked", "on_partitions_lost")


@dataclass(frozen=True, slots=True)
class CallbackLogging:
    """How rebalance_guard logs a listener's callbacks; set it on the listener::

        class CommitOnRevoke(RebalanceListener):
            callback_logging = CallbackLogging(slow_after=0.5, level=logging.INFO)

    (or on one instance: ``listener.callback_logging = CallbackLogging(...)``).

    ``slow_after``: seconds after which a callback is logged as a WARNING on the
    ``rebalance_guard`` logger (one per slow callback, with what the group does meanwhile);
    ``None`` turns the warning off. ``level``: the level of the one record logged for every
    callback (``logging.DEBUG`` by default; ``logging.INFO`` to see every rebalance in
    production logs).
    """

    slow_after: float | None = 1.0
    level: int = logging.DEBUG

    def __post_init__(self) -> None:
        if self.slow_after is not None and not self.slow_after >= 0:
            raise ValueError(f"slow_after must be >= 0 seconds or None, not {self.slow_after!r}")
        if not isinstance(self.level, int) or isinstance(self.level, bool):
            raise TypeError(f"level must be a logging level (int), not {self.level!r}")


DEFAULT = CallbackLogging()


def settings_of(listener: object) -> CallbackLogging:
    """The :class:`CallbackLogging` of ``listener`` (or of the listener a bound method of it
    belongs to); the default when it sets none. Raises ``TypeError`` for anything else."""
    owner = getattr(listener, "__self__", listener)
    settings = getattr(owner, ATTRIBUTE, DEFAULT) if owner is not None else DEFAULT
    if not isinstance(settings, CallbackLogging):
        raise TypeError(
            f"{type(owner).__name__}.{ATTRIBUTE} must be a rebalance_guard.CallbackLogging, "
            f"not {type(settings).__name__}"
        )
    return settings


def _name(partition: Any) -> str:
    """``topic-partition``, Kafka's own spelling of a partition."""
    return f"{partition.topic}-{partition.partition}"


def _offset(value: Any) -> int | None:
    """An offset as clients spell it: int, ``OffsetAndMetadata``, ``(offset, metadata)``."""
    if isinstance(value, int):
        return value
    if isinstance(value, tuple) and value and isinstance(value[0], int):
        return value[0]
    offset = getattr(value, "offset", None)
    return offset if isinstance(offset, int) else None


def _is_partition(value: Any) -> bool:
    return hasattr(value, "topic") and hasattr(value, "partition") and not callable(value.topic)


def describe_offsets(args: Iterable[Any]) -> dict[str, int | None]:
    """``{"topic-partition": offset}`` from a view method's arguments, in any client's shape.

    A mapping ``{TopicPartition: offset}`` (kafka-python, aiokafka), partitions with an offset
    (confluent), ``TopicPartition, offset`` (kafka-python's and aiokafka's ``seek``), a
    confluent ``Message`` (committed at its offset + 1); partitions alone map to ``None``.
    """
    found: dict[str, int | None] = {}
    pending: str | None = None  # a partition that an int argument may follow (seek)
    for value in args:
        if pending is not None and isinstance(value, int):
            found[pending] = value
            pending = None
            continue
        pending = None
        if value is None or isinstance(value, (bool, str, bytes)):
            continue
        if isinstance(value, Mapping):
            found.update({_name(p): _offset(o) for p, o in value.items() if _is_partition(p)})
        elif _is_partition(value):
            pending = _name(value)
            offset = getattr(value, "offset", None)
            found[pending] = offset if isinstance(offset, int) else None
        elif callable(getattr(value, "topic", None)) and callable(getattr(value, "offset", None)):
            found[f"{value.topic()}-{value.partition()}"] = value.offset() + 1  # a Message
        elif isinstance(value, Iterable):
            found.update(describe_offsets(value))
    return found


def _render_action(action: Mapping[str, Any]) -> str:
    """``commit {orders-0: 42}``, ``seek {orders-1: 7}``, ``pause [orders-2]``..."""
    method = action["method"]
    if "partitions" in action:
        text = f"{method} [{', '.join(action['partitions']) or 'all assigned'}]"
    elif action["offsets"] is None:
        text = f"{method} (consumed offsets)"
    else:
        text = f"{method} {{{', '.join(f'{k}: {v}' for k, v in action['offsets'].items())}}}"
    error = action.get("error")
    return f"{text} failed ({error})" if error else text


#: What the group goes through while a callback runs, by protocol and callback.
_REVOKED = {
    "eager": "eager rebalance: the whole group waits for it, every member stopped consuming "
    "until all have rejoined",
    "cooperative": "cooperative rebalance: the revoked partitions are consumed by no member "
    "until it returns and this member rejoins; the rest of the group keeps consuming",
    "consumer": "consumer protocol (KIP-848): the broker hands the revoked partitions to their "
    "new owner only once this member has released them, so no member consumes them until it "
    "returns; the rest of the group keeps consuming",
    None: "the revoked partitions wait for it (eager protocols: the whole group waits for it, "
    "every member stopped consuming; cooperative ones: only these partitions wait)",
}
_ASSIGNED = (
    "the group has its new assignment, but this member consumes none of its partitions "
    "until it returns"
)
_LOST = "the partitions already belong to other members; this member rejoins only after it returns"
_TIMEOUT = "past max.poll.interval.ms without a poll the member is removed from the group"


def group_effect(event: str, protocol: str | None) -> str:
    """What happens to the group while callback ``event`` runs under ``protocol``."""
    if event == "on_partitions_lost":
        return _LOST
    if event == "on_partitions_revoked":
        return _REVOKED.get(protocol, _REVOKED[None])
    return _ASSIGNED


class Timing:
    """One callback being timed; :meth:`done` logs its record (and warns when it was slow)."""

    __slots__ = ("_client", "_label", "_partitions", "_protocol", "_settings", "_started")

    def __init__(
        self,
        label: str,
        client: str,
        partitions: Iterable[Any] | None,
        listener: object,
        protocol: str | None,
    ) -> None:
        self._settings = settings_of(listener)
        self._label = label
        self._client = client
        self._partitions = partitions
        self._protocol = protocol
        self._started = clock()

    def done(self, actions: list[dict[str, Any]], error: BaseException | None) -> None:
        """The callback returned (or raised ``error``): log its record."""
        duration = clock() - self._started
        settings = self._settings
        slow = settings.slow_after is not None and duration > settings.slow_after
        level = max(settings.level, logging.WARNING) if slow else settings.level
        if not LOGGER.isEnabledFor(level):
            return
        label = self._label
        event = next((e for e in EVENTS if label.endswith(e)), label)
        partitions = sorted(_name(p) for p in self._partitions or ())
        count = "unknown" if self._partitions is None else str(len(partitions))
        count += " partition" if count == "1" else " partitions"
        extra = {
            "rebalance_callback": label,
            "rebalance_client": self._client,
            "rebalance_event": event,
            "rebalance_partitions": partitions,
            "rebalance_protocol": self._protocol,
            "rebalance_duration": duration,
            "rebalance_actions": actions,
            "rebalance_slow": slow,
            "rebalance_error": None if error is None else f"{type(error).__name__}: {error}",
        }
        did = "; ".join(_render_action(a) for a in actions) or "nothing through the view"
        outcome = "" if error is None else f"; raised {type(error).__name__}"
        where = f"{self._client}, {self._protocol or 'protocol unknown'}"
        if slow:
            LOGGER.log(
                level,
                "slow rebalance callback %s(): %.3f s for %s (%s; warns over "
                "%.3g s). Meanwhile %s; %s. It did: %s%s. Move slow work out of rebalance "
                "callbacks, or raise the listener's %s.slow_after",
                label, duration, count, where, settings.slow_after,
                group_effect(event, self._protocol), _TIMEOUT, did, outcome, ATTRIBUTE,
                extra=extra,
            )  # fmt: skip
            return
        LOGGER.log(
            level,
            "rebalance callback %s(): %.3f s for %s [%s] (%s): %s%s",
            label, duration, count, ", ".join(partitions), where, did, outcome,
            extra=extra,
        )  # fmt: skip
