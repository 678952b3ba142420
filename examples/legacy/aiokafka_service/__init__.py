"""A legacy aiokafka service in several modules, as written before rebalance-guard (migrate me).

The listener class lives in :mod:`.listeners` and follows aiokafka's own documentation: the
consumer is injected through the constructor and ``on_partitions_revoked`` commits through it.
:mod:`.worker` creates the consumer and the listener and registers it with ``subscribe()``.
``rebalance-guard migrate DIR`` migrates both modules in one run: the class becomes a KIP-1306
listener whose async callbacks get a view, and the registration becomes
``set_rebalance_listener``.

Usage: ``python -m aiokafka_service BOOTSTRAP TOPIC GROUP OUTFILE`` (with the directory holding
this package on ``sys.path``). Each processed record is appended to OUTFILE as
``partition offset value``; SIGTERM stops it cleanly.
"""
