"""citewise.embed."""
