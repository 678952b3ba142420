from app.listeners import CommitOnRevoke


def replay(listener, partitions):
    if isinstance(listener, CommitOnRevoke):
        listener.on_partitions_revoked(partitions)
