import logging
import os

from forwarder.forwarder import run

if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    run(
        {"bootstrap.servers": os.environ.get("BROKERS", "localhost:9092"), "group.id": "metrics-forwarder"},
        os.environ.get("TOPICS", "metrics").split(","),
        os.environ.get("GRAPHITE_HOST", "graphite"),
    )
