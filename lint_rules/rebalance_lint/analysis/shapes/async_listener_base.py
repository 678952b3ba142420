"""Shape: kafka-python 3's ``AsyncConsumerRebalanceListener`` subclasses (async callbacks
awaited on the client's IO loop). A refusal for now: their async callbacks cannot become
rebalance_guard methods on kafka-python."""

from __future__ import annotations

from rebalance_lint.analysis.shape import Shape

ASYNC_BASE = (
    "derives from kafka-python's AsyncConsumerRebalanceListener, whose async callbacks "
    "cannot become rebalance_guard methods (kafka-python listeners run synchronously); "
    "make the callbacks plain def (run your own asyncio work with "
    "asyncio.run_coroutine_threadsafe(coro, loop).result()), derive from "
    "ConsumerRebalanceListener, then run migrate again"
)


SHAPE = Shape(
    name="kafka-python 3 async listeners",
    planner="listeners",
    recognises=(
        "a listener class whose named base is kafka-python's "
        "AsyncConsumerRebalanceListener (ListenerClass.named_base == 'async')"
    ),
    plan=("refusal"),
    fixtures=("tests/codemods/test_refusals.py",),
)
