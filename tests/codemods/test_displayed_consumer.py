# ruff: noqa: E501  (the "after" strings are the codemod's exact output; LibCST does not wrap)
"""A callback that prints or logs its consumer still migrates (real application code).

Application code logs the consumer it gets (``print("assigned", consumer, partitions)``,
``'assign {} on {}'.format(consumer, partitions)``, ``logger.info("%s", consumer)``). The
view's ``repr`` names its callback, so handing it there changes only the text. Any other use
(written to as a file, handed to a helper, a non-logger's ``info()``) is still refused.
"""

from __future__ import annotations

import textwrap

import pytest
from rebalance_codemods.api import migrate_source


def _migrated(source: str) -> str:
    result = migrate_source(textwrap.dedent(source).encode(), "app.py")
    assert result.status == "ok", result.reason
    assert not result.manual, [(m.line, m.reason) for m in result.manual]
    assert result.new_source is not None
    return result.new_source.decode()


CONFLUENT = """
import logging

from confluent_kafka import Consumer

log = logging.getLogger(__name__)


def run(topic):
    consumer = Consumer({{"group.id": "g"}})

    def on_assign(consumer, partitions):
        {shown}

    def on_revoke(consumer, partitions):
        consumer.commit(asynchronous=False)

    consumer.subscribe([topic], on_assign=on_assign, on_revoke=on_revoke)
"""

SHOWN = [
    'print("assigned", consumer, partitions)',
    "print('assign {} on partitions {}'.format(consumer, partitions))",
    "print('assign {c} on {p}'.format(c=consumer, p=partitions))",
    'log.info("assigned %s to %s", partitions, consumer)',
    'logging.warning("assigned %s to %s", partitions, consumer)',
    'print(f"assigned {partitions} to {consumer!r}")',
    'print("assigned %s to %s" % (partitions, consumer))',
    'print("consumer: %s" % consumer)',
    "print(str(consumer), repr(consumer))",
]


@pytest.mark.parametrize("shown", SHOWN)
def test_a_confluent_callback_that_shows_its_consumer_migrates(shown: str) -> None:
    after = _migrated(CONFLUENT.format(shown=shown))
    assert "class RebalanceCallbacks(RebalanceListener):" in after
    assert "def on_partitions_assigned(self, partitions, consumer: RebalanceConsumer):" in after
    assert shown in after, "the shown consumer is now the view, under the same name"
    assert "subscribe(consumer, [topic], RebalanceCallbacks())" in after


NOT_SHOWN = [
    ("print(partitions, file=consumer)", "passes it to print()"),
    ("catalog.info(consumer)", "passes it to catalog.info()"),
    ("keep(consumer)", "passes it to keep()"),
    ("text = consumer", "stores it"),
    ("print('{}'.format(partitions) + consumer)", "uses it as a value"),
    ("print(name.format(consumer))", "passes it to name.format()"),
]


@pytest.mark.parametrize(("use", "what"), NOT_SHOWN)
def test_any_other_use_of_the_consumer_is_still_refused(use: str, what: str) -> None:
    source = textwrap.dedent(CONFLUENT.format(shown=use))
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok", result.reason
    assert result.new_source is None
    reasons = [m.reason for m in result.manual]
    assert any(f"on_assign uses the consumer other than to call a method (line 13): {what}" in r for r in reasons), reasons


def test_the_real_shape_a_bound_method_formatting_its_consumer() -> None:
    """REAL_WORLD: a consumer class registering its own method, which prints the consumer."""
    after = _migrated(
        """
        from confluent_kafka import Consumer


        class ProtoConsumer:
            def __init__(self, conf, topic):
                self.consumer = Consumer(conf)
                self.topic = topic

            def _on_assign(self, consumer, partitions):
                print('assign {} on partitions {}'.format(consumer, partitions))

            def run(self):
                self.consumer.subscribe([self.topic], on_assign=self._on_assign)
                while True:
                    self.consumer.poll(1.0)
        """
    )
    assert after == textwrap.dedent(
        """
        from confluent_kafka import Consumer
        from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe


        class ProtoConsumer(RebalanceListener):
            def __init__(self, conf, topic):
                self.consumer = Consumer(conf)
                self.topic = topic

            def on_partitions_assigned(self, partitions, consumer: RebalanceConsumer):
                print('assign {} on partitions {}'.format(consumer, partitions))

            def run(self):
                subscribe(self.consumer, [self.topic], self)
                while True:
                    self.consumer.poll(1.0)
        """
    )


def test_a_listener_logging_its_injected_consumer_logs_the_view() -> None:
    after = _migrated(
        """
        import logging

        from kafka import ConsumerRebalanceListener, KafkaConsumer

        logger = logging.getLogger(__name__)


        class Listener(ConsumerRebalanceListener):
            def __init__(self, consumer):
                self.consumer = consumer

            def on_partitions_revoked(self, revoked):
                logger.info("committing %s on %s", revoked, self.consumer)
                self.consumer.commit()

            def on_partitions_assigned(self, assigned):
                pass


        consumer = KafkaConsumer(group_id="g")
        consumer.subscribe(["a"], listener=Listener(consumer))
        """
    )
    assert 'logger.info("committing %s on %s", revoked, consumer)' in after
    assert "self.consumer" not in after
