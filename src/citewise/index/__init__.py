"""citewise index stage."""
