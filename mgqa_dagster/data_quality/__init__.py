"""In-memory data-quality checks (Great Expectations) used by the Dagster asset checks."""
