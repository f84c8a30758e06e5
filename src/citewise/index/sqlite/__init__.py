"""citewise.index.sqlite."""
