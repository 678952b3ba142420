from kafka import KafkaConsumer

from .listeners import CommitOnRevoke


def run(log):
    audit = KafkaConsumer(group_id="audit", enable_auto_commit=False)
    listener = CommitOnRevoke(audit, log)
    audit.subscribe(["audit"], listener=listener)
    return audit
