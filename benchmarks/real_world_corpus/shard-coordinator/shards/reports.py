import logging

from kafka import KafkaProducer

from .coordinator import ShardCoordinator

log = logging.getLogger(__name__)

producer = KafkaProducer(bootstrap_servers="kafka:9092")
coordinator = ShardCoordinator("redis://redis:6379/2", num_shards=16)
owned = []

coordinator.subscribe(
    "reports",
    on_assign=lambda shards: owned.extend(shards),
    on_revoke=lambda shards: [owned.remove(s) for s in shards if s in owned],
)
