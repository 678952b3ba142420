#!/usr/bin/env python
import logging
import sys

from sink.writer import ClickstreamSink

if __name__ == "__main__":
    logging.basicConfig(stream=sys.stdout, level=logging.INFO)
    ClickstreamSink().run()
