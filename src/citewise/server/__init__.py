"""citewise server stage."""
