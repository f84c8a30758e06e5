"""citewise.ingest."""
