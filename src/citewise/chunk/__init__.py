"""citewise.chunk."""
