"""A confluent registration in a module that never imports confluent_kafka.

REAL_WORLD.md's most common confluent shape (callbacks that are methods of the class owning
the consumer) where the consumer is created by a base class in another module, as an
application framework built on confluent-kafka does it (found in a published package:
KRB203 was reported there, but ``migrate`` planned nothing and named no reason, because the
planner only looked at files importing a client package). The model knows the site's client;
the planner takes it from there.
"""

from __future__ import annotations

from rebalance_codemods.repository import migrate_repository
from rebalance_lint import check_repository

BASE = b'''\
from confluent_kafka import Consumer


class App:
    def __init__(self, topics, config):
        self._topics = topics
        self._consumer = Consumer(config)

    def _runtime_init(self):
        self._consumer.subscribe(self._topics)
'''

TABLE_APP = b'''\
import logging

from .base import App

log = logging.getLogger(__name__)


class TableApp(App):
    def __init__(self, topics, config, tables):
        super().__init__(topics, config)
        self.tables = tables

    def _runtime_init(self):
        self._consumer.subscribe(
            self._topics, on_assign=self._partition_assignment,
            on_revoke=self._partition_unassignment, on_lost=self._partition_unassignment)

    def _partition_assignment(self, consumer, add_partitions):
        log.info("assigned %s", add_partitions)
        self.tables.assign(add_partitions)

    def _partition_unassignment(self, consumer, drop_partitions):
        self.tables.flush()
        self.tables.drop(drop_partitions)
'''

REPOSITORY = {"app/__init__.py": b"", "app/base.py": BASE, "app/table_app.py": TABLE_APP}


def _krb2(reports: dict) -> list[tuple[str, int, str, bool]]:
    return [
        (path, f.line, f.code, f.fixable)
        for path, report in reports.items()
        for f in report.findings
        if f.code.startswith("KRB2")
    ]


def test_the_site_is_fixable_and_migrated_with_the_models_client() -> None:
    assert _krb2(check_repository(REPOSITORY)) == [("app/table_app.py", 15, "KRB203", True)]
    done = migrate_repository(REPOSITORY)
    result = done.results["app/table_app.py"]
    assert result.status == "ok" and not result.manual
    new = result.new_source
    assert new is not None
    compile(new, "app/table_app.py", "exec")
    text = new.decode()
    assert "import RebalanceConsumer, RebalanceListener, subscribe" in text
    assert "class TableApp(App, RebalanceListener):" in text
    assert "subscribe(self._consumer, self._topics, self)" in text
    assert "def on_partitions_assigned(self, add_partitions, consumer: RebalanceConsumer):" in text
    assert "def on_partitions_revoked(self, drop_partitions, consumer: RebalanceConsumer):" in text
    assert done.results["app/base.py"].new_source is None
    migrated = {**REPOSITORY, "app/table_app.py": new}
    assert _krb2(check_repository(migrated)) == []
    assert migrate_repository(migrated).pending == set()


def test_without_the_confluent_import_a_one_argument_framework_api_stays_quiet() -> None:
    """The same shape with one-argument callbacks is a framework's own subscribe()."""
    framework = TABLE_APP.replace(b"(self, consumer, add_partitions)", b"(self, add_partitions)")
    framework = framework.replace(b"(self, consumer, drop_partitions)", b"(self, drop_partitions)")
    repository = {**REPOSITORY, "app/table_app.py": framework}
    repository["app/base.py"] = BASE.replace(b"Consumer(config)", b"FrameworkConsumer(config)")
    repository["app/base.py"] = repository["app/base.py"].replace(
        b"from confluent_kafka import Consumer", b"from framework import FrameworkConsumer"
    )
    reports = check_repository(repository)
    assert [f for report in reports.values() for f in report.findings] == []
