from kafka import KafkaConsumer

from app.listeners import CommitOnRevoke


def run(log):
    consumer = KafkaConsumer(group_id="billing", enable_auto_commit=False)
    consumer.subscribe(["billing"], listener=CommitOnRevoke(consumer, log))
    return consumer
