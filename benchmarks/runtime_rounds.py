"""What the runtime overhead benchmarks (``runtime_<client>.py``) share: the rounds in which a
guarded consumer, a plain one and a second plain one (the control) take turns, and the rows
they report. ``runtime_overhead.py`` judges the goal from :data:`RATIO` and :data:`CONTROL`."""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Iterator, Mapping, Sequence

#: The consumers of a round: "plain again"/"plain" is the control, the noise floor of a ratio.
NAMES = ("guarded", "plain", "plain again")
RATIO = "consume ratio guarded/plain (median of rounds)"
CONTROL = "control: ratio plain/plain (median of rounds)"

#: confluent consumers wait, paused, through the others' windows: longer than the poll interval
#: the tests configure (10 s), after which librdkafka would leave the group.
CONFLUENT_IDLE = {"max.poll.interval.ms": 600_000}

Rates = Sequence[float]  # one window's messages per wall second [, per CPU second]
Row = tuple[str, float, str]


def orders(rounds: int) -> Iterator[tuple[str, ...]]:
    """The order of the consumers in each round, rotating: order effects cancel out."""
    for round_ in range(rounds):
        yield NAMES[round_ % 3 :] + NAMES[: round_ % 3]


def ratios(rounds: Iterable[Mapping[str, Rates]], name: str, clock: int = 0) -> list[float]:
    """``name``/plain per round, sorted: adjacent windows share the machine's load."""
    return sorted(r[name][clock] / r["plain"][clock] for r in rounds)


def ratio_rows(rounds: Sequence[Mapping[str, Rates]], cpu: str | None = None) -> list[Row]:
    """Median rates, the guarded/plain ratio and its control (and both in CPU time)."""
    rows: list[Row] = [
        ("consume, plain listener (median)", statistics.median(r["plain"][0] for r in rounds),
         "msg/s"),
        ("consume, guarded listener (median)",
         statistics.median(r["guarded"][0] for r in rounds), "msg/s"),
        (RATIO, statistics.median(ratios(rounds, "guarded")), "ratio"),
        (CONTROL, statistics.median(ratios(rounds, "plain again")), "ratio"),
    ]  # fmt: skip
    if cpu is not None:
        rows += [
            (f"consume ratio guarded/plain, {cpu}",
             statistics.median(ratios(rounds, "guarded", 1)), "ratio"),
            (f"control: ratio plain/plain, {cpu}",
             statistics.median(ratios(rounds, "plain again", 1)), "ratio"),
        ]  # fmt: skip
    return rows


def paired_us(plain: Sequence[float], guarded: Sequence[float]) -> tuple[float, float, float]:
    """Medians of plain and guarded timings, and of their back-to-back differences."""
    return (
        statistics.median(plain),
        statistics.median(guarded),
        statistics.median(g - p for p, g in zip(plain, guarded, strict=True)),
    )
