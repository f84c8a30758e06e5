"""citewise.fuse."""
