"""citewise evidence stage."""
