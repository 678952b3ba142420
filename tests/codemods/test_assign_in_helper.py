# ruff: noqa: E501  (the "after" strings are the codemod's exact output; LibCST does not wrap)
"""``on_assign`` ending with a helper that assigns (``shapes/assign_in_helper.py``): the
callback's last statement calls a method of its class or a function of the file with its own
consumer and partitions, and the helper ends with ``consumer.assign(partitions)`` (or any
assign a callback's own body may end with). The helper's assign becomes the seek loop the
callback's own would, and the helper takes the view. Anything else stays refused with its next
step. The broker proof: tests/integration/test_confluent_kafka_assign_in_helper.py."""

from __future__ import annotations

import textwrap

import pytest
from rebalance_codemods.api import migrate_source
from rebalance_lint.api import check_source


def _migrated(before: str) -> str:
    source = textwrap.dedent(before)
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok" and not result.manual, result
    assert result.new_source is not None
    after = result.new_source.decode()
    assert migrate_source(after.encode(), "app.py").new_source is None  # idempotent
    return after


def _krb2xx(source: str) -> list[tuple[str, bool]]:
    findings = check_source(textwrap.dedent(source).encode(), "app.py").findings
    return [(f.code, f.fixable) for f in findings if f.code.startswith("KRB2")]


#: the reader from real code: a method helper moving every partition to its end
READER = """
    from confluent_kafka import OFFSET_END, Consumer


    class Reader:
        def __init__(self, config):
            self.consumer = Consumer(config)

        def start(self, topic):
            self.consumer.subscribe([topic], on_assign=self._on_assign)

        def _on_assign(self, consumer, partitions):
            self.logger().info("Assignment:", partitions)
            self._reset_offset(consumer, partitions)

        def _reset_offset(self, consumer, partitions):
            for p in partitions:
                p.offset = OFFSET_END
            consumer.assign(partitions)
"""


def test_the_readers_helper_seeks_each_partition_on_the_view() -> None:
    assert _migrated(READER) == textwrap.dedent(
        """
        from confluent_kafka import OFFSET_END, Consumer
        from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe


        class Reader(RebalanceListener):
            def __init__(self, config):
                self.consumer = Consumer(config)

            def start(self, topic):
                subscribe(self.consumer, [topic], self)

            def on_partitions_assigned(self, partitions, consumer: RebalanceConsumer):
                self.logger().info("Assignment:", partitions)
                self._reset_offset(consumer, partitions)

            def _reset_offset(self, consumer, partitions):
                for p in partitions:
                    p.offset = OFFSET_END
                for partition in partitions:
                    consumer.seek(partition)
        """
    )


#: the tool from real code: a lambda handing its arguments and a flag to a function
REPLAY = """
    import argparse

    from confluent_kafka import OFFSET_BEGINNING, Consumer


    def reset(consumer, partitions, replay):
        if replay:
            for p in partitions:
                p.offset = OFFSET_BEGINNING
        consumer.assign(partitions)


    def main():
        args = argparse.ArgumentParser().parse_args()
        consumer = Consumer({"group.id": "g"})
        consumer.subscribe(["t"], on_assign=lambda c, p: reset(c, p, args.replay))
"""


def test_the_lambdas_function_seeks_each_partition_on_the_view() -> None:
    assert _migrated(REPLAY) == textwrap.dedent(
        """
        import argparse

        from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition
        from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe


        def reset(consumer, partitions, replay):
            if replay:
                for p in partitions:
                    p.offset = OFFSET_BEGINNING
            for partition in partitions:
                consumer.seek(partition)


        def main():
            args = argparse.ArgumentParser().parse_args()
            consumer = Consumer({"group.id": "g"})

            class RebalanceCallbacks(RebalanceListener):
                def on_partitions_assigned(self, p: list[TopicPartition], c: RebalanceConsumer) -> None:
                    reset(c, p, args.replay)

            subscribe(consumer, ["t"], RebalanceCallbacks())
        """
    )


AIO = """
    from confluent_kafka import OFFSET_END
    from confluent_kafka.aio import AIOConsumer


    async def to_end(consumer: AIOConsumer, partitions) -> None:
        for p in partitions:
            p.offset = OFFSET_END
        await consumer.incremental_assign(partitions)


    async def main():
        consumer = AIOConsumer({"group.id": "g"})

        async def on_assign(consumer, partitions):
            print("assigned", partitions)
            await to_end(consumer, partitions)

        await consumer.subscribe(["t"], on_assign=on_assign)
"""


def test_an_awaited_helper_on_an_aioconsumer_awaits_its_seeks() -> None:
    """The annotated consumer parameter is widened to take the view too (annotated_helpers)."""
    assert _migrated(AIO) == textwrap.dedent(
        """
        from confluent_kafka import OFFSET_END
        from confluent_kafka.aio import AIOConsumer
        from rebalance_guard.confluent_kafka_aio import RebalanceConsumer, RebalanceListener, subscribe


        async def to_end(consumer: AIOConsumer | RebalanceConsumer, partitions) -> None:
            for p in partitions:
                p.offset = OFFSET_END
            for partition in partitions:
                await consumer.seek(partition)


        async def main():
            consumer = AIOConsumer({"group.id": "g"})

            class RebalanceCallbacks(RebalanceListener):
                async def on_partitions_assigned(self, partitions, consumer: RebalanceConsumer):
                    print("assigned", partitions)
                    await to_end(consumer, partitions)

            await subscribe(consumer, ["t"], RebalanceCallbacks())
        """
    )


FUNCTION = """
    from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition


    def start(consumer, partitions, since):
        {helper}


    def run(since):
        consumer = Consumer({{"group.id": "g"}})

        def on_assign(consumer, partitions):
            {callback}

        consumer.subscribe(["t"], on_assign=on_assign)
"""


def _function(helper: str, callback: str = "start(consumer, partitions, since)") -> str:
    return FUNCTION.format(helper=helper, callback=callback)


@pytest.mark.parametrize(
    ("helper", "seeks"),
    [
        # what committed() answered, moved back
        (
            "committed = consumer.committed(partitions, timeout=10)\n        for tp in committed:\n            tp.offset -= 5\n        consumer.assign(committed)",
            "for partition in committed:\n        consumer.seek(partition)",
        ),
        # what offsets_for_times() answered
        (
            "for p in partitions:\n            p.offset = since\n        consumer.assign(consumer.offsets_for_times(partitions))",
            "for partition in consumer.offsets_for_times(partitions):\n        consumer.seek(partition)",
        ),
        # each partition at an offset
        (
            "consumer.incremental_assign([TopicPartition(p.topic, p.partition, OFFSET_BEGINNING) for p in partitions])",
            "for p in partitions:\n        consumer.seek(TopicPartition(p.topic, p.partition, OFFSET_BEGINNING))",
        ),
        # a final assign on each branch
        (
            "if since:\n            consumer.assign(partitions)\n        else:\n            consumer.incremental_assign(partitions)",
            "if since:\n        for partition in partitions:\n            consumer.seek(partition)\n    else:\n        for partition in partitions:\n            consumer.seek(partition)",
        ),
    ],
    ids=["committed", "offsets_for_times", "at offsets", "branches"],
)
def test_every_assign_a_callback_may_end_with_may_end_the_helper(helper: str, seeks: str) -> None:
    after = _migrated(_function(helper))
    assert f"    {seeks}\n\n\ndef run(since):" in after, after  # the seeks end the helper


@pytest.mark.parametrize(
    "callback",
    [
        "start(partitions=partitions, consumer=consumer, since=since)",  # by keyword
        "print(partitions)\n            if since:\n                start(consumer, partitions, since)",  # last under an if
    ],
)
def test_the_call_may_pass_keywords_or_end_a_branch(callback: str) -> None:
    after = _migrated(_function("consumer.assign(partitions)", callback))
    assert "    for partition in partitions:\n        consumer.seek(partition)\n" in after


@pytest.mark.parametrize(
    "before",
    [READER, REPLAY, AIO, _function("consumer.assign(partitions)")],
    ids=["method", "lambda", "aio", "function"],
)
def test_check_calls_the_registration_fixable_and_nothing_is_left_after(before: str) -> None:
    findings = _krb2xx(before)
    assert findings and all(fixable for _, fixable in findings), findings
    assert _krb2xx(_migrated(before)) == []


OWNER = """\
from confluent_kafka import OFFSET_END, Consumer, TopicPartition


class Reader:
    def __init__(self, config):
        self.consumer = Consumer(config)
        self.resetter = Resetter()

    def start(self):
        self.consumer.subscribe(["a"], on_assign=self._on_assign)

    def _on_assign(self, consumer, partitions):
        {callback}

    def _reset_offset(self, consumer, partitions):
        for p in partitions:
            p.offset = OFFSET_END
        {assign}
{tail}"""


def _owner(
    callback: str = "self._reset_offset(consumer, partitions)",
    assign: str = "consumer.assign(partitions)",
    tail: str = "",
) -> str:
    return OWNER.format(callback=callback, assign=assign, tail=textwrap.indent(tail, "    "))


#: (what is different, the source, the whole reason)
REFUSED = [
    ("helper also called elsewhere", _owner(tail="\ndef rewind(self):\n    self._reset_offset(self.consumer, self.consumer.assignment())\n"),
     "_on_assign uses the consumer other than to call a method (line 13): passes it to self._reset_offset(), which calls consumer.assign() (line 18) and is also used on line 21, where it gets no view (its assign would become seeks there too); give the callback a helper of its own (or call self._reset_offset() from this callback alone), then run migrate again"),
    ("helper given other partitions", _owner(callback="self._reset_offset(consumer, partitions[:1])"),
     "_on_assign uses the consumer other than to call a method (line 13): passes it to self._reset_offset(), which calls consumer.assign() (line 18) and _on_assign calls it as self._reset_offset(consumer, partitions[:1]), not with its own partitions once, but the adapter assigns all of them after the callback, whatever self._reset_offset() assigns; pass partitions itself, or migrate it by hand"),
    ("helper taking them in another order", _owner(callback="self._reset_offset(partitions, consumer)").replace("_reset_offset(self, consumer, partitions)", "_reset_offset(self, partitions, consumer)"),
     "_on_assign uses the consumer other than to call a method (line 13): passes it to self._reset_offset(), which calls consumer.assign() (line 18) and takes _on_assign's partitions other than as its parameter right after consumer; make self._reset_offset() take them in that order, then run migrate again"),
    ("assign not last in helper", _owner(assign="consumer.assign(partitions)\n        print('assigned')"),
     "_on_assign uses the consumer other than to call a method (line 13): passes it to self._reset_offset(), which calls consumer.assign() (line 18) other than as its last statement; make that call the last thing self._reset_offset() does (nothing after it), then run migrate again"),
    ("assign in a loop in the helper", _owner(assign="for _ in range(2):\n            consumer.assign(partitions)"),
     "_on_assign uses the consumer other than to call a method (line 13): passes it to self._reset_offset(), which calls consumer.assign() (line 19) other than as its last statement; make that call the last thing self._reset_offset() does (nothing after it), then run migrate again"),
    ("helper not the callback's last statement", _owner(callback="self._reset_offset(consumer, partitions)\n        print('done')"),
     "_on_assign uses the consumer other than to call a method (line 13): passes it to self._reset_offset(), which calls consumer.assign() (line 19) but that call is not the last statement of _on_assign; make it the callback's last statement (the seeks it becomes must end the callback: the adapter assigns once it returns), then run migrate again"),
    ("helper reached through another object", _owner(callback="self.resetter.reset(consumer, partitions)"),
     "_on_assign uses the consumer other than to call a method (line 13): passes it to self.resetter.reset(), a method of another object, which the codemod cannot follow to the one definition that runs (its class, or a subclass elsewhere, decides); call the consumer's methods in the callback itself (inline that call, or make it return what the callback should do), then run migrate again"),
    ("the consumer passed twice", _owner(callback="self._reset_offset(consumer, partitions, consumer)").replace("_reset_offset(self, consumer, partitions)", "_reset_offset(self, consumer, partitions, other)"),
     "_on_assign uses the consumer other than to call a method (line 13): passes it to self._reset_offset(), which calls consumer.assign() (line 18) and _on_assign passes its consumer to it more than once; pass it once, then run migrate again"),
    ("the callback changes its list", _owner(callback="partitions.append(TopicPartition('b', 0))\n        self._reset_offset(consumer, partitions)"),
     "_on_assign uses the consumer other than to call a method (line 14): passes it to self._reset_offset(), which calls consumer.assign() (line 19) and _on_assign changes or aliases its partitions list first (line 13), which the adapter assigns after the callback as it was given; leave the list as it is, or migrate it by hand"),
    ("the helper changes its list", _owner(assign="partitions.pop()\n        consumer.assign(partitions)"),
     "_on_assign uses the consumer other than to call a method (line 13): passes it to self._reset_offset(), which calls consumer.assign() (line 19), and changes or aliases its partitions list (line 18), which the adapter assigns after the callback as it was given; leave the list as it is, or migrate it by hand"),
    ("the helper assigns fewer partitions", _owner(assign="consumer.assign([TopicPartition(p.topic, p.partition, 0) for p in partitions if p.partition])"),
     "_on_assign uses the consumer other than to call a method (line 13): passes it to self._reset_offset(), where consumer.assign() does not assign exactly the callback's partitions, which the adapter assigns after the callback (line 18); assign those (pause on the view the ones not to be consumed), or use assign() without subscribe() for partitions of your choosing, then run migrate again"),
    ("the helper uses the consumer otherwise", _owner(assign="consumer.poll(0)\n        consumer.assign(partitions)"),
     "_on_assign uses the consumer other than to call a method (line 13): passes it to self._reset_offset(), which uses consumer.poll (line 18) other than as a call the view offers as written; move that out of self._reset_offset() (or call the consumer's methods in the callback itself), then run migrate again"),
]  # fmt: skip
#: every reason this shape gives (test_refusals.py holds each planner reason to a case)
REASONS = [reason for *_, reason in REFUSED]


@pytest.mark.parametrize(("case", "source", "reason"), REFUSED, ids=[c[0] for c in REFUSED])
def test_anything_else_stays_refused_with_its_reason(case: str, source: str, reason: str) -> None:
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok" and result.new_source is None, result
    assert [(m.line, m.reason) for m in result.manual] == [(10, reason)], result.manual
    assert _krb2xx(source) == [("KRB203", False)]  # check agrees: not fixable


AIO_REFUSED = [
    ("an assign not awaited", "consumer.assign(partitions)", "await to_end(consumer, partitions)",
     "passes it to to_end(), which calls consumer.assign() without await (line 9), so the call never ran (KRB106); add the await first"),
    ("a helper not awaited", "await consumer.assign(partitions)", "to_end(consumer, partitions)",
     "passes it to to_end(), a coroutine not awaited there, which may run after the view expired; await it in the callback, then run migrate again"),
]  # fmt: skip
REASONS += [reason for *_, reason in AIO_REFUSED]


@pytest.mark.parametrize(
    ("case", "assign", "call", "reason"), AIO_REFUSED, ids=[c[0] for c in AIO_REFUSED]
)
def test_on_an_aioconsumer_what_is_not_awaited_stays_refused(
    case: str, assign: str, call: str, reason: str
) -> None:
    source = (
        textwrap.dedent(AIO)
        .replace("await consumer.incremental_assign(partitions)", assign)
        .replace("await to_end(consumer, partitions)", call)
    )
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok" and result.new_source is None, result
    assert [m.reason for m in result.manual] == [
        f"on_assign uses the consumer other than to call a method (line 17): {reason}"
    ]


TWO_ROLES = """\
from confluent_kafka import Consumer


def start(consumer, partitions):
    consumer.assign(partitions)


def on_rebalance(consumer, partitions):
    start(consumer, partitions)


consumer = Consumer({"group.id": "g"})
consumer.subscribe(["t"], on_assign=on_rebalance, on_revoke=on_rebalance)
"""
TWO_ROLES_REASON = (
    "on_rebalance is registered for two roles and passes its consumer to a helper calling "
    "consumer.assign() (line 5), which each role replaces differently; split it into one per "
    "role"
)
REASONS.append(TWO_ROLES_REASON)


def test_a_def_in_two_roles_ending_with_an_assigning_helper_stays_refused() -> None:
    """As a def calling consumer.assign() itself (shapes/two_roles.py): the revocation would
    seek the revoked partitions."""
    result = migrate_source(TWO_ROLES.encode(), "app.py")
    assert result.new_source is None
    assert [(m.line, m.reason) for m in result.manual] == [(13, TWO_ROLES_REASON)]


def test_a_callback_kept_for_another_caller_keeps_the_old_refusal() -> None:
    """A callback also called elsewhere keeps its body (its consumer stays the real one), so
    its helper's assign cannot become seeks: the refusal that names the step stays."""
    source = _owner(
        tail="\ndef replay(self):\n    self._on_assign(self.consumer, self.consumer.assignment())\n"
    )
    result = migrate_source(source.encode(), "app.py")
    assert result.new_source is None
    (manual,) = result.manual
    assert manual.reason.endswith(
        "passes it to self._reset_offset(), which calls consumer.assign() (line 18), which "
        "only the callback's own last statement may do (the adapter does it after the "
        "callback); leave that call out of self._reset_offset() and make it the last "
        "statement of the callback (a def), then run migrate again"
    ), manual.reason


def test_a_revocation_ending_with_an_assigning_helper_keeps_the_old_refusal() -> None:
    source = _owner().replace("on_assign=self._on_assign", "on_revoke=self._on_assign")
    result = migrate_source(source.encode(), "app.py")
    assert result.new_source is None
    (manual,) = result.manual
    assert "which only the callback's own last statement may do" in manual.reason
