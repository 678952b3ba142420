import http.server
import json
import threading


class HealthState:
    def __init__(self):
        self.assigned = set()
        self.last_poll = 0.0
        self.lock = threading.Lock()


class _Handler(http.server.BaseHTTPRequestHandler):
    state = None

    def do_GET(self):
        with self.state.lock:
            body = json.dumps({"assigned": sorted(self.state.assigned), "last_poll": self.state.last_poll})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args):
        pass


def serve(state, port=8080):
    handler = type("Handler", (_Handler,), {"state": state})
    server = http.server.ThreadingHTTPServer(("0.0.0.0", port), handler)
    t = threading.Thread(target=server.serve_forever, name="health", daemon=True)
    t.start()
    return server
