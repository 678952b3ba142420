import logging
import os

from . import db
from .workers import LedgerWorker

logging.basicConfig(level=logging.INFO)
db.init(os.environ["LEDGER_DB_URL"])
LedgerWorker({"bootstrap.servers": os.environ["KAFKA_BROKERS"], "group.id": "ledger"}).start()
