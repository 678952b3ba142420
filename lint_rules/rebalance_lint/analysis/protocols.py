"""Which group protocol a file's consumers use, as far as the file shows it.

Eager protocols (range, roundrobin: the default of every Python client) revoke and reassign
everything on each rebalance; cooperative-sticky and KIP-848's ``group.protocol=consumer``
are incremental. librdkafka then takes only ``assign()``/``unassign()`` (eager) or only
``incremental_assign()``/``incremental_unassign()`` (incremental) in a rebalance callback.
KRB107 and KRB110 read this one answer; neither reads configuration text itself.
"""

from __future__ import annotations

import ast
import re
from typing import Literal

from rebalance_lint.analysis.model import Analysis
from rebalance_lint.analysis.walk import breadth_first

#: ``incremental``: the file selects cooperative-sticky or the consumer protocol;
#: ``eager``: the file spells its consumers' configuration out and selects neither, so the
#: client's default (eager) applies; ``unseen``: the configuration comes from elsewhere
#: (a variable built from the environment or a file, ``**`` spread, another module).
Protocol = Literal["eager", "incremental", "unseen"]

#: cooperative-sticky (confluent), CooperativeStickyPartitionAssignor (kafka-python 3), and
#: the KIP-848 protocol selected by name (confluent's ``group.protocol``).
_COOPERATIVE = re.compile(r"ooperative")
_CONSUMER_PROTOCOL = re.compile(r"""group[._]protocol['"]?\s*[:=,]\s*['"]consumer['"]""")
#: Keys and keywords that say "this is a consumer's configuration".
_CONFIG_KEYS = frozenset({"group.id", "bootstrap.servers"})
_CONFIG_KEYWORDS = frozenset({"group_id", "bootstrap_servers"})
_STRATEGY_KEYS = frozenset({"partition.assignment.strategy", "group.protocol"})
_STRATEGY_KEYWORDS = frozenset({"partition_assignment_strategy"})


def group_protocol(analysis: Analysis) -> Protocol:
    """The protocol of the file's consumers (one answer per file: files rarely mix them)."""
    if _COOPERATIVE.search(analysis.text) or _CONSUMER_PROTOCOL.search(analysis.text):
        return "incremental"
    if analysis.tree is None:
        return "unseen"
    configs = 0
    for node in breadth_first(analysis.tree):  # ast.walk's order
        if isinstance(node, ast.Dict):
            keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
            if not keys & _CONFIG_KEYS:
                continue
            if None in node.keys or _opaque_strategy(node):
                return "unseen"  # {**base, ...} or a strategy read from elsewhere
            configs += 1
        elif isinstance(node, ast.Call):
            names = {kw.arg for kw in node.keywords}
            if not names & _CONFIG_KEYWORDS:
                continue
            if None in names or any(
                kw.arg in _STRATEGY_KEYWORDS and not _literal(kw.value) for kw in node.keywords
            ):
                return "unseen"
            configs += 1
    return "eager" if configs else "unseen"


def _opaque_strategy(config: ast.Dict) -> bool:
    """The dict names a strategy or protocol whose value the file does not spell out."""
    return any(
        isinstance(key, ast.Constant) and key.value in _STRATEGY_KEYS and not _literal(value)
        for key, value in zip(config.keys, config.values, strict=True)
    )


def _literal(value: ast.expr) -> bool:
    try:
        ast.literal_eval(value)
    except ValueError:
        return isinstance(value, ast.List | ast.Tuple)  # [RangePartitionAssignor, ...]
    return True
