"""Tests of boardcert.model: the board model, the observer's reading, the comparison."""
