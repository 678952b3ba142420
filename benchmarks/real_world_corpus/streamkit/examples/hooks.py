from streamkit import Stream

stream = Stream(["events"], bootstrap_servers="localhost:9092", group_id="hooks-example")
state = {}


@stream.on("assigned")
def warm(partitions):
    for tp in partitions:
        state.setdefault(tp, 0)


@stream.on("revoked")
def forget(partitions):
    stream.checkpoint()
    for tp in partitions:
        state.pop(tp, None)


for record in stream:
    state[(record.topic, record.partition)] = record.offset
