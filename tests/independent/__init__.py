"""A second, independent implementation of the interface (issue 13); see README.md."""
