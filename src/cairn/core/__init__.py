"""The pure core: functions of their arguments, no I/O (docs/architecture.md)."""
