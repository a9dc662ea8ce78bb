"""citewise ingest stage."""
