"""citewise.eval."""
