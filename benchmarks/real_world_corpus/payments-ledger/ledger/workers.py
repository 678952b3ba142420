import decimal
import json
import logging

from . import db
from .base import BaseKafkaWorker

log = logging.getLogger(__name__)


class LedgerWorker(BaseKafkaWorker):
    topics = ("payments.captured", "payments.refunded")

    def __init__(self, conf):
        super().__init__(conf)
        self._entries = []

    def handle(self, msg):
        event = json.loads(msg.value())
        sign = -1 if msg.topic() == "payments.refunded" else 1
        self._entries.append((event["account"], sign * decimal.Decimal(event["amount"]), event["id"]))
        if len(self._entries) >= 200:
            self.checkpoint()
            self.consumer.commit(asynchronous=False)

    def checkpoint(self):
        if not self._entries:
            return
        with db.session_scope() as s:
            s.execute(
                "INSERT INTO ledger (account, amount, payment_id) VALUES (:a, :m, :p) ON CONFLICT DO NOTHING",
                [{"a": a, "m": m, "p": p} for a, m, p in self._entries],
            )
        log.info("booked %d entries", len(self._entries))
        self._entries.clear()
