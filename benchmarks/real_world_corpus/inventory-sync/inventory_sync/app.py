import logging
import os
import signal

import requests

from .health import HealthState, serve
from .worker import InventoryWorker

logging.basicConfig(level=os.environ.get("LOG_LEVEL", "INFO"))


class WarehouseApi:
    def __init__(self, base_url):
        self.base_url = base_url
        self.session = requests.Session()

    def warm_cache(self, partitions):
        self.session.post(f"{self.base_url}/cache/warm", json={"partitions": partitions}, timeout=30)

    def apply_stock_change(self, key, value):
        resp = self.session.put(f"{self.base_url}/stock/{key.decode()}", data=value, timeout=10)
        resp.raise_for_status()


def main():
    conf = {"bootstrap.servers": os.environ["KAFKA_BROKERS"], "group.id": "inventory-sync"}
    state = HealthState()
    serve(state, int(os.environ.get("HEALTH_PORT", "8080")))
    workers = [
        InventoryWorker(conf, ["stock-changes"], WarehouseApi(os.environ["WAREHOUSE_URL"]), state)
        for _ in range(int(os.environ.get("WORKERS", "2")))
    ]
    for w in workers:
        w.start()
    signal.sigwait({signal.SIGINT, signal.SIGTERM})
    for w in workers:
        w.stop()
    for w in workers:
        w.join()


if __name__ == "__main__":
    main()
