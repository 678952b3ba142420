"""A legacy kafka-python service in several modules, as written before rebalance-guard (migrate me).

The listener class lives in :mod:`.listeners`; :mod:`.worker` creates the consumer, injects it
into the listener's constructor and registers the listener with ``subscribe()``. The listener's
revoke callback commits with a bare ``consumer.commit()`` through the injected consumer, which
raises ``RuntimeError: Cannot block on net.run() from the IO thread itself`` on kafka-python 3.
``rebalance-guard migrate DIR`` migrates both modules in one run: the class becomes a KIP-1306
listener whose callbacks get a view, and the registration becomes ``set_rebalance_listener``.

Usage: ``python -m kafka_python_service BOOTSTRAP TOPIC GROUP OUTFILE`` (with the directory
holding this package on ``sys.path``). Each processed record is appended to OUTFILE as
``partition offset value``; SIGTERM stops it cleanly.
"""
