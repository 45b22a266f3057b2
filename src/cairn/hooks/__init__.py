"""Agent hooks: the hot path. `cairn-hook AGENT EVENT` runs on every watched tool call.

`entry` decides from the raw payload and the trigger list whether anything could fire and
exits at once when nothing can; only then `run` parses the payload with the agent's adapter
(one module per agent, listed in `registry`) and asks the core. Nothing here imports at package
level, so the fast path pays for nothing it does not use.
"""
