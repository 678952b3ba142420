import logging

from .consumer import OrderEventsConsumer

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")

if __name__ == "__main__":
    OrderEventsConsumer().run()
