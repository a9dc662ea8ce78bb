"""citewise store stage."""
