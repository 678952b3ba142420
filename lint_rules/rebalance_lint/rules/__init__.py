"""The KRB rules, one module per family; importing this package registers them all."""

from rebalance_lint.rules import (  # noqa: F401  (imported for registration)
    awaiting,
    blocking,
    commits,
    escape,
    migration,
    pause,
    reentrant,
    signatures,
)
from rebalance_lint.rules.registry import CALLBACK_RULES, FILE_RULES

__all__ = ["CALLBACK_RULES", "FILE_RULES"]
