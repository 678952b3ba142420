"""Render Markdown pages into HTML."""

from pathlib import Path


def build(source: Path, target: Path) -> int:
    count = 0
    for page in sorted(source.glob("*.md")):
        html = "<article>" + page.read_text(encoding="utf-8") + "</article>"
        (target / page.with_suffix(".html").name).write_text(html, encoding="utf-8")
        count += 1
    return count
