from app.listeners import CommitOnRevoke


class LoudCommit(CommitOnRevoke):
    def on_partitions_revoked(self, revoked):
        print("revoking", revoked)
        super().on_partitions_revoked(revoked)
