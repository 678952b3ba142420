import sqlite3


class PositionTable:
    """Last applied offset per partition, written in the same transaction as the data."""

    def __init__(self, path):
        self.conn = sqlite3.connect(path, check_same_thread=False)
        self.conn.execute(
            "CREATE TABLE IF NOT EXISTS positions (topic TEXT, part INTEGER, off INTEGER, PRIMARY KEY (topic, part))"
        )

    def load(self, topic, partition):
        row = self.conn.execute("SELECT off FROM positions WHERE topic=? AND part=?", (topic, partition)).fetchone()
        return row[0] if row else None
