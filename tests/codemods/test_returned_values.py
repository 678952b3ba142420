# ruff: noqa: E501  (the "after" strings are the codemod's exact output; LibCST does not wrap)
"""A legacy listener's callback returning a value (issue 25; REAL_WORLD: a plain ``def``
revoke returning the consumer's commit coroutine): what the client does with the value
decides (``shapes/returned_values.py``). kafka-python ignores it, so does aiokafka for an
``async def``: the value becomes a statement (a pure one goes) and a bare ``return`` stays
where code would run on. aiokafka awaits a coroutine a ``def`` returns, and so does the
migrated listener: the view's coroutine stays returned. Refused, with the next step, where
something uses the value or it is not known whether the client awaited it."""

from __future__ import annotations

import textwrap

import pytest
from libcst.codemod import CodemodTest
from rebalance_codemods.api import migrate_source
from rebalance_codemods.commands import MigrateRebalanceListeners
from rebalance_lint.api import check_source


class TestReturnedValues(CodemodTest):
    TRANSFORM = MigrateRebalanceListeners

    def test_a_value_returned_in_a_loop_keeps_the_return(self) -> None:
        before = """
            from kafka import ConsumerRebalanceListener, KafkaConsumer


            class Seek(ConsumerRebalanceListener):
                def __init__(self, consumer, marks):
                    self.consumer = consumer
                    self.marks = marks

                def on_partitions_assigned(self, assigned):
                    for tp in assigned:
                        if tp in self.marks:
                            return self.consumer.seek(tp, self.marks[tp])
                    print("no marks")

                def on_partitions_revoked(self, revoked):
                    pass


            consumer = KafkaConsumer(group_id="g")
            consumer.subscribe(["t"], listener=Seek(consumer, {}))
        """
        after = """
            from kafka import KafkaConsumer
            from rebalance_guard.kafka_python import RebalanceConsumer, RebalanceListener, set_rebalance_listener


            class Seek(RebalanceListener):
                def __init__(self, marks):
                    self.marks = marks

                def on_partitions_assigned(self, assigned, consumer: RebalanceConsumer):
                    for tp in assigned:
                        if tp in self.marks:
                            consumer.seek(tp, self.marks[tp])
                            return
                    print("no marks")

                def on_partitions_revoked(self, revoked, consumer: RebalanceConsumer):
                    pass


            consumer = KafkaConsumer(group_id="g")
            set_rebalance_listener(consumer, Seek({}))
            consumer.subscribe(["t"])
        """
        self.assertCodemod(before, after, expected_warnings=[])

    def test_a_callback_returning_another_callbacks_value(self) -> None:
        """``return self.on_partitions_revoked(lost)``: both values go, the view passed on."""
        before = """
            from kafka import ConsumerRebalanceListener, KafkaConsumer


            class Commit(ConsumerRebalanceListener):
                def __init__(self, consumer):
                    self.consumer = consumer

                def on_partitions_revoked(self, revoked):
                    return self.consumer.commit()

                def on_partitions_lost(self, lost):
                    return self.on_partitions_revoked(lost)

                def on_partitions_assigned(self, assigned):
                    pass


            consumer = KafkaConsumer(group_id="g")
            consumer.subscribe(["t"], listener=Commit(consumer))
        """
        after = """
            from kafka import KafkaConsumer
            from rebalance_guard.kafka_python import RebalanceConsumer, RebalanceListener, set_rebalance_listener


            class Commit(RebalanceListener):

                def on_partitions_revoked(self, revoked, consumer: RebalanceConsumer):
                    consumer.commit()

                def on_partitions_lost(self, lost, consumer: RebalanceConsumer):
                    self.on_partitions_revoked(lost, consumer=consumer)

                def on_partitions_assigned(self, assigned, consumer: RebalanceConsumer):
                    pass


            consumer = KafkaConsumer(group_id="g")
            set_rebalance_listener(consumer, Commit())
            consumer.subscribe(["t"])
        """
        self.assertCodemod(before, after, expected_warnings=[])

    def test_aiokafka_def_returning_a_never_awaitable_value(self) -> None:
        before = """
            from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener


            class Log(ConsumerRebalanceListener):
                def on_partitions_revoked(self, revoked):
                    print("revoked", revoked)
                    return len(revoked) > 0

                def on_partitions_assigned(self, assigned):
                    pass


            async def main():
                consumer = AIOKafkaConsumer(group_id="g")
                consumer.subscribe(["t"], listener=Log())
        """
        after = """
            from aiokafka import AIOKafkaConsumer
            from rebalance_guard.aiokafka import RebalanceConsumer, RebalanceListener, set_rebalance_listener


            class Log(RebalanceListener):
                def on_partitions_revoked(self, revoked, consumer: RebalanceConsumer):
                    print("revoked", revoked)
                    len(revoked) > 0

                def on_partitions_assigned(self, assigned, consumer: RebalanceConsumer):
                    pass


            async def main():
                consumer = AIOKafkaConsumer(group_id="g")
                set_rebalance_listener(consumer, Log())
                consumer.subscribe(["t"])
        """
        self.assertCodemod(before, after, expected_warnings=[])


KAFKA = """
from kafka import ConsumerRebalanceListener, KafkaConsumer


class Listener(ConsumerRebalanceListener):
    def __init__(self, consumer, store):
        self.consumer = consumer
        self.store = store

    def on_partitions_revoked(self, revoked):
        {revoked}

    def on_partitions_assigned(self, assigned):
        pass
{extra}

consumer = KafkaConsumer(group_id="g")
consumer.subscribe(["t"], listener=Listener(consumer, []))
"""
AIOKAFKA = KAFKA.replace("from kafka import ConsumerRebalanceListener, KafkaConsumer", "from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener").replace(
    'consumer = KafkaConsumer(group_id="g")\nconsumer.subscribe',
    'async def main():\n    consumer = AIOKafkaConsumer(group_id="g")\n    consumer.subscribe',
)  # fmt: skip

REFUSED = [
    ("a value another callback uses", KAFKA, "return self.store.pop()",
     "\n    def on_partitions_lost(self, lost):\n        if self.on_partitions_revoked(lost):\n            print(lost)\n",
     "on_partitions_revoked returns a value (line 11), which the call at line 17 uses, and a RebalanceListener method returns nothing; compute that value in a helper both call first"),
    ("a generator", KAFKA, "yield self.store.pop()\n        return 1", "",
     "on_partitions_revoked returns a value (line 12), which the client ignores and a RebalanceListener method may not; drop the return value first"),
    ("a return sharing its line", KAFKA, "if revoked: return self.store.pop()", "",
     "on_partitions_revoked returns a value (line 11) on a line it shares with other code; put that return on a line of its own first"),
    ("aiokafka: a def returning what may be a coroutine", AIOKAFKA, "return self.store.flush()", "",
     "on_partitions_revoked returns a value (line 11), which aiokafka awaits if it is a coroutine (the migrated listener would await it whatever it is); make on_partitions_revoked async def and await it, or drop the value, first"),
    ("aiokafka: an async def returning the commit coroutine unawaited", AIOKAFKA.replace("    def on_partitions_revoked", "    async def on_partitions_revoked"),
     "return self.consumer.commit()", "",
     "on_partitions_revoked returns consumer.commit() without await (line 11), so the call never ran (KRB106); add the await first"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "template", "revoked", "extra", "reason"), REFUSED, ids=[r[0] for r in REFUSED]
)
def test_a_value_something_may_read_is_refused(
    name: str, template: str, revoked: str, extra: str, reason: str
) -> None:
    source = template.replace("{revoked}", revoked).replace("{extra}", extra)
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok" and result.new_source is None, result
    assert reason in [m.reason.partition(": ")[2] for m in result.manual], result.manual


@pytest.mark.parametrize("template", [KAFKA, AIOKAFKA], ids=["kafka-python", "aiokafka"])
def test_check_agrees_and_the_output_is_stable(template: str) -> None:
    """KRB2xx fixable exactly where migrate rewrites, nothing left after, idempotent."""
    source = template.replace("{revoked}", "return self.store.append(revoked) or True")
    source = source.replace("{extra}", "")
    if template is AIOKAFKA:  # aiokafka may await what a def returns: the view's coroutine
        source = source.replace("self.store.append(revoked) or True", "self.consumer.commit()")
    findings = [
        f for f in check_source(source.encode(), "app.py").findings if f.code.startswith("KRB2")
    ]
    assert findings and all(f.fixable for f in findings), findings
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok" and not result.manual and result.new_source is not None, result
    after = check_source(result.new_source, "app.py").findings
    assert not [f for f in after if f.code.startswith("KRB2")], after
    assert migrate_source(result.new_source, "app.py").new_source is None
    body = textwrap.dedent(result.new_source.decode().split("def on_partitions_revoked")[1])
    expected = "consumer.commit()" if template is AIOKAFKA else "self.store.append(revoked) or True"
    assert f"        {'return ' if template is AIOKAFKA else ''}{expected}\n" in body
