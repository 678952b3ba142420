"""Plan the confluent-kafka migration (on_assign/on_revoke/on_lost callbacks)."""

from __future__ import annotations

import libcst as cst

from rebalance_codemods.meta import Index, Meta
from rebalance_codemods.plan import Plan


def plan_confluent(module: cst.Module, meta: Meta, index: Index) -> Plan:
    return Plan()
