import logging
import os

from etl.batching import BatchingConsumer
from etl.sinks import S3CsvSink

if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    BatchingConsumer(
        os.environ["TOPICS"].split(","),
        S3CsvSink(os.environ["BUCKET"], os.environ.get("PREFIX", "etl")),
        bootstrap_servers=os.environ["BROKERS"],
        group_id="etl-batcher",
    ).run()
