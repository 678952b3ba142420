"""Unit-test rebalance listeners without a broker, like Java's ``MockConsumer.rebalance()``.

One module per client API, in its vocabulary: :mod:`rebalance_guard.testing.kafka_python`,
:mod:`rebalance_guard.testing.aiokafka`, :mod:`rebalance_guard.testing.confluent_kafka`,
:mod:`rebalance_guard.testing.confluent_kafka_aio` (confluent's ``AIOConsumer``). Each drives
a listener through assign, revoke, lost and whole rebalances (eager or cooperative) with the
runtime's own adapter and view classes over an in-memory consumer, so the listener sees
exactly the permitted methods and a view that expires when its callback returns; the test
sets positions, committed and end offsets and asserts what the listener committed, sought and
paused. The adapters log as in production (one record per callback on the
``rebalance_guard`` logger, a warning for a callback slower than its listener's
``callback_logging.slow_after``), so a test can assert a listener stays fast with pytest's
``caplog``. Importing this package imports nothing; each module imports only its client.
"""
