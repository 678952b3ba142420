"""Order events consumer: reads order lifecycle events and upserts them into Postgres."""

__version__ = "1.4.2"
