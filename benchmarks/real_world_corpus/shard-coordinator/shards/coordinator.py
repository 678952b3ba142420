"""Lease-based shard ownership on Redis. Not Kafka: a worker subscribes to a shard group and is
told which shards it owns; the API mirrors Kafka's on_assign/on_revoke on purpose so the team
did not have to learn two vocabularies."""
import logging
import threading
import time
import uuid

import redis

log = logging.getLogger(__name__)


class ShardCoordinator:
    def __init__(self, redis_url, num_shards=64, lease_s=15):
        self.r = redis.Redis.from_url(redis_url)
        self.me = str(uuid.uuid4())
        self.num_shards = num_shards
        self.lease_s = lease_s
        self.owned = set()
        self._subs = []
        self._stop = threading.Event()

    def subscribe(self, group, on_assign=None, on_revoke=None):
        self._subs.append((group, on_assign, on_revoke))
        threading.Thread(target=self._loop, args=(group, on_assign, on_revoke), daemon=True).start()

    def _loop(self, group, on_assign, on_revoke):
        while not self._stop.is_set():
            members = max(1, len(self.r.keys(f"{group}:member:*")))
            self.r.set(f"{group}:member:{self.me}", 1, ex=self.lease_s)
            share = self.num_shards // members
            wanted = set()
            for shard in range(self.num_shards):
                if len(wanted) >= share:
                    break
                if self.r.set(f"{group}:shard:{shard}", self.me, nx=True, ex=self.lease_s) or \
                        self.r.get(f"{group}:shard:{shard}") == self.me.encode():
                    wanted.add(shard)
            lost, gained = self.owned - wanted, wanted - self.owned
            if lost and on_revoke:
                on_revoke(sorted(lost))
            if gained and on_assign:
                on_assign(sorted(gained))
            self.owned = wanted
            time.sleep(self.lease_s / 3)

    def close(self):
        self._stop.set()
