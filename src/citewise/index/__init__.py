"""citewise.index."""
