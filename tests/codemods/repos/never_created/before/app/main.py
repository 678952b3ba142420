from kafka import KafkaConsumer


def run():
    consumer = KafkaConsumer(group_id="g")  # the listener is created by code outside this tree
    consumer.subscribe(["orders"])
    return consumer
