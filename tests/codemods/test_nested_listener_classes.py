"""A listener subclass that reuses its base's name (REAL_WORLD.md: "a subclass that reuses the
base's name", "a bare instance of the abstract base"): ``kafka.ConsumerRebalanceListener()``
creates the client's class, not this file's, so it is not an uncovered creation of the subclass
through an attribute. Attributes of anything else (``self.Listener(...)``, a module of the
project) are still refused: the codemod cannot tell them from the class."""

from __future__ import annotations

import pytest
from rebalance_codemods.api import migrate_source

from tests.codemods.examples import ROOT

FIXTURE = ROOT / "tests" / "codemods" / "fixtures" / "base_name_listener.py"


def _migrated(source: str) -> tuple[str | None, list[tuple[int, str]]]:
    result = migrate_source(source.encode(), "legacy.py")
    assert result.status == "ok", result.reason
    new = result.new_source.decode() if result.new_source is not None else None
    return new, [(m.line, m.reason) for m in result.manual]


def test_the_subclass_is_migrated_and_the_bare_base_stays_a_legacy_listener() -> None:
    new, manual = _migrated(FIXTURE.read_text())
    assert manual == []
    assert new is not None
    assert "class ConsumerRebalanceListener(RebalanceListener):" in new
    assert "def __init__(self, consumer" not in new  # the consumer is the callback's view
    assert (
        "    def on_partitions_revoked(self, revoked: set[TopicPartition], consumer: "
        "RebalanceConsumer) -> None:\n        consumer.commit()\n"
    ) in new
    assert (
        "            set_rebalance_listener(self.consumer, ConsumerRebalanceListener())\n"
        "            self.consumer.subscribe(topics)\n"
    ) in new
    # the base's bare instance is the client's class: registered as it is (a legacy listener)
    assert (
        "            set_rebalance_listener(self.consumer, kafka.ConsumerRebalanceListener())\n"
        "            self.consumer.subscribe(topics)\n"
    ) in new
    again, manual_again = _migrated(new)
    assert again is None and manual_again == []  # idempotent


BASE_NAME = """
import kafka
from kafka import KafkaConsumer

class ConsumerRebalanceListener(kafka.ConsumerRebalanceListener):
    def __init__(self, consumer):
        self.consumer = consumer

    def on_partitions_revoked(self, revoked):
        self.consumer.commit()

    def on_partitions_assigned(self, assigned):
        pass

consumer = KafkaConsumer(group_id="g")
consumer.subscribe(["a"], listener=ConsumerRebalanceListener(consumer))
other = KafkaConsumer(group_id="h")
other.subscribe(["b"], listener={creation}())
"""


def test_the_base_created_through_an_aliased_client_module_is_not_the_subclass() -> None:
    source = "import kafka as k\n" + BASE_NAME.format(creation="k.ConsumerRebalanceListener")
    new, manual = _migrated(source)
    assert manual == []
    assert new is not None and "class ConsumerRebalanceListener(RebalanceListener):" in new


def test_a_project_module_attribute_of_the_same_name_is_still_refused() -> None:
    """``helpers.ConsumerRebalanceListener()``: ``helpers`` is not a Kafka client, it could be
    this very module or re-export the class: refused, with the step that makes it followable."""
    source = "import helpers\n" + BASE_NAME.format(creation="helpers.ConsumerRebalanceListener")
    new, manual = _migrated(source)
    reason = (
        "listener class ConsumerRebalanceListener: it is created through an attribute, "
        "helpers.ConsumerRebalanceListener(...) at line 19, which the codemod cannot follow; "
        "move the class to module level and create it by its name there first"
    )
    assert (6, reason) in manual
    unchanged = (
        "class ConsumerRebalanceListener(kafka.ConsumerRebalanceListener):\n    def __init__"
    )
    assert new is None or unchanged in new  # the class is untouched


def test_a_client_module_patched_with_the_class_is_still_refused() -> None:
    """``kafka.ConsumerRebalanceListener = ConsumerRebalanceListener`` makes the client's name
    this class: the attribute call may create it, so the class is still refused."""
    source = (
        "import kafka\n"
        + BASE_NAME.format(creation="kafka.ConsumerRebalanceListener")
        + "kafka.ConsumerRebalanceListener = ConsumerRebalanceListener\n"
    )
    new, manual = _migrated(source)
    assert 6 in [at for at, _ in manual], manual
    unchanged = (
        "class ConsumerRebalanceListener(kafka.ConsumerRebalanceListener):\n    def __init__"
    )
    assert new is None or unchanged in new  # the class is untouched


NESTED = """
from kafka import ConsumerRebalanceListener, KafkaConsumer

class Runner{outer_bases}:
    class Listener(ConsumerRebalanceListener):
        def __init__(self, consumer):
            self.consumer = consumer

        def on_partitions_revoked(self, revoked):
            self.consumer.commit()

        def on_partitions_assigned(self, assigned):
            pass

    {decorator}def run({me}, consumer):
        consumer.subscribe(["a"], listener={creation}(consumer))
{tail}"""

MIGRATED_CLASS = (
    "    class Listener(RebalanceListener):\n\n"
    "        def on_partitions_revoked(self, revoked, consumer: RebalanceConsumer):\n"
    "            consumer.commit()\n"
)


def _nested(
    creation: str = "self.Listener",
    me: str = "self",
    decorator: str = "",
    tail: str = "",
    outer_bases: str = "",
) -> str:
    return NESTED.format(
        creation=creation, me=me, decorator=decorator, tail=tail, outer_bases=outer_bases
    )


@pytest.mark.parametrize(
    ("creation", "me", "decorator"),
    [
        ("self.Listener", "self", ""),
        ("this.Listener", "this", ""),  # the first parameter, whatever its name
        ("cls.Listener", "cls", "@classmethod\n    "),
        ("Runner.Listener", "self", ""),
        ("Runner.Listener", "consumer_", "@staticmethod\n    "),
    ],
)
def test_a_nested_class_created_through_its_outer_class_migrates(
    creation: str, me: str, decorator: str
) -> None:
    """``self.Listener(...)`` in a method of the class ``Listener`` is nested in (or
    ``cls.Listener`` in its classmethod, ``Runner.Listener`` anywhere) can only be that class:
    it migrates with its registration, the injected consumer becoming the view."""
    source = _nested(creation, me, decorator)
    new, manual = _migrated(source)
    assert manual == []
    assert new is not None
    assert MIGRATED_CLASS in new
    assert "def __init__(self, consumer)" not in new
    assert (
        f"        set_rebalance_listener(consumer, {creation}())\n"
        '        consumer.subscribe(["a"])\n'
    ) in new
    again, manual_again = _migrated(new)
    assert again is None and manual_again == []  # idempotent


UNFOLLOWABLE = [
    # a subclass in the file binds the name again: self.Listener may be its class
    (
        "overridden-by-a-subclass",
        _nested(tail="\nclass Other(Runner):\n    Listener = None\n"),
    ),
    # x.Listener = ... anywhere: the attribute may be anything
    ("patched", _nested(tail="\nRunner.Listener = ConsumerRebalanceListener\n")),
    # a staticmethod's first parameter is not the instance
    ("static-first-parameter", _nested("me.Listener", "me", "@staticmethod\n    ")),
    # self rebound in the method: no longer the instance
    (
        "self-rebound",
        _nested().replace(
            "        consumer.subscribe", "        self = other()\n        consumer.subscribe"
        ),
    ),
]


@pytest.mark.parametrize(("case", "source"), UNFOLLOWABLE, ids=[c for c, _ in UNFOLLOWABLE])
def test_an_attribute_that_may_be_another_class_is_still_refused(case: str, source: str) -> None:
    new, manual = _migrated(source)
    reasons = [reason for _, reason in manual]
    assert any("it is created through an attribute" in r for r in reasons), (case, manual)
    assert new is None or "    class Listener(ConsumerRebalanceListener):\n" in new  # untouched
