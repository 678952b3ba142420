"""Charts for the offline HTML report: inline SVG bars, no JS or CSS libraries.

Every chart scales to the page's width (never wider than the viewport); labels that can be
long (repository names) are HTML text next to the bar, so they wrap instead of being cut.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

BAR_HEIGHT = 22
LABEL_WIDTH = 170
CHART_WIDTH = 640
BAR_SPAN = 1000  # the viewBox width of one repository bar; the page scales it


def _frame(rows: int, body: str, title: str) -> str:
    height = rows * (BAR_HEIGHT + 6) + 10
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" class="chart" '
        f'viewBox="0 0 {CHART_WIDTH} {height}" style="width:100%;max-width:{CHART_WIDTH}px;'
        f'height:auto"><title>{escape(title)}</title>{body}</svg>'
    )


def _row_y(index: int) -> int:
    return 5 + index * (BAR_HEIGHT + 6)


def _label(index: int, text: str) -> str:
    y = _row_y(index) + BAR_HEIGHT * 0.7
    return f'<text x="{LABEL_WIDTH - 8}" y="{y:.1f}" text-anchor="end">{escape(text)}</text>'


def bar_chart(title: str, items: Sequence[tuple[str, int, str]]) -> str:
    """One bar per ``(label, value, colour)``, scaled to the largest value; short labels only
    (rule codes, file statuses)."""
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


@dataclass(frozen=True)
class BarRow:
    """One repository in a row chart: its label, link target, segments and a note."""

    label: str
    href: str
    segments: tuple[tuple[int, str, str], ...]  # (value, colour, what it counts)
    note: str


def row_chart(chart_id: str, title: str, rows: Sequence[BarRow], rest: str = "") -> str:
    """One row per repository: the name as wrapping HTML text (a link), a stacked SVG bar
    scaled to the largest row, and a note; ``rest`` summarises what the chart leaves out."""
    if not rows:
        return f'<p class="empty">{escape(title)}: nothing to show.</p>'
    largest = max(sum(value for value, _, _ in row.segments) for row in rows) or 1
    html = [f'<div class="rows" id="{chart_id}" role="list" aria-label="{escape(title)}">']
    for row in rows:
        x = 0.0
        rects = []
        for value, colour, kind in row.segments:
            if not value:
                continue
            width = BAR_SPAN * value / largest
            rects.append(
                f'<rect x="{x:.1f}" y="0" width="{width:.1f}" height="10" fill="{colour}">'
                f"<title>{escape(row.label)}: {value} {escape(kind)}</title></rect>"
            )
            x += width
        html.append(
            f'<div class="row" role="listitem"><a class="label" href="{escape(row.href)}">'
            f"{escape(row.label)}</a>"
            f'<svg class="bar" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {BAR_SPAN} 10" '
            f'preserveAspectRatio="none" aria-hidden="true">{"".join(rects)}</svg>'
            f'<span class="note">{escape(row.note)}</span></div>'
        )
    html.append("</div>")
    if rest:
        html.append(f'<p class="rest" id="{chart_id}-rest">{escape(rest)}</p>')
    return "".join(html)
