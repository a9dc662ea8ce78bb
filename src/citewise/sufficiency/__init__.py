"""citewise sufficiency stage."""
