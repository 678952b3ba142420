"""Shared analysis for the KRB rules: imports, consumers, listeners and callbacks.

Built once per file (:func:`rebalance_lint.analysis.model.analyse`); every rule reads it.
"""
