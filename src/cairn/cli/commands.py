"""Importing this module registers every command on the `cairn` group."""

from cairn.cli import memory, recall, transfer  # noqa: F401
