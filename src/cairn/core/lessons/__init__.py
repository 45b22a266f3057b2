"""Lessons: memories with a `when`, added to the tool calls they match.

`triggers` validates a `when` once, at save, and matches it; `glob` compiles the spec's glob
grammar for read/edit triggers.
"""
