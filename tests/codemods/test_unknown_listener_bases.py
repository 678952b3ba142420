"""A listener class the planner does not know as the client's is refused with a reason that
is true of its bases: deriving from nothing is a bug both clients' ``subscribe()`` raise on
(KRB114), directly or through classes of the file; an imported base may derive from the
client's listener where the codemod does not look, so the refusal says where to look instead
of claiming a bug (it used to say "derives from no client listener base" for any base)."""

from __future__ import annotations

import textwrap

import pytest
from rebalance_codemods.api import migrate_source
from rebalance_lint.rules.unbased_listeners import LISTENER_WITHOUT_BASE

LISTENER = """
from kafka import KafkaConsumer
{imports}
{classes}
class Listener({bases}):
    def on_partitions_revoked(self, revoked):
        print("revoked", revoked)

    def on_partitions_assigned(self, assigned):
        print("assigned", assigned)


consumer = KafkaConsumer(group_id="g")
consumer.subscribe(["orders"], listener=Listener())
"""


def _reasons(imports: str = "", classes: str = "", bases: str = "") -> list[str]:
    source = LISTENER.format(imports=imports, classes=classes, bases=bases)
    result = migrate_source(textwrap.dedent(source).encode(), "app.py")
    assert result.new_source is None or not result.manual
    return [m.reason for m in result.manual]


@pytest.mark.parametrize("bases", ["", "object"])
def test_a_class_deriving_from_nothing_names_krb114(bases: str) -> None:
    (reason,) = _reasons(bases=bases)
    assert reason.startswith("listener class Listener derives from no client listener base")
    assert "(KRB114)" in reason


@pytest.mark.parametrize(
    "classes",
    [
        "class Base:\n    pass\n",
        "class Root(object):\n    pass\n\nclass Base(Root):\n    pass\n",
    ],
)
def test_a_class_deriving_from_nothing_through_the_file_says_which(classes: str) -> None:
    (reason,) = _reasons(classes=classes, bases="Base")
    assert reason.startswith(
        "listener class Listener derives, through Base (of this file), from no client "
        "listener base"
    ), reason
    assert "derive Base from the client's ConsumerRebalanceListener first (KRB114)" in reason


@pytest.mark.parametrize(
    ("imports", "classes", "bases"),
    [
        ("from mylib.listeners import BaseListener", "", "BaseListener"),
        ("import mylib", "", "mylib.BaseListener"),
        ("from mylib import Mixin", "class Base(Mixin):\n    pass\n", "Base"),
    ],
)
def test_a_base_from_elsewhere_is_not_called_a_bug(imports: str, classes: str, bases: str) -> None:
    (reason,) = _reasons(imports=imports, classes=classes, bases=bases)
    assert "derives from no client listener base" not in reason
    assert "KRB114" not in reason
    assert reason.startswith(
        f"listener class Listener derives from {bases}, which the codemod cannot tell derives "
        "from the client's ConsumerRebalanceListener"
    ), reason
    assert "run rebalance-guard migrate on a directory holding that base's module too" in reason


#: KRB114's own INVALID example of its ``self`` case (a class deriving from nothing).
SELF_LISTENER = next(e for e in LISTENER_WITHOUT_BASE.invalid if "listener=self" in e)


def _migrate_self(imports: str = "", bases: str = "", subclass: str = "") -> tuple[bool, list[str]]:
    header = f"class Reader({bases}):" if bases else "class Reader:"
    source = imports + "\n" + SELF_LISTENER.replace("class Reader:", header) + subclass
    result = migrate_source(textwrap.dedent(source).encode(), "app.py")
    return result.new_source is not None, [m.reason for m in result.manual]


def test_listener_self_of_a_class_deriving_from_nothing_names_krb114() -> None:
    """Both clients reject it (TypeError); registering it with set_rebalance_listener() and
    calling that migrated would keep the crash and the one-argument methods."""
    changed, (reason,) = _migrate_self()
    assert not changed
    assert reason.startswith("listener=self: class Reader derives from no client listener base")
    assert "(KRB114)" in reason


@pytest.mark.parametrize(
    ("imports", "bases", "subclass"),
    [
        # a subclass of the file could be the listener: a legacy one the runtime takes as is
        ("from aiokafka.abc import ConsumerRebalanceListener", "", "\nclass Real(Reader, "
         "ConsumerRebalanceListener):\n    pass\n"),
        # an imported base may be the client's listener
        ("from mylib import BaseReader", "BaseReader", ""),
    ],
)  # fmt: skip
def test_listener_self_that_may_be_a_listener_is_registered_as_before(
    imports: str, bases: str, subclass: str
) -> None:
    changed, reasons = _migrate_self(imports, bases, subclass)
    assert not any("KRB114" in reason for reason in reasons), reasons
    assert changed
