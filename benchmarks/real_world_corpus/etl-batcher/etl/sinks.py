import csv
import io
import logging

import boto3

log = logging.getLogger(__name__)


class S3CsvSink:
    def __init__(self, bucket, prefix):
        self.s3 = boto3.client("s3")
        self.bucket = bucket
        self.prefix = prefix

    def put(self, name, rows):
        buf = io.StringIO()
        writer = csv.writer(buf)
        writer.writerows(rows)
        self.s3.put_object(Bucket=self.bucket, Key=f"{self.prefix}/{name}.csv", Body=buf.getvalue().encode())
        log.info("uploaded %s/%s.csv (%d rows)", self.prefix, name, len(rows))
