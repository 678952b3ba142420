"""Two more migration shapes proven by running the MIGRATED program on Apache Kafka (the sequel of
test_migrated_shapes_on_broker.py to _5.py, whose migration, observation, stream and handover
helpers these reuse; each case's migrated-line checks and driver, shared with its aiokafka twin
in _8.py, are in migrated_shapes_support.py). Each case migrates a user program of the shape
(``migrated_programs/``) with the real codemod (no manual site, no KRB2xx left, idempotent),
checks the migrated lines that matter, imports the result and drives it on the test broker with
the real client (kafka-python ``KafkaConsumer``, eager and cooperative-sticky as broker_1's
kafka-python cases; kafka-python has no KIP-848, 2.x no cooperative):

1. ``super()`` callback calls: a listener whose callbacks do their own work (track the
   partitions it owns; on revocation commit the offsets the loop processed of the revoked
   partitions, on the consumer it was handed) and then ``return super().on_partitions_*(p)``;
   migrated, the base is rebalance_guard's ``RebalanceListener``, the commit is on the view
   (the injected consumer goes) and ``super()`` is handed the view. Nothing else commits.
   Every callback the client made ran with the view and reached the base's with that same
   view and partitions (one call each; a one-argument call would raise ``TypeError`` inside
   the callback); each partition's offsets are processed exactly once across the handovers
   (B joins, then leaves), the leaver's last commit the group's offset;
2. ``parameter_listeners``: the listener (``StoredOffsets(worker)``) is created by the caller
   and handed to ``connect_kafka_consumer(servers, topic, group_id, rebalance_listener)``,
   which creates the consumer and subscribes with it; migrated, the class derives from
   ``RebalanceListener`` and the function calls ``set_rebalance_listener(consumer,
   rebalance_listener)`` then ``subscribe([topic])``. The worker keeps its offsets outside
   Kafka: the revocation saves the processed positions of the revoked partitions to the
   store, the assignment hands the partitions to the poll loop, which starts each at its
   stored position. Nothing is committed to Kafka, so only those callbacks keep a handover
   exactly-once: every offset processed once, in order, the leaver's last save (its close)
   at its partitions' ends, the store at every end; the caller's listener is the one
   registered, and its callbacks received the view.

   Its callbacks do not USE the view: in this shape the codemod cannot hand the view to the
   worker's methods. An earlier version of this program, whose assignment called
   ``self.worker.restore(assigned)`` (a worker method seeking on ``self.consumer``), got a
   manual site ("listener class StoredOffsets is migrated, but its callbacks still reach a
   consumer through self.worker.restore(), which the codemod cannot turn into the view; the
   object StoredOffsets() gets as worker at line 49 is not provably an owner holding the
   consumer the listener is registered on; pass the callback's consumer argument along to
   the owner's method by hand"), and so did ``self.worker.consumer.commit(...)`` in a
   callback; the listener is created before the consumer, so it cannot be injected with it.
   The program therefore seeks in its poll loop, on the consumer, not in the callback.

Each check was shown able to fail by breaking the migrated source before it is loaded (the
text replaced in ``load``'s argument by a throwaway pytest plugin, nothing committed;
2026-11-27), eager and cooperative both failing:

- case 1, ``super().on_partitions_revoked(revoked)`` (the old arity; the same for
  ``on_partitions_assigned``): ``TypeError: RebalanceListener.on_partitions_revoked() missing
  1 required positional argument: 'consumer'`` inside the callback, the check "a callback
  raised" failed (the member's next ``poll()`` raised ``KafkaError: User rebalance callback
  throws an error``); the revocation's ``super()`` call dropped: the base-reached check failed
  (every revocation the client made missing from what the base saw); ``super()`` handed
  ``None`` instead of the view: the same check failed (the base saw each revocation with
  another consumer); the revocation's ``consumer.commit(offsets)`` dropped: the
  leaver's-commit check failed (-1001 against 76; 114);
- case 2, the revocation no longer writing the store (``self.positions.pop(tp)`` only): the
  leaver's-save check failed (-1, nothing stored, against 71; 112); the assignment no longer
  handing the partitions to the loop (``self.unstarted |= ...`` dropped): the new owner started
  where kafka-python put it, the exactly-once check failed (146 and 221 messages processed
  twice); the loop starting a partition one past its stored position: one message per
  handover was skipped (timed out waiting for all 358 / 469 messages processed); the
  ``set_rebalance_listener(consumer, rebalance_listener)`` line dropped: no callback ran, the
  worker's partitions never matched its assignment (timed out waiting for A and B to share
  the topic); another ``StoredOffsets`` registered in place of the caller's: the
  caller's-listener check failed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from kafka.structs import TopicPartition
from rebalance_guard.kafka_python import RebalanceListener

from tests.integration.broker import Broker
from tests.integration.kafka_python_support import make_consumer
from tests.integration.migrated_shapes_support import (
    migrated_parameter_listener,
    migrated_super_callbacks,
    stored_offsets_on_the_broker,
    super_calls_on_the_broker,
)
from tests.integration.test_migrated_shapes_on_broker import (
    Member,
    kafka_python_consumer,
    load,
    protocols,
)

# --------------------------------------------------------------------------- 1. super() calls


@pytest.mark.kafka_python
@pytest.mark.parametrize("protocol", protocols("kafka_python"))
def test_super_callback_calls_get_the_view_on_the_broker(
    broker: Broker, protocol: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every callback ran with the view and handed that view to the base's through
    ``super()``; the revocation's commit on the view keeps every partition exactly once."""
    name = "super_callbacks_kafka_python"
    source = migrated_super_callbacks("kafka_python")
    module: Any = load(source, tmp_path, name)
    assert module.RebalanceListener is RebalanceListener

    def start(m: Member, topic: str, group: str) -> Member:
        m.consumer = kafka_python_consumer(broker, group, protocol)
        return m.start(lambda stopping: module.consume(m.consumer, topic, m.handle, stopping))

    super_calls_on_the_broker(broker, monkeypatch, module, RebalanceListener, start)


# --------------------------------------------------------------------------- 2. parameter_listeners


@pytest.mark.kafka_python
@pytest.mark.parametrize("protocol", protocols("kafka_python"))
def test_listener_handed_to_the_subscribing_function_on_the_broker(
    broker: Broker, protocol: str, tmp_path: Path
) -> None:
    """The caller's listener is the one registered, its callbacks get the view, and its save
    on revocation and hand-over on assignment keep every partition exactly once with nothing
    committed to Kafka."""
    name = "parameter_listener_kafka_python"
    source = migrated_parameter_listener("kafka_python")
    module: Any = load(source, tmp_path, name)

    def kafka_consumer(**config: Any) -> Any:  # what connect_kafka_consumer() creates
        return make_consumer(config["bootstrap_servers"], config["group_id"], protocol, **config)

    module.KafkaConsumer = kafka_consumer

    def start(m: Member, make_worker: Callable[[], Any]) -> Member:
        worker = make_worker()
        return m.start(lambda stopping: worker.run(m.handle, stopping))

    stored_offsets_on_the_broker(broker, module, RebalanceListener, TopicPartition, start)
