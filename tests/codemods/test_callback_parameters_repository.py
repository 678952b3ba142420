# ruff: noqa: E501  (the migrated helper is the codemod's exact output; LibCST does not wrap)
"""``rebalance-guard migrate DIR`` and a helper registering the callbacks its callers pass
(``shapes/callback_parameters.py``), called from other modules (the feature-pipeline shape:
``features/kafka_utils.py``'s ``subscribe_with_commit(consumer, topics, on_revoke)`` called
with ``self.on_revoke`` in ``features/offline.py``): repository mode sees every call of the
helper in the repository, so it migrates when each passes a callback the view will do for
(the callers' modules are not edited), and is refused naming the other module's file:line
otherwise. ``migrate FILE`` alone keeps the refusal."""

from __future__ import annotations

import textwrap

import pytest
from rebalance_codemods.api import migrate_source
from rebalance_codemods.repository import migrate_repository
from rebalance_lint import check_repository

UTILS = '''\
"""Thin helpers around confluent_kafka shared by the pipeline's stages."""
from confluent_kafka import Consumer


def subscribe_with_commit(consumer, topics, on_revoke):
    consumer.subscribe(topics, on_revoke=on_revoke)
'''

STAGE = """\
from .kafka_utils import subscribe_with_commit


class ParquetStage:
    def __init__(self, consumer, topics):
        self.consumer = consumer
        self.topics = topics
        self.rows = []

    def on_revoke(self, consumer, partitions):
        self.rows.clear()
        consumer.commit(asynchronous=False)

    def run(self):
        subscribe_with_commit(self.consumer, self.topics, self.on_revoke)
"""

MIGRATED_HELPER = """\
def subscribe_with_commit(consumer, topics, on_revoke):
    class RebalanceCallbacks(RebalanceListener):
        def on_partitions_revoked(self, partitions: list[TopicPartition], consumer: RebalanceConsumer) -> None:
            on_revoke(consumer, partitions)

    subscribe(consumer, topics, RebalanceCallbacks())
"""


def _files(**extra: str) -> dict[str, bytes]:
    files = {"app/__init__.py": "", "app/kafka_utils.py": UTILS, "app/offline.py": STAGE}
    files.update({f"app/{name}.py": textwrap.dedent(text) for name, text in extra.items()})
    return {path: text.encode() for path, text in files.items()}


def _migrate(files: dict[str, bytes]) -> dict[str, bytes]:
    """Each file as ``migrate DIR`` leaves it; a second run changes nothing and ``check DIR``
    calls the helper's KRB203 fixable exactly when it is rewritten."""
    done = migrate_repository(files)
    assert all(r.status == "ok" for r in done.results.values()), done.results
    after = {path: done.results[path].new_source or source for path, source in files.items()}
    again = migrate_repository(after)
    assert all(r.new_source is None for r in again.results.values()), "not idempotent"
    findings = check_repository(files)["app/kafka_utils.py"].findings
    fixable = [f.fixable for f in findings if f.code == "KRB203"]
    assert fixable == [after["app/kafka_utils.py"] != files["app/kafka_utils.py"]]
    return after


def _reasons(files: dict[str, bytes]) -> list[str]:
    done = migrate_repository(files)
    return [m.reason for r in done.results.values() for m in r.manual]


def test_a_helper_called_from_another_module_with_a_method_migrates() -> None:
    files = _files()
    after = _migrate(files)
    assert MIGRATED_HELPER in after["app/kafka_utils.py"].decode()
    assert after["app/offline.py"] == files["app/offline.py"]


def test_migrate_file_alone_cannot_see_the_callers() -> None:
    result = migrate_source(UTILS.encode(), "app/kafka_utils.py")
    assert result.new_source is None
    assert "which nothing in this file calls" in result.manual[0].reason


def test_a_helper_nothing_in_the_repository_calls_is_an_api() -> None:
    files = _files()
    files["app/offline.py"] = b""
    assert _migrate(files) == files
    assert any(
        "which nothing in the repository (the directory migrated) calls" in r
        for r in _reasons(files)
    ), _reasons(files)


REFUSED = [
    ("a callback the view will not do for", {"cleanup": """\
        from .kafka_utils import subscribe_with_commit


        def close_on_revoke(consumer, partitions):
            consumer.close()


        def run(consumer):
            subscribe_with_commit(consumer, ["t"], close_on_revoke)
        """},
     "close_on_revoke calls consumer.close() (line 5), which the rebalance view does not offer"),
    ("a callback it cannot see", {"other": """\
        from .kafka_utils import subscribe_with_commit
        from .hooks import hook


        def run(consumer):
            subscribe_with_commit(consumer, ["t"], hook)
        """},
     "subscribe_with_commit() is called at app/other.py:6 with on_revoke=hook, a callback the codemod cannot see"),
    ("a use other than a call", {"registry": """\
        from .kafka_utils import subscribe_with_commit

        HOOKS = [subscribe_with_commit]
        """},
     "app/registry.py:3 uses subscribe_with_commit() other than by a call"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "extra", "reason"), REFUSED, ids=[r[0] for r in REFUSED])
def test_a_caller_in_another_module_the_view_will_not_do_for_is_refused(
    name: str, extra: dict[str, str], reason: str
) -> None:
    files = _files(**extra)
    after = _migrate(files)
    assert after["app/kafka_utils.py"] == files["app/kafka_utils.py"]
    assert any(reason in r for r in _reasons(files)), _reasons(files)


def test_a_def_passed_here_and_imported_elsewhere_is_not_rewritten() -> None:
    """A def of the helper's module passed to it there, and also called from another module
    with the real consumer: its final assign cannot become the view's seeks."""
    utils = UTILS + textwrap.dedent("""

        def rewind(consumer, partitions):
            consumer.assign(partitions)


        def start(consumer):
            subscribe_with_commit(consumer, ["t"], rewind)
        """)
    files = _files(
        replay="""\
        from .kafka_utils import rewind


        def replay(consumer):
            rewind(consumer, consumer.assignment())
        """
    )
    files["app/kafka_utils.py"] = utils.encode()
    files["app/offline.py"] = b""
    after = _migrate(files)
    assert after == files
    assert any("rewind is also used elsewhere" in r for r in _reasons(files)), _reasons(files)
