import argparse
import logging

from .shipper import AuditShipper


def main(argv=None):
    p = argparse.ArgumentParser(prog="audit-shipper")
    p.add_argument("--brokers", default="localhost:9092")
    p.add_argument("--group", default="audit-shipper")
    p.add_argument("--topic", default="audit")
    p.add_argument("--es", action="append", default=[])
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO)
    conf = {"bootstrap.servers": args.brokers, "group.id": args.group}
    AuditShipper(conf, args.topic, args.es or ["http://localhost:9200"]).serve_forever()


if __name__ == "__main__":
    main()
