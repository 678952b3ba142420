import os
from dataclasses import dataclass, field


@dataclass
class Settings:
    bootstrap_servers: str = os.environ.get("KAFKA_BOOTSTRAP_SERVERS", "localhost:9092")
    group_id: str = os.environ.get("ORDERS_GROUP_ID", "orders-writer")
    topics: list = field(default_factory=lambda: os.environ.get("ORDERS_TOPICS", "orders.v1").split(","))
    batch_size: int = int(os.environ.get("ORDERS_BATCH_SIZE", "500"))
    flush_interval_s: float = float(os.environ.get("ORDERS_FLUSH_INTERVAL", "5"))
    dsn: str = os.environ.get("ORDERS_DSN", "postgresql://orders@localhost/orders")

    def consumer_config(self):
        return {
            "bootstrap.servers": self.bootstrap_servers,
            "group.id": self.group_id,
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
            "session.timeout.ms": 10000,
        }


settings = Settings()
