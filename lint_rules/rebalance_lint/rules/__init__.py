"""The KRB rules, one module per rule family; :mod:`rebalance_lint.rule_table` collects them.

Each family module defines its :class:`~rebalance_lint.rules.rule.Rule` objects (code,
message, rationale, fix, examples) next to the checks registered on them.
"""
