"""citewise answer stage."""
