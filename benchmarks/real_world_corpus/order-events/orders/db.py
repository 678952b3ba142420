import logging

import psycopg2
import psycopg2.extras

log = logging.getLogger(__name__)

UPSERT = """
INSERT INTO orders (order_id, status, amount, updated_at)
VALUES %s
ON CONFLICT (order_id) DO UPDATE SET status = EXCLUDED.status, amount = EXCLUDED.amount,
    updated_at = EXCLUDED.updated_at
"""


class OrderStore:
    def __init__(self, dsn):
        self._dsn = dsn
        self._conn = None

    def connect(self):
        if self._conn is None or self._conn.closed:
            self._conn = psycopg2.connect(self._dsn)
        return self._conn

    def write_batch(self, rows):
        if not rows:
            return
        conn = self.connect()
        with conn.cursor() as cur:
            psycopg2.extras.execute_values(cur, UPSERT, rows)
        conn.commit()
        log.debug("wrote %d orders", len(rows))

    def close(self):
        if self._conn is not None:
            self._conn.close()
