import logging
import socket
import time

log = logging.getLogger(__name__)


class GraphiteBackend:
    def __init__(self, host, port=2003):
        self.addr = (host, port)
        self.sock = None

    def healthy(self):
        try:
            self._connect()
            return True
        except OSError:
            return False

    def _connect(self):
        if self.sock is None:
            self.sock = socket.create_connection(self.addr, timeout=5)

    def send(self, lines):
        self._connect()
        payload = "".join(f"{name} {value} {int(ts or time.time())}\n" for name, value, ts in lines)
        self.sock.sendall(payload.encode())
