# ruff: noqa: E501  (sources and reasons read best unwrapped)
"""A callback that hands its consumer to a helper of the same file still migrates when the
helper only calls what the view offers (REAL_WORLD.md: "commit hidden behind one helper",
"a helper that takes the consumer"; in the GitHub sample a confluent on_assign calls a nested
_check_partitions_at_eof(consumer, partitions) that reads committed offsets and watermarks).

The helper is left as it is and gets the view. That is sound only if its parameter is not
annotated (a type checker would reject the view for Consumer; an annotation that is exactly the
client's consumer class is widened to ``Consumer | RebalanceConsumer``: test_annotated_helpers.py),
it never keeps the consumer, it
calls no method the view lacks (nor assign, nor commit positionally on confluent's view), and an
async helper is awaited inside the callback.
"""

from __future__ import annotations

import textwrap

import pytest
from rebalance_codemods.api import migrate_source
from rebalance_codemods.results import MigrationResult

CONFLUENT = """
from confluent_kafka import Consumer, TopicPartition


def run(topic):
    consumer = Consumer({{"group.id": "g"}})
    eof = set()

{helper}

    def on_assign(consumer, partitions):
        {call}

    consumer.subscribe([topic], on_assign=on_assign)
"""

HELPER = """\
    def check_at_eof(consumer, partitions):
        for tp in consumer.committed(partitions):
            low, high = consumer.get_watermark_offsets(tp)
            if tp.offset >= high:
                eof.add((tp.topic, tp.partition))"""


def _migrate(source: str) -> MigrationResult:
    result = migrate_source(textwrap.dedent(source).encode(), "app.py")
    assert result.status == "ok", result.reason
    return result


def test_a_nested_helper_reading_offsets_gets_the_view() -> None:
    result = _migrate(CONFLUENT.format(helper=HELPER, call="check_at_eof(consumer, partitions)"))
    assert not result.manual, result.manual
    assert result.new_source is not None
    after = result.new_source.decode()
    assert HELPER in after, "the helper is unchanged"
    assert "def on_partitions_assigned(self, partitions, consumer: RebalanceConsumer):\n            check_at_eof(consumer, partitions)" in after


@pytest.mark.parametrize(
    "call",
    ["check_at_eof(partitions=partitions, consumer=consumer)", "print(check_at_eof(consumer, partitions))"],
)
def test_the_helper_may_be_called_by_keyword_or_inside_an_expression(call: str) -> None:
    result = _migrate(CONFLUENT.format(helper=HELPER, call=call))
    assert not result.manual, result.manual


def test_a_lambda_calling_a_module_helper() -> None:
    """REAL_WORLD.md: ``on_assign=lambda c, p: reset(c, p, flag)``."""
    result = _migrate(
        """
        from confluent_kafka import Consumer

        def reset(consumer, partitions, flag):
            if flag:
                consumer.pause(partitions)

        c = Consumer({})
        c.subscribe(["a"], on_assign=lambda c, p: reset(c, p, True))
        """
    )
    assert not result.manual, result.manual
    assert result.new_source is not None
    assert "c: RebalanceConsumer) -> None:\n        reset(c, p, True)" in result.new_source.decode()


def test_a_helper_handing_it_on_to_another_helper_and_logging_it() -> None:
    helper = """\
    def commit_now(c):
        print("committing on", c)
        c.commit(asynchronous=False)

    def flush(consumer):
        commit_now(consumer)"""
    result = _migrate(CONFLUENT.format(helper=helper, call="flush(consumer)"))
    assert not result.manual, result.manual


REFUSED = [
    ("annotated other than with the consumer class", "    def check(consumer: Consumer | None):\n        consumer.assignment()"),
    ("stores it", "    def check(consumer):\n        global kept\n        kept = consumer"),
    ("polls", "    def check(consumer):\n        consumer.poll(0)"),
    ("assigns", "    def check(consumer):\n        consumer.assign([])"),
    ("positional commit", "    def check(consumer):\n        consumer.commit(None, [])"),
    ("decorated", "    @functools.cache\n    def check(consumer):\n        consumer.assignment()"),
    ("more than one definition", "    def check(consumer):\n        consumer.assignment()\n    def check(consumer):\n        consumer.assignment()"),
    ("passed on to something unknown", "    def check(consumer):\n        other(consumer)"),
    ("recursion past the depth", "    def check(consumer):\n        check(consumer)"),
]


@pytest.mark.parametrize(("name", "helper"), REFUSED, ids=[r[0] for r in REFUSED])
def test_any_other_helper_is_still_refused(name: str, helper: str) -> None:
    result = _migrate(CONFLUENT.format(helper=helper, call="check(consumer)"))
    assert result.new_source is None
    assert any("on_assign uses the consumer other than to call a method" in m.reason and "passes it to check()" in m.reason for m in result.manual), result.manual


AIO = """
from confluent_kafka.aio import AIOConsumer


async def run(topic):
    consumer = AIOConsumer({{"group.id": "g"}})

    async def commit_all(consumer):
        {helper_body}

    async def on_revoke(consumer, partitions):
        {call}

    await consumer.subscribe([topic], on_revoke=on_revoke)
"""


def test_an_awaited_async_helper_that_awaits_the_view_migrates() -> None:
    result = _migrate(AIO.format(helper_body="await consumer.commit(asynchronous=False)", call="await commit_all(consumer)"))
    assert not result.manual, result.manual


@pytest.mark.parametrize(
    ("helper_body", "call"),
    [
        ("await consumer.commit(asynchronous=False)", "asyncio.ensure_future(commit_all(consumer))"),  # runs after the callback
        ("await consumer.commit(asynchronous=False)", "commit_all(consumer)"),  # never awaited
        ("consumer.commit(asynchronous=False)", "await commit_all(consumer)"),  # the commit never runs
    ],
)
def test_an_async_helper_that_could_outlive_the_view_is_refused(helper_body: str, call: str) -> None:
    result = _migrate(AIO.format(helper_body=helper_body, call=call))
    assert result.new_source is None
    assert any("passes it to commit_all()" in m.reason for m in result.manual), result.manual


def test_a_listener_handing_its_injected_consumer_to_a_module_helper() -> None:
    result = _migrate(
        """
        from kafka import ConsumerRebalanceListener, KafkaConsumer


        def commit_all(consumer, pending):
            if pending:
                consumer.commit(pending)
                pending.clear()


        class Listener(ConsumerRebalanceListener):
            def __init__(self, consumer, pending):
                self.consumer = consumer
                self.pending = pending

            def on_partitions_revoked(self, revoked):
                commit_all(self.consumer, self.pending)

            def on_partitions_assigned(self, assigned):
                pass


        consumer = KafkaConsumer(group_id="g")
        consumer.subscribe(["a"], listener=Listener(consumer, {}))
        """
    )
    assert not result.manual, result.manual
    assert result.new_source is not None
    after = result.new_source.decode()
    assert "commit_all(consumer, self.pending)" in after
    assert "self.consumer" not in after


def test_a_method_of_the_owner_class_as_helper() -> None:
    """``self.warm(consumer, partitions)`` in a callback that is a method of the consumer's
    owner class: the method is found through ``self``, its own ``self`` skipped."""
    result = _migrate(
        """
        from confluent_kafka import Consumer


        class Processor:
            def __init__(self, config):
                self.consumer = Consumer(config)
                self.offsets = {}

            def start(self):
                self.consumer.subscribe(["edits"], on_assign=self.on_assign)

            def on_assign(self, consumer, partitions):
                self.warm(consumer, partitions)

            def warm(self, consumer, partitions):
                for tp in consumer.committed(partitions):
                    self.offsets[tp.partition] = tp.offset
        """
    )
    assert not result.manual, result.manual


def test_a_method_helper_that_polls_is_refused() -> None:
    result = _migrate(
        """
        from confluent_kafka import Consumer


        class Processor:
            def __init__(self, config):
                self.consumer = Consumer(config)

            def start(self):
                self.consumer.subscribe(["edits"], on_assign=self.on_assign)

            def on_assign(self, consumer, partitions):
                self.drain(consumer)

            def drain(self, consumer):
                consumer.poll(0)
        """
    )
    assert result.new_source is None
    assert any("passes it to self.drain()" in m.reason for m in result.manual), result.manual


HOOKS = """
from confluent_kafka import Consumer


class Processor:
    def __init__(self, config):
        self.consumer = Consumer(config)

    def start(self):
        self.consumer.subscribe(["edits"], on_assign=self.on_assign)

    def on_assign(self, consumer, partitions):
        self.warm(consumer, partitions)

    def warm(self, consumer, partitions):
        {body}
{subclass}
"""


@pytest.mark.parametrize(
    ("body", "subclass", "reason"),
    [
        ('"""Subclasses build their state here."""', "", "a method that does nothing here (a hook for subclasses to override)"),
        ("raise NotImplementedError", "", "a method that does nothing here"),
        ("consumer.committed(partitions)", "\n\nclass Polling(Processor):\n    def warm(self, consumer, partitions):\n        consumer.poll(0)\n", "which class Polling (line 19) overrides"),
    ],
)
def test_a_method_subclasses_override_is_refused(body: str, subclass: str, reason: str) -> None:
    """``self.warm(consumer)`` runs whatever a subclass puts there: a hook left empty for
    subclasses (anywhere) to fill in, or a method a subclass of this file overrides."""
    result = _migrate(HOOKS.format(body=body, subclass=subclass))
    assert result.new_source is None
    assert any("passes it to self.warm(), " + reason in m.reason and "call the consumer's methods in the callback itself" in m.reason for m in result.manual), result.manual
