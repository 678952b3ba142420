"""Errors raised by rebalance views."""


class RebalanceViewExpiredError(RuntimeError):
    """A rebalance view was used after its callback returned (Java's IllegalStateException)."""
