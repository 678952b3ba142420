"""Inline SVG bar charts: the HTML report must work offline, so no JS or CSS libraries."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

BAR_HEIGHT = 22
LABEL_WIDTH = 170
CHART_WIDTH = 640


def _frame(rows: int, body: str, title: str) -> str:
    height = rows * (BAR_HEIGHT + 6) + 10
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{CHART_WIDTH}" '
        f'height="{height}" viewBox="0 0 {CHART_WIDTH} {height}"><title>{escape(title)}</title>'
        f"{body}</svg>"
    )


def _row_y(index: int) -> int:
    return 5 + index * (BAR_HEIGHT + 6)


def _label(index: int, text: str) -> str:
    y = _row_y(index) + BAR_HEIGHT * 0.7
    return f'<text x="{LABEL_WIDTH - 8}" y="{y:.1f}" text-anchor="end">{escape(text)}</text>'


def bar_chart(title: str, items: Sequence[tuple[str, int, str]]) -> str:
    """One bar per ``(label, value, colour)``, scaled to the largest value."""
    if not items:
        return f"<p class=empty>{escape(title)}: nothing to show.</p>"
    span = CHART_WIDTH - LABEL_WIDTH - 60
    largest = max(value for _, value, _ in items) or 1
    parts = []
    for index, (label, value, colour) in enumerate(items):
        width = max(1.0, span * value / largest)
        y = _row_y(index)
        parts.append(_label(index, label))
        parts.append(
            f'<rect x="{LABEL_WIDTH}" y="{y}" width="{width:.1f}" height="{BAR_HEIGHT}" '
            f'fill="{colour}"><title>{escape(label)}: {value}</title></rect>'
            f'<text x="{LABEL_WIDTH + width + 6:.1f}" y="{y + BAR_HEIGHT * 0.7:.1f}">{value}</text>'
        )
    return _frame(len(items), "".join(parts), title)


def stacked_chart(
    title: str, items: Sequence[tuple[str, int, int]], colours: tuple[str, str], note: Sequence[str]
) -> str:
    """One bar per ``(label, first, second)`` split in two colours, with a note at its end."""
    if not items:
        return f"<p class=empty>{escape(title)}: nothing to show.</p>"
    span = CHART_WIDTH - LABEL_WIDTH - 150
    largest = max(a + b for _, a, b in items) or 1
    parts = []
    for index, (label, first, second) in enumerate(items):
        y = _row_y(index)
        x = float(LABEL_WIDTH)
        parts.append(_label(index, label))
        for value, colour, kind in ((first, colours[0], "auto"), (second, colours[1], "manual")):
            if value:
                width = span * value / largest
                parts.append(
                    f'<rect x="{x:.1f}" y="{y}" width="{width:.1f}" height="{BAR_HEIGHT}" '
                    f'fill="{colour}"><title>{escape(label)}: {value} {kind}</title></rect>'
                )
                x += width
        parts.append(
            f'<text x="{x + 6:.1f}" y="{y + BAR_HEIGHT * 0.7:.1f}">{escape(note[index])}</text>'
        )
    return _frame(len(items), "".join(parts), title)
