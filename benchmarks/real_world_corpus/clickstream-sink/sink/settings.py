import configparser
import os

_parser = configparser.ConfigParser()
_parser.read(os.environ.get("SINK_CONFIG", "/etc/clickstream/sink.ini"))

KAFKA = {
    "bootstrap.servers": _parser.get("kafka", "brokers", fallback="localhost:9092"),
    "group.id": _parser.get("kafka", "group", fallback="clickstream-sink"),
    "enable.auto.commit": False,
    "enable.auto.offset.store": False,
}
TOPIC = _parser.get("kafka", "topic", fallback="clicks")
OUTPUT_DIR = _parser.get("sink", "output_dir", fallback="/var/lib/clickstream")
ROLL_EVERY = _parser.getint("sink", "roll_every", fallback=10000)
