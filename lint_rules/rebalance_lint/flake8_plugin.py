"""flake8 entry point (``KRB``): a thin adapter over the rule functions.

flake8 runs every installed plugin on every file, so the checker first looks at the
source lines it already has and returns at once when the file cannot involve Kafka. It
reuses flake8's tree (no second parse) and leaves ``# noqa`` to flake8 itself, whose
rules :mod:`rebalance_lint.noqa` mirrors, so ``--disable-noqa`` keeps working.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Any

from rebalance_guard import __version__

from rebalance_lint.screening import KAFKA_MARKERS

_MARKERS = tuple(marker.decode("ascii") for marker in KAFKA_MARKERS)


class RebalanceChecker:
    """flake8 checker for the KRB rules."""

    name = "rebalance-guard"
    version = __version__

    @staticmethod
    def add_options(parser: Any) -> None:
        """KRB2xx are migration advice: off unless selected (``--extend-select=KRB2``)."""
        parser.extend_default_ignore(["KRB2"])

    def __init__(self, tree: ast.Module, lines: list[str]) -> None:
        self._tree = tree
        self._lines = lines

    def run(self) -> Iterator[tuple[int, int, str, type[Any]]]:
        text = "".join(self._lines)
        if not any(marker in text for marker in _MARKERS):
            return
        from rebalance_lint.engine import findings_for_tree  # only files that need it pay

        for finding in findings_for_tree(self._tree, text):
            yield finding.line, finding.col, f"{finding.code} {finding.message}", type(self)
