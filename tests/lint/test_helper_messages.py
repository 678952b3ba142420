"""Findings inside helpers say how a registered callback reaches them (issue 11 item 1).

A helper (a method called on ``self``, a function of the same file) is checked as a callback
of its own; its findings stay on the helper's own lines (where ``# noqa`` comments already
are) and name the chain of calls from the registered callback, each call with its line, in
the words effects reached through other objects use (``... via self.worker.flush() at ...``).
"""

from __future__ import annotations

from rebalance_lint import check_repository, check_source
from rebalance_lint.engine import findings_for_tree
from rebalance_lint.source import Parsed, load

from tests.lint.expectations import FIXTURES

HELPERS = FIXTURES / "shape_helper_reached.py"


def _messages(source: bytes, name: str = "m.py") -> dict[tuple[int, str], str]:
    return {(f.line, f.code): f.message for f in check_source(source, name).findings}


def test_each_helper_finding_names_its_callback_and_calls() -> None:
    messages = _messages(HELPERS.read_bytes())
    expected = {
        (16, "KRB101"): "poll() on the consumer inside drain() via _on_revoke() -> drain() at "
        "line 35 (re-entrant poll",
        (20, "KRB103"): "in checkpoint() via on_revoke() -> checkpoint() at line 60: it can land",
        (42, "KRB103"): "(commit(asynchronous=True)) in _write() via _on_revoke() -> self._save() "
        "at line 34 -> self._write() at line 39: it can land",
        # an effect the helper reaches through another object continues the same chain
        (43, "KRB103"): "in _write() via _on_revoke() -> self._save() at line 34 -> "
        "self._write() at line 39 -> self.store.flush() at line 12: it can land",
        (49, "KRB102"): "escapes _keep() via _on_assign() -> self._keep() at line 46 (stored in "
        "attribute .kept)",
    }
    for key, fragment in expected.items():
        assert fragment in messages[key], (key, messages[key])


def test_a_noqa_on_a_helper_line_still_suppresses_it() -> None:
    parsed = load(HELPERS.read_bytes(), str(HELPERS))
    assert isinstance(parsed, Parsed)
    unfiltered = {(f.line, f.code): f.message for f in findings_for_tree(parsed.tree, parsed.text)}
    assert "inside quiet() via _on_revoke() -> quiet() at line 36" in unfiltered[(24, "KRB101")]
    assert (24, "KRB101") not in _messages(HELPERS.read_bytes())


def test_a_lost_helper_names_the_chain_and_why_it_runs_on_loss() -> None:
    messages = _messages((FIXTURES / "krb104_lost.py").read_bytes())
    assert messages[(50, "KRB104")].startswith(
        "commit() in _save() via on_partitions_revoked() -> self._save() at line 47, which runs "
        "when partitions are lost (called from on_partitions_lost())"
    )
    # the same chain to a BARE commit on the view (passed down as a parameter): on loss the
    # view commits nothing, so there is nothing to report
    assert (61, "KRB104") not in messages


def test_repository_mode_names_helpers_the_same_way() -> None:
    source = HELPERS.read_bytes()
    report = check_repository({"svc/worker.py": source, "svc/__init__.py": b""})["svc/worker.py"]
    assert {(f.line, f.code): f.message for f in report.findings} == _messages(source)


SHORTEST = b"""\
from rebalance_guard.kafka_python import RebalanceListener


class Listener(RebalanceListener):
    def on_partitions_assigned(self, partitions, consumer):
        self._prepare(consumer)

    def _prepare(self, consumer):
        self._flush(consumer)

    def on_partitions_revoked(self, partitions, consumer):
        self._flush(consumer)

    def _flush(self, consumer):
        self.kept = consumer

    def on_partitions_lost(self, partitions, consumer):
        pass
"""


def test_the_shortest_chain_is_named() -> None:
    (message,) = _messages(SHORTEST).values()
    assert "escapes _flush() via on_partitions_revoked() -> self._flush() at line 12 (" in message
