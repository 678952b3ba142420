from flask import Flask, jsonify

from .follower import FollowerThread

app = Flask(__name__)
followers = {}


@app.route("/tail/<topic>")
def tail(topic):
    if topic not in followers:
        followers[topic] = FollowerThread(topic, bootstrap_servers="kafka:9092", group_id=f"web-tail-{topic}")
        followers[topic].start()
    return jsonify([v.decode("utf-8", "replace") for v in list(followers[topic].buffer)[-200:]])
