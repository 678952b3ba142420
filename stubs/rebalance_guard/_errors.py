"""Errors raised by rebalance views."""


class RebalanceViewExpiredError(RuntimeError):
    """A rebalance view was used after its callback returned (Java's IllegalStateException)."""


class NotAwaitedError(RuntimeError):
    """A coroutine from the view was never awaited, so its commit, seek or query never ran."""
