# ruff: noqa: E501  (sources and messages as the codemod prints them)
"""An owner class that becomes its own listener gets ``RebalanceListener`` in a valid MRO.

``class Sink(object):`` (common in code that started on Python 2) must become
``class Sink(RebalanceListener):``: appending gives ``(object, RebalanceListener)``, which has
no consistent method resolution order and raises TypeError at import (found by
benchmarks/real_world_corpus/clickstream-sink).
"""

from __future__ import annotations

import textwrap

import pytest
from rebalance_codemods.api import migrate_source

OWNER = """
from confluent_kafka import Consumer


class Sink{bases}:
    def __init__(self, config):
        self.consumer = Consumer(config)

    def start(self):
        self.consumer.subscribe(["a"], on_assign=self._on_assign, on_revoke=self._on_revoke)

    def _on_assign(self, consumer, partitions):
        pass

    def _on_revoke(self, consumer, partitions):
        consumer.commit(asynchronous=False)
"""


@pytest.mark.parametrize(
    ("bases", "expected"),
    [
        ("(object)", "class Sink(RebalanceListener):"),
        ("(Base, object)", "class Sink(Base, RebalanceListener):"),
        ("(Base)", "class Sink(Base, RebalanceListener):"),
        ("", "class Sink(RebalanceListener):"),
    ],
)
def test_the_listener_base_takes_the_place_of_object(bases: str, expected: str) -> None:
    source = textwrap.dedent(OWNER.format(bases=bases))
    if "Base" in bases:
        source = source.replace("\n\nclass Sink", "\n\nclass Base:\n    pass\n\n\nclass Sink", 1)
    result = migrate_source(source.encode(), "sink.py")
    assert result.new_source is not None, result.manual
    new = result.new_source.decode()
    assert expected in new, new
    namespace: dict[str, object] = {}
    exec(compile(new, "sink.py", "exec"), namespace)  # the class statement runs: a valid MRO
    assert "Sink" in namespace


@pytest.mark.parametrize(
    ("head", "bases", "expected"),
    [
        # held_out_7 010: an abstract generic consumer base class owning its callbacks
        ("from abc import ABC\nfrom typing import Generic, TypeVar\nT = TypeVar('T')\n",
         "(ABC, Generic[T])", "class Sink(ABC, Generic[T], RebalanceListener):"),
        ("import typing\nK = typing.TypeVar('K')\nV = typing.TypeVar('V')\n",
         "(typing.Generic[K, V])", "class Sink(typing.Generic[K, V], RebalanceListener):"),
    ],
)  # fmt: skip
def test_a_generic_owner_takes_the_listener_base_after_generic(
    head: str, bases: str, expected: str
) -> None:
    """``Generic[T]`` is not a special base: Python's MRO puts another base after it, and the
    generic class stays subscriptable (``Sink[int]``)."""
    source = textwrap.dedent(OWNER.format(bases=bases)).replace(
        "from confluent_kafka import Consumer\n", f"from confluent_kafka import Consumer\n{head}", 1
    )
    result = migrate_source(source.encode(), "sink.py")
    assert result.new_source is not None, result.manual
    new = result.new_source.decode()
    assert expected in new, new
    namespace: dict[str, object] = {}
    exec(compile(new + "\nSink[int] if len(Sink.__parameters__) == 1 else Sink[int, str]\n", "sink.py", "exec"), namespace)
    assert "Sink" in namespace


def test_a_generic_of_something_else_than_type_variables_stays_refused() -> None:
    source = textwrap.dedent(OWNER.format(bases="(Generic[int])")).replace(
        "from confluent_kafka import Consumer\n", "from confluent_kafka import Consumer\nfrom typing import Generic\n", 1
    )
    result = migrate_source(source.encode(), "sink.py")
    assert result.new_source is None
    assert [m.reason for m in result.manual] == [
        "Sink derives from Generic[int], which cannot take RebalanceListener as another base; make a listener class by hand"
    ]


def test_an_owner_with_a_metaclass_keeps_it() -> None:
    """held_out_7 014 (``metaclass=SingletonMeta``): RebalanceListener's metaclass is ``type``,
    so the class's own metaclass stays its metaclass (no conflict), as with any base class."""
    head = "class SingletonMeta(type):\n    _made: dict[type, object] = {}\n\n    def __call__(cls, *args, **kwargs):\n        if cls not in cls._made:\n            cls._made[cls] = super().__call__(*args, **kwargs)\n        return cls._made[cls]\n\n\n"
    source = textwrap.dedent(OWNER.format(bases="(metaclass=SingletonMeta)")).replace("class Sink", head + "class Sink", 1)
    result = migrate_source(source.encode(), "sink.py")
    assert result.new_source is not None, result.manual
    new = result.new_source.decode()
    assert "class Sink(RebalanceListener, metaclass=SingletonMeta):" in new, new
    namespace: dict[str, object] = {}
    exec(compile(new + "\nassert Sink({'group.id': 'g'}) is Sink({'group.id': 'h'})\n", "sink.py", "exec"), namespace)


def test_an_enum_metaclass_stays_refused() -> None:
    source = textwrap.dedent(OWNER.format(bases="(metaclass=enum.EnumMeta)")).replace("class Sink", "import enum\n\n\nclass Sink", 1)
    result = migrate_source(source.encode(), "sink.py")
    assert result.new_source is None
    assert [m.reason for m in result.manual] == [
        "Sink has class decorators, class keywords or a metaclass of enum, typing or ctypes; make a RebalanceListener class that calls its methods by hand"
    ]
