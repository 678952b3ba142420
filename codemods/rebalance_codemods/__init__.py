"""LibCST codemods migrating rebalance listeners to ``rebalance_guard`` (KRB201-KRB203)."""
