"""citewise recall stage."""
