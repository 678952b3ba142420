from confluent_kafka import Consumer


class ConfluentBackend:
    def __init__(self, **config):
        self.consumer = Consumer(config)

    def subscribe(self, topics, handler=None):
        if handler is None:
            self.consumer.subscribe(topics)
        else:
            self.consumer.subscribe(topics, on_assign=handler.on_assign, on_revoke=handler.on_revoke)

    def poll(self, timeout):
        msg = self.consumer.poll(timeout)
        if msg is not None and not msg.error():
            yield msg

    def commit(self):
        self.consumer.commit(asynchronous=False)
