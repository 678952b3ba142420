# ruff: noqa: E501  (sources and reasons read best unwrapped)
"""A callback handing its consumer to a helper whose parameter is annotated with the client's
consumer class, the helper also called with the real consumer elsewhere
(shapes/annotated_helpers.py): the annotation becomes ``Consumer | RebalanceConsumer`` so both
callers type-check, when the helper calls only what the view offers as written.

fixtures/annotated_helpers.py migrates to fixtures/migrated/annotated_helpers.py (and both
type-check alike: test_migrated_type_checks.py); fixtures/refused_annotated_helpers.py stays.
"""

from __future__ import annotations

import textwrap

import pytest
from rebalance_codemods.api import migrate_source
from rebalance_codemods.repository import migrate_repository
from rebalance_codemods.results import MigrationResult
from rebalance_lint import check_source

CONFLUENT = """
{imports}


def commit_pending(consumer: {annotation}, pending: dict[str, int]) -> None:
    consumer.commit(asynchronous=False)
    pending.clear()


def on_revoke(consumer, partitions):
    commit_pending(consumer, {{}})


def main() -> None:
    c = Consumer({{"group.id": "g"}})
    c.subscribe(["a"], on_revoke=on_revoke)
    commit_pending(c, {{}})
"""


def _migrate(source: str) -> MigrationResult:
    result = migrate_source(textwrap.dedent(source).encode(), "app.py")
    assert result.status == "ok", result.reason
    return result


@pytest.mark.parametrize(
    ("imports", "annotation", "widened"),
    [
        ("from confluent_kafka import Consumer", "Consumer", "Consumer | RebalanceConsumer"),
        ("from confluent_kafka import Consumer", "'Consumer'", "'Consumer | RebalanceConsumer'"),
        ("import confluent_kafka\nfrom confluent_kafka import Consumer", "confluent_kafka.Consumer", "confluent_kafka.Consumer | RebalanceConsumer"),
        ("from confluent_kafka import Consumer as Kafka\nConsumer = Kafka", "Kafka", "Kafka | RebalanceConsumer"),
    ],
)
def test_the_annotation_accepts_the_view_too(imports: str, annotation: str, widened: str) -> None:
    result = _migrate(CONFLUENT.format(imports=imports, annotation=annotation))
    assert not result.manual, result.manual
    assert result.new_source is not None
    after = result.new_source.decode()
    assert f"def commit_pending(consumer: {widened}, pending: dict[str, int]) -> None:" in after
    assert "from rebalance_guard.confluent_kafka import RebalanceConsumer" in after
    assert migrate_source(result.new_source, "app.py").new_source is None, "idempotent"
    fixable = [f.fixable for f in check_source(textwrap.dedent(CONFLUENT.format(imports=imports, annotation=annotation)).encode(), "app.py").findings if f.code == "KRB203"]
    assert fixable == [True]


def test_a_helper_two_callbacks_share_is_widened_once() -> None:
    source = CONFLUENT.format(imports="from confluent_kafka import Consumer", annotation="Consumer").replace(
        'c.subscribe(["a"], on_revoke=on_revoke)',
        'c.subscribe(["a"], on_revoke=on_revoke, on_lost=on_revoke)',
    )
    result = _migrate(source)
    assert not result.manual, result.manual
    assert result.new_source is not None
    assert result.new_source.decode().count("Consumer | RebalanceConsumer") == 1



@pytest.mark.parametrize(
    ("imports", "annotation"),
    [
        ("from typing import Any\nfrom confluent_kafka import Consumer", "Any"),
        ("import typing\nfrom confluent_kafka import Consumer", "typing.Any"),
        ("from typing_extensions import Any\nfrom confluent_kafka import Consumer", "'Any'"),
    ],
)
def test_an_any_annotation_takes_the_view_unchanged(imports: str, annotation: str) -> None:
    """Any accepts the view as it is (helper-42's program was refused for it, 2026-11-27)."""
    result = _migrate(CONFLUENT.format(imports=imports, annotation=annotation))
    assert not result.manual, result.manual
    assert result.new_source is not None
    after = result.new_source.decode()
    assert f"def commit_pending(consumer: {annotation}, pending: dict[str, int]) -> None:" in after
    assert "| RebalanceConsumer" not in after
    assert "def on_partitions_revoked(self, partitions, consumer: RebalanceConsumer):\n        commit_pending(consumer, {})" in after
    assert migrate_source(result.new_source, "app.py").new_source is None, "idempotent"


def test_any_rebound_is_not_taken_for_typing_any() -> None:
    imports = "from typing import Any\nfrom confluent_kafka import Consumer\nAny = Consumer"
    result = _migrate(CONFLUENT.format(imports=imports, annotation="Any"))
    assert result.new_source is None
    assert any("is annotated Any, which the view is not" in m.reason for m in result.manual), result.manual


REFUSED = [
    ("a local class, not the client's", "from confluent_kafka import Consumer\n\nclass Checked(Consumer):\n    pass", "Checked"),
    ("an Optional", "from typing import Optional\nfrom confluent_kafka import Consumer", "Optional[Consumer]"),
    ("another client's consumer", "from confluent_kafka import Consumer\nfrom kafka import KafkaConsumer", "KafkaConsumer"),
    ("a string in two parts", "from confluent_kafka import Consumer", '"Con" "sumer"'),
    ("a name rebound", "from confluent_kafka import Consumer\nfrom confluent_kafka import Producer as Consumer", "Consumer"),
]


@pytest.mark.parametrize(("name", "imports", "annotation"), REFUSED, ids=[r[0] for r in REFUSED])
def test_any_other_annotation_is_refused_naming_the_one_to_write(name: str, imports: str, annotation: str) -> None:
    source = CONFLUENT.format(imports=imports, annotation=annotation)
    result = _migrate(source)
    assert result.new_source is None
    wanted = '"Consumer | RebalanceConsumer"' if annotation.startswith('"') else f"{annotation} | RebalanceConsumer"
    assert any(f"passes it to commit_pending(), whose parameter consumer is annotated {annotation}" in m.reason and f"annotate it {wanted} (or drop the annotation)" in m.reason for m in result.manual), result.manual
    fixable = [f.fixable for f in check_source(textwrap.dedent(source).encode(), "app.py").findings if f.code == "KRB203"]
    assert fixable == [False]


def test_a_call_the_view_does_not_offer_is_refused_naming_it() -> None:
    source = CONFLUENT.format(imports="from confluent_kafka import Consumer", annotation="Consumer").replace(
        "consumer.commit(asynchronous=False)", "consumer.poll(0)"
    )
    result = _migrate(source)
    assert result.new_source is None
    assert any("which uses consumer.poll (line 6) other than as a call the view offers as written; move that out of commit_pending()" in m.reason for m in result.manual), result.manual


def test_an_annotated_helper_in_another_module_is_refused_naming_the_annotation() -> None:
    """Repository mode follows the import, but widens only in the callback's own file."""
    files = {
        "app/__init__.py": b"",
        "app/main.py": textwrap.dedent(
            """\
            from confluent_kafka import Consumer

            from app.offsets import commit_pending


            def on_revoke(consumer, partitions):
                commit_pending(consumer, {})


            def main():
                c = Consumer({"group.id": "g"})
                c.subscribe(["a"], on_revoke=on_revoke)
            """
        ).encode(),
        "app/offsets.py": b"from confluent_kafka import Consumer\n\n\ndef commit_pending(consumer: Consumer, pending):\n    consumer.commit(asynchronous=False)\n",
    }
    done = migrate_repository(files)
    assert all(r.new_source is None for r in done.results.values())
    reasons = [m.reason for m in done.results["app/main.py"].manual]
    assert any("annotate it Consumer | RebalanceConsumer" in r for r in reasons), reasons


def test_a_kafka_python_listener_helper_annotated_is_refused_naming_the_annotation() -> None:
    result = _migrate(
        """
        from kafka import ConsumerRebalanceListener, KafkaConsumer


        def commit_all(consumer: KafkaConsumer) -> None:
            consumer.commit()


        class Listener(ConsumerRebalanceListener):
            def __init__(self, consumer):
                self.consumer = consumer

            def on_partitions_revoked(self, revoked):
                commit_all(self.consumer)

            def on_partitions_assigned(self, assigned):
                pass


        consumer = KafkaConsumer(group_id="g")
        consumer.subscribe(["a"], listener=Listener(consumer))
        """
    )
    assert result.new_source is None
    assert any("annotate it KafkaConsumer | RebalanceConsumer" in m.reason for m in result.manual), result.manual


def test_an_aioconsumer_helper_awaited_with_the_async_view() -> None:
    """confluent's AIOConsumer: the async helper, awaited in the callback, takes the async view."""
    result = _migrate(
        """
        from confluent_kafka.aio import AIOConsumer


        async def commit_all(consumer: AIOConsumer) -> None:
            await consumer.commit(asynchronous=False)


        async def on_revoke(consumer: AIOConsumer, partitions: list[object]) -> None:
            await commit_all(consumer)


        async def main() -> None:
            c = AIOConsumer({"group.id": "g"})
            await c.subscribe(["a"], on_revoke=on_revoke)
            await commit_all(c)
        """
    )
    assert not result.manual, result.manual
    assert result.new_source is not None
    after = result.new_source.decode()
    assert "async def commit_all(consumer: AIOConsumer | RebalanceConsumer) -> None:" in after
    assert "from rebalance_guard.confluent_kafka_aio import RebalanceConsumer" in after
