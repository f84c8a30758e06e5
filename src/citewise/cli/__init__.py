"""citewise.cli."""
