"""citewise.testing."""
