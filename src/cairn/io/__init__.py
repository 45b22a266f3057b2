"""I/O: the store (every SQL statement), cited files, git, the files beside the store."""
