"""One more migration shape proven by running the MIGRATED program on Apache Kafka (the sequel of
test_migrated_shapes_on_broker.py to _6.py, whose migration, observation, stream and handover
helpers this reuses; each case's migrated-line checks and driver, shared with its aiokafka twin
in _8.py, are in migrated_shapes_support.py). Each case migrates a user program of the shape
(``migrated_programs/``) with the real codemod (no manual site, no KRB2xx left, idempotent),
checks the migrated lines that matter, imports the result and drives it on the test broker with
the real client (kafka-python ``KafkaConsumer``, eager and cooperative-sticky as broker_6's
cases; kafka-python has no KIP-848, 2.x no cooperative):

``view_uses`` with a None-tested consumer (4f75377; tests/codemods/test_none_tested_consumers.py):
a ``ConsumerRebalanceListener`` whose revocation reaches a consumer that is not its parameter, a
module-global ``consumer = None`` set in ``main()`` (``global consumer``) before
``consumer.subscribe([topic], listener=Listener())``, and guards it with a None test,
``if pending and consumer is not None: consumer.commit(pending)`` (``pending``: the offsets the
loop processed of the revoked partitions). Migrated, the listener derives from
``RebalanceListener``, the revocation gets a view parameter named ``rebalance_consumer`` (the
module's ``consumer`` is taken) and both the test and the commit use the view. Auto-commit is
off and nothing else commits, so the guarded branch is what keeps a handover exactly-once.
Each member loads the program separately, standing in for its own process, so each has its
own global ``consumer`` (the one it created) and its own ``processed``. The injected variant
(``self.consumer``, injected by ``consume()``: migrated, the injection goes and the test and
the commit are of the view, named ``consumer``) runs the same way. Checked, for both: every
callback got the view; every revocation that had processed offsets of its partitions
committed exactly those, once, through its own view (no revocation without any committed, no
commit through any other view); every offset processed once, in order, across B's join and
B's leave; the leaver's last commit is the group's committed offset of its partitions, and
covers all of them.

Each check was shown able to fail by breaking the migrated source before it is loaded (the
text replaced in ``load``'s argument by a throwaway pytest plugin under /tmp, nothing
committed; 2026-11-27), eager and cooperative both failing, each in about 15 s:

- global, the guard flipped (``rebalance_consumer is None``), the commit dropped (``pass``),
  or the view replaced by None before the test (``rebalance_consumer = None``): no handover
  commit, the leaver's-commit check failed (``{2: -1001, 3: -1001}`` against ``{2: 77, 3:
  77}``; cooperative ``{2: 115, 3: 115}``); the same three on the injected variant
  (``consumer is None``, ``pass``, ``consumer = None``): the same check failed (-1001 against
  83; 112);
- global, the commit made on the module's raw consumer instead of the view
  (``consumer.commit(pending)``): exactly-once and the leaver's commit held (the blocking raw
  commit worked from the migrated callback, as rebalance_guard runs it), the through-the-view
  commit check failed (a revocation holding ``{0: 76, 1: 76, 2: 76, 3: 75}`` committed nothing
  through its view);
- global, one partition of ``pending`` left out of the commit: the leaver's-commit check failed
  (``{0: -1001, 1: 81}`` against ``{0: 81, 1: 81}``);
- global, the guarded commit run only once the member is stopping (the leaver's close still
  commits; ``and STOPPING.is_set()`` added, ``STOPPING = stopping`` in ``main()``): the
  exactly-once check failed (143 messages processed twice; cooperative 124);
- global, the callbacks handed a forwarding object instead of the view (a ``Listener``
  subclass registered whose callbacks call the base's with ``Fwd(view)``, whose ``commit``
  forwards to the view): exactly-once held, the callbacks-got-the-view check failed (every
  call's consumer a ``Fwd``);
- global, the migrated listener registered behind a raw kafka-python
  ``ConsumerRebalanceListener`` handing the module's consumer (the un-migrated calling
  convention, ``subscribe([topic], listener=Raw(listener))``): on kafka-python 3.0.12 the
  commit inside the callback raised ``RuntimeError: Cannot block on net.run() from the IO
  thread itself`` on the IO thread, then the member's ``poll()`` ``KafkaError: User rebalance
  callback throws an error``; "a callback raised" / "member A raised" failed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.integration.broker import Broker
from tests.integration.kafka_python_support import make_consumer
from tests.integration.migrated_shapes_support import (
    KAFKA_PYTHON,
    GuardedProgram,
    guarded_commit_on_the_broker,
    migrated_none_tested_global,
    migrated_none_tested_injected,
)
from tests.integration.test_migrated_shapes_on_broker import (
    Member,
    kafka_python_consumer,
    protocols,
)


@pytest.mark.kafka_python
@pytest.mark.parametrize("protocol", protocols("kafka_python"))
def test_none_tested_global_consumer_becomes_the_view_on_the_broker(
    broker: Broker, protocol: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The revocation's None-tested commit of the module's consumer runs on the view whenever
    it has processed offsets to commit, and that commit alone keeps every partition exactly
    once; each member's global is the consumer it created."""
    name = "none_tested_global_kafka_python"
    source = migrated_none_tested_global("kafka_python")

    def start(module: Any, m: Member, topic: str, group: str) -> Member:
        def kafka_consumer(**config: Any) -> Any:  # what main() creates
            m.consumer = make_consumer(
                config["bootstrap_servers"], config["group_id"], protocol, **config
            )
            return m.consumer

        module.KafkaConsumer = kafka_consumer
        return m.start(
            lambda stopping: module.main(broker.bootstrap, topic, group, m.handle, stopping)
        )

    program = GuardedProgram(name, source, start, lambda module, listener: module.processed)
    modules, members = guarded_commit_on_the_broker(
        broker, tmp_path, monkeypatch, program, KAFKA_PYTHON
    )
    # each member's global is the consumer it created: one per member, not shared
    for label, m in members.items():
        assert modules[label].consumer is m.consumer, label
    assert modules["A"].consumer is not modules["B"].consumer


@pytest.mark.kafka_python
@pytest.mark.parametrize("protocol", protocols("kafka_python"))
def test_none_tested_injected_consumer_becomes_the_view_on_the_broker(
    broker: Broker, protocol: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same with the consumer injected as ``self.consumer``: the injection goes, the test
    and the commit are of the view (named ``consumer``: the parameter is free)."""
    name = "none_tested_injected_kafka_python"
    source = migrated_none_tested_injected("kafka_python")

    def start(module: Any, m: Member, topic: str, group: str) -> Member:
        m.consumer = kafka_python_consumer(broker, group, protocol)
        return m.start(lambda stopping: module.consume(m.consumer, topic, m.handle, stopping))

    program = GuardedProgram(name, source, start, lambda module, listener: listener.processed)
    guarded_commit_on_the_broker(broker, tmp_path, monkeypatch, program, KAFKA_PYTHON)
