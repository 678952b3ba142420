"""PySpark fleet scan: KRB findings and migration readiness across many repositories."""
