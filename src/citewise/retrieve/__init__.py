"""citewise.retrieve."""
