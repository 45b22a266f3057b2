"""Importing this module registers every command on the `cairn` group."""

from cairn.cli import docs, lessons, memory, recall, transfer  # noqa: F401
