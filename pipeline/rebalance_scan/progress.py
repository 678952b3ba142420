"""Console progress for long scans: the stage we are in, Spark tasks done, files scanned.

Spark's own progress bar is switched off by the CLI (it draws over our lines); this
prints a line on stderr whenever the numbers change, at most every ``interval`` seconds.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO


class Progress:
    """Numbered stage lines plus a live files/tasks line while the Spark job runs."""

    def __init__(
        self,
        total_stages: int,
        stream: TextIO | None = None,
        interval: float = 1.0,
        enabled: bool = True,
    ):
        self._enabled = enabled
        self._total = total_stages
        self._stage = 0
        self._stream = stream if stream is not None else sys.stderr
        self._interval = interval
        self._started = time.monotonic()
        self.expected_files: int | None = None

    def stage(self, text: str) -> None:
        self._stage += 1
        if not self._enabled:
            return
        elapsed = time.monotonic() - self._started
        print(
            f"[{self._stage}/{self._total}] {text}  ({elapsed:.1f}s)", file=self._stream, flush=True
        )

    def line(self, text: str) -> None:
        if self._enabled:
            print(f"      {text}", file=self._stream, flush=True)

    def _snapshot(self, context: Any, counter: Any) -> str:
        tracker = context.statusTracker()
        done = total = 0
        for stage_id in tracker.getActiveStageIds():
            info = tracker.getStageInfo(stage_id)
            if info is not None:
                done += info.numCompletedTasks
                total += info.numTasks
        files = f"{counter.value}" + (
            f"/{self.expected_files}" if self.expected_files is not None else ""
        )
        tasks = f", tasks {done}/{total}" if total else ""
        return f"files scanned {files}{tasks}"

    @contextmanager
    def watch(self, context: Any, counter: Any) -> Iterator[None]:
        """Report progress from a daemon thread while the body runs the Spark action."""
        if not self._enabled:
            yield
            return
        stop = threading.Event()

        def report() -> None:
            last = ""
            while not stop.wait(self._interval):
                current = self._snapshot(context, counter)
                if current != last:
                    self.line(current)
                    last = current

        thread = threading.Thread(target=report, name="scan-progress", daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join()
            self.line(f"files scanned {counter.value} (done)")
