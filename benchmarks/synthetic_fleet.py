"""Synthesise a fleet of repositories for the scan's benchmark and its report tests.

Each repository gets generated listener modules written from the shapes in REAL_WORLD.md
(confluent callbacks as module functions and as methods of the class owning the consumer,
kafka-python listeners with the consumer injected through the constructor, aiokafka
listeners, callbacks that poll, sleep or commit asynchronously, print-only callbacks, a helper
registering the callbacks its callers pass: an API, which ``migrate`` leaves by hand) and,
for the benchmark, real Python files copied from the installed site-packages, so the bulk of
the bytes is ordinary code without Kafka, as in a real fleet.

Deterministic: the same arguments give the same files.
"""

from __future__ import annotations

import random
import shutil
import sysconfig
from dataclasses import dataclass
from pathlib import Path

# One block per shape; {n} makes names unique within a module. Each block lists the imports
# it needs; the module writer puts them first.
CONFLUENT_CLEAN = """
def on_assign_{n}(consumer, partitions):
    log.info("assigned %s", partitions)


def run_{n}(conf, topics):
    consumer = Consumer(conf)
    consumer.subscribe(topics, on_assign=on_assign_{n})
    while True:
        msg = consumer.poll(1.0)
        if msg is not None:
            handle(msg)
"""

CONFLUENT_LAMBDA = """
def reset_{n}(consumer: Consumer, partitions, replay):
    log.info("assigned %s (replay=%s)", partitions, replay)


def run_logged_{n}(conf, topics, replay=False):
    consumer = Consumer(conf)
    consumer.subscribe(topics, on_assign=lambda c, p: reset_{n}(c, p, replay))
    while True:
        msg = consumer.poll(1.0)
        if msg is not None:
            handle(msg)
"""

CONFLUENT_REPLAY = """
def on_assign_{n}(consumer, partitions):
    for p in partitions:
        p.offset = OFFSET_BEGINNING
    consumer.assign(partitions)


def on_revoke_{n}(consumer, partitions):
    consumer.commit()


def main_{n}(conf):
    consumer = Consumer(conf)
    consumer.subscribe(["clicks"], on_assign=on_assign_{n}, on_revoke=on_revoke_{n},
                       on_lost=on_revoke_{n})
    while True:
        consumer.poll(1.0)
"""

CONFLUENT_OWNER_METHODS = """
class Worker{n}:
    def __init__(self, conf, topic):
        self.topic = topic
        self.consumer = Consumer(conf)
        self.seen = []

    def _remember(self, consumer, partitions):
        self.seen.append(consumer)

    def _drain(self, consumer, partitions):
        while consumer.poll(0.1) is not None:
            pass
        consumer.commit(asynchronous=False)

    def run(self):
        self.consumer.subscribe([self.topic], on_assign=self._remember, on_revoke=self._drain)
        while True:
            self.consumer.poll(1.0)
"""

KAFKA_PYTHON_INJECTED = """
class CommitOnRevoke{n}(ConsumerRebalanceListener):
    def __init__(self, consumer, store):
        self.consumer = consumer
        self.store = store

    def on_partitions_revoked(self, revoked):
        self.store.flush()
        self.consumer.commit()

    def on_partitions_assigned(self, assigned):
        for tp in assigned:
            self.consumer.seek(tp, self.store.offset(tp))


def consume_{n}(topic, store):
    consumer = KafkaConsumer(group_id="orders", enable_auto_commit=False)
    consumer.subscribe([topic], listener=CommitOnRevoke{n}(consumer, store))
    for message in consumer:
        store.save(message)
"""

KAFKA_PYTHON_SLEEPY = """
class Slow{n}(ConsumerRebalanceListener):
    def on_partitions_revoked(self, revoked):
        time.sleep(15)

    def on_partitions_assigned(self, assigned):
        log.info("assigned %s", assigned)


def start_{n}(topic):
    consumer = KafkaConsumer(group_id="slow")
    consumer.subscribe([topic], listener=Slow{n}())
    return consumer
"""

AIOKAFKA_LISTENER = """
class Flush{n}(aiokafka.ConsumerRebalanceListener):
    def __init__(self, consumer):
        self.consumer = consumer

    async def on_partitions_revoked(self, revoked):
        self.consumer.commit()

    async def on_partitions_assigned(self, assigned):
        pass


async def consume_{n}(topic):
    consumer = aiokafka.AIOKafkaConsumer(group_id="flush")
    consumer.subscribe([topic], listener=Flush{n}(consumer))
    await consumer.start()
"""

CONFLUENT_API_HELPER = """
def subscribe_with_hooks_{n}(conf, topics, on_assign, on_revoke):
    consumer = Consumer(conf)
    consumer.subscribe(topics, on_assign=on_assign, on_revoke=on_revoke)
    return consumer
"""

SHAPES = {
    "confluent_clean": (CONFLUENT_CLEAN, "from confluent_kafka import Consumer"),
    "confluent_lambda": (CONFLUENT_LAMBDA, "from confluent_kafka import Consumer"),
    "confluent_api_helper": (CONFLUENT_API_HELPER, "from confluent_kafka import Consumer"),
    "confluent_replay": (
        CONFLUENT_REPLAY,
        "from confluent_kafka import OFFSET_BEGINNING, Consumer",
    ),
    "confluent_owner": (CONFLUENT_OWNER_METHODS, "from confluent_kafka import Consumer"),
    "kafka_python_injected": (
        KAFKA_PYTHON_INJECTED,
        "from kafka import ConsumerRebalanceListener, KafkaConsumer",
    ),
    "kafka_python_sleepy": (
        KAFKA_PYTHON_SLEEPY,
        "import time\nfrom kafka import ConsumerRebalanceListener, KafkaConsumer",
    ),
    "aiokafka": (AIOKAFKA_LISTENER, "import aiokafka"),
}
PREAMBLE = '"""Generated listener module (synthetic fleet)."""\n\nimport logging\n'
FOOTER = '\n\nlog = logging.getLogger(__name__)\n\n\ndef handle(msg):\n    log.debug("%s", msg)\n'

WORDS = [
    "orders",
    "payments",
    "billing",
    "ledger",
    "ingest",
    "analytics",
    "stream",
    "events",
    "audit",
    "search",
    "inventory",
    "shipping",
    "pricing",
    "fraud",
    "notifications",
    "profile",
    "sessions",
    "metrics",
    "catalog",
    "recommendations",
    "checkout",
    "warehouse",
    "identity",
    "gateway",
    "reporting",
]


def listener_module(shapes: list[str]) -> str:
    """One module holding the given shapes (names made unique)."""
    imports = sorted({line for s in shapes for line in SHAPES[s][1].splitlines()})
    blocks = [SHAPES[s][0].format(n=i) for i, s in enumerate(shapes)]
    return PREAMBLE + "\n".join(imports) + "\n" + FOOTER + "\n".join(blocks)


def repo_name(index: int, rng: random.Random) -> str:
    """Realistic names, some very long (the report must wrap them, never clip them)."""
    words = rng.sample(WORDS, rng.choice((1, 2, 2, 3)))
    name = f"team-{index % 37:02d}/{'-'.join(words)}-{index:04d}"
    if index % 97 == 5:
        name += "-" + "-".join(rng.sample(WORDS, 8)) + "-with-a-very-long-monorepo-path"
    return name.replace("/", "__")


@dataclass(frozen=True)
class FleetSize:
    repos: int
    files: int
    bytes: int
    listener_files: int


def _site_files() -> list[Path]:
    site = Path(sysconfig.get_paths()["purelib"])
    return sorted(
        p
        for p in site.rglob("*.py")
        if "__pycache__" not in p.parts and p.is_file() and not p.is_symlink()
    )


def write_fleet(
    target: Path,
    repos: int,
    megabytes: float = 0.0,
    seed: int = 14,
    listener_share: float = 0.7,
) -> FleetSize:
    """``repos`` repositories under ``target``; with ``megabytes``, real site-packages files
    fill them (spread evenly, reused across repositories where the budget needs it).

    About ``listener_share`` of the repositories get 1-4 generated listener modules; the
    rest only ordinary code (as most of a real fleet).
    """
    rng = random.Random(seed)
    target.mkdir(parents=True, exist_ok=True)
    shapes = sorted(SHAPES)
    # print-only confluent callbacks are the most common shape, so many repositories are
    # one `migrate` away; the buggy shapes are rarer
    weights = [{"confluent_clean": 8, "confluent_lambda": 2}.get(shape, 1) for shape in shapes]
    files = size = listeners = 0
    dirs = []
    for index in range(repos):
        repo = target / repo_name(index, rng)
        package = repo / "src" / "service"
        package.mkdir(parents=True)
        (package / "__init__.py").write_text('"""Service package."""\n', "utf-8")
        files += 1
        size += (package / "__init__.py").stat().st_size
        if rng.random() < listener_share:
            for module in range(rng.choice((1, 1, 1, 2, 2, 3, 4))):
                chosen = rng.choices(shapes, weights, k=rng.choice((1, 1, 1, 2)))
                path = package / f"consumer_{module}.py"
                path.write_text(listener_module(chosen), "utf-8")
                files += 1
                listeners += 1
                size += path.stat().st_size
        dirs.append(repo)
    if megabytes > 0:
        budget = megabytes * 1e6 - size
        pool = _site_files()
        rng.shuffle(pool)
        cursor = 0
        per_repo = budget / repos
        for repo in dirs:
            filled = 0.0
            while filled < per_repo:
                source = pool[cursor % len(pool)]
                cursor += 1
                copy = repo / "vendor" / f"m{cursor}_{source.name}"
                copy.parent.mkdir(exist_ok=True)
                shutil.copyfile(source, copy)
                length = copy.stat().st_size
                filled += length
                size += length
                files += 1
    return FleetSize(repos, files, size, listeners)


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="write a synthetic fleet")
    parser.add_argument("target", type=Path)
    parser.add_argument("--repos", type=int, default=500)
    parser.add_argument("--megabytes", type=float, default=0.0)
    args = parser.parse_args()
    print(write_fleet(args.target, args.repos, args.megabytes))
