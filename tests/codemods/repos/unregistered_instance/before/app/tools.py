from app.listeners import CommitOnRevoke


def make(consumer, log):
    return CommitOnRevoke(consumer, log)  # created, never registered here
