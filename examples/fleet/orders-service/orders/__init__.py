"""Order ingestion."""
