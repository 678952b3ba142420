"""Offsets are stored next to the data files so a restart resumes exactly after the last file."""
import json
import os
import threading

_lock = threading.Lock()


class OffsetStore:
    def __init__(self, directory):
        self.path = os.path.join(directory, "offsets.json")
        self._offsets = {}
        if os.path.exists(self.path):
            with open(self.path) as fh:
                self._offsets = {tuple(k.split(":")): v for k, v in json.load(fh).items()}

    def get(self, topic, partition):
        return self._offsets.get((topic, str(partition)))

    def put(self, topic, partition, offset):
        with _lock:
            self._offsets[(topic, str(partition))] = offset
            tmp = self.path + ".tmp"
            with open(tmp, "w") as fh:
                json.dump({f"{t}:{p}": o for (t, p), o in self._offsets.items()}, fh)
            os.replace(tmp, self.path)
