"""Gates: a lesson or rule that stops the first matching call of a session, once.

Measured on the wire (docs/lessons.md), context a hook adds to a tool call reaches the model
only with that call's result: after the command ran. A rule about how to commit therefore
arrives after the commit. A gate puts it in front of the model first: the hook denies the
first call it matches in a session, in the agent's own deny form, with the rule as the reason
and "run the command again"; every later matching call of that session passes.

Opt-in, never the default (the spec's "the call is never blocked" holds for everything else):

- per memory: `cairn remember ... --gate`, `gate` in `when` or in MCP `remember`, and
  `cairn gate on|off REF` (a lesson with `when`, or a rule tagged `trigger:ACTION`);
- per project: every rule of the actions listed in the project's committed file
  `.cairn/gates` (one action a line, `#` comments), e.g. `git-commit`. It travels with the
  repository (nothing in it is machine-specific), and is read from the session's checkout.

The wording, the project setting and the call's text for measuring live here; the decision
(which memory gates which call, once per session) is `cairn.usecases.calls.lessons_for`'s.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # the hook imports this module when a gate could fire
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from cairn.usecases.calls import Call, Fired

SETTING = os.path.join(".cairn", "gates")
SETTING_BYTES = 65536
CALL_CHARS = 2000
ACTION_CHARS = 100
REASON_BUDGET = 1500  # Claude Code keeps 2,000 characters and 20 lines of a deny reason
_S_IFMT, _S_IFREG = 0o170000, 0o100000
_SETTING_HEADER = (
    "# Actions whose rules (memories tagged trigger:ACTION) are Cairn gates in this project:\n"
    "# the first such call of a session is stopped once, with the rules as the reason.\n"
    "# One action a line, e.g. git-commit. Written by `cairn gate on|off trigger:ACTION`.\n"
)


def setting_path(root: str) -> str:
    """Where a project's gate setting lives, below its checkout `root`."""
    return os.path.join(root, SETTING)


def gated_actions(root: str) -> frozenset[str]:
    """The actions `.cairn/gates` below `root` lists (empty when there is no such file).

    Read as the hook reads anything: a regular file only, opened without blocking (a FIFO
    planted there cannot hang the call), at most `SETTING_BYTES`. Never raises.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(setting_path(root), flags | getattr(os, "O_CLOEXEC", 0))
    except (OSError, ValueError):
        return frozenset()
    try:
        if os.fstat(fd).st_mode & _S_IFMT != _S_IFREG:
            return frozenset()
        data = os.read(fd, SETTING_BYTES)
    except OSError:
        return frozenset()
    finally:
        os.close(fd)
    if len(data) == SETTING_BYTES:  # cut: the last, partial line is not an action
        data = data[: data.rfind(b"\n") + 1]
    return frozenset(parse_setting(data.decode("utf-8", "replace")))


def parse_setting(text: str) -> list[str]:
    """The action names of a gate setting's text, in order (`trigger:` prefixes allowed)."""
    out: list[str] = []
    for line in text.splitlines():
        word = line.split("#", 1)[0].strip().lower()
        word = word.removeprefix("trigger:")
        if word and len(word) <= ACTION_CHARS and " " not in word and word not in out:
            out.append(word)
    return out


def set_gated_action(root: str, action: str, on: bool) -> list[str]:
    """Add an action to (or remove it from) the project's gate setting; returns the list.

    Lines that are not the action (comments included) are kept as they were. The file is
    written atomically; removing the last action leaves the file with its comments.
    """
    action = action.strip().lower().removeprefix("trigger:")
    path = setting_path(root)
    try:
        with open(path, encoding="utf-8") as src:
            lines = src.read().splitlines()
    except FileNotFoundError:
        lines = _SETTING_HEADER.splitlines()
    present = action in parse_setting("\n".join(lines))
    if on and not present:
        lines.append(action)
    elif not on and present:
        lines = [line for line in lines if parse_setting(line) != [action]]
    else:
        return parse_setting("\n".join(lines))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")
    os.replace(tmp, path)
    return parse_setting("\n".join(lines))


def call_text(call: Call) -> str:
    """What a call did, as measured for a gate's retry: the command, else the paths."""
    text = call.command if call.tool == "shell" else "\n".join(call.paths)
    return text[:CALL_CHARS]


def reason(gated: Sequence[Fired], call: Call, budget: int = REASON_BUDGET) -> str:
    """The denial, worded for the model: what to do first, then to run the call again.

    Each gate is listed with its ref (to cite in `used`) and why it applies here.
    """
    again = "run the command again" if call.tool == "shell" else "make this call again"
    if len(gated) == 1:
        head = "Before this call runs, follow this project rule from Cairn memory:"
    else:
        head = "Before this call runs, follow these project rules from Cairn memory:"
    lines = [head]
    for fired in gated:
        m = fired.memory
        line = f"- {m.ref} ({fired.why}): {m.text}"
        if m.reason:
            line += f" Why: {m.reason}"
        lines.append(line)
    lines.append(
        f"Then {again} (changed if the rule asks for it): Cairn stopped it only to show you "
        "this, once in this session, and will let it run. If the rule shaped your work, list "
        "its ref in `used` when you remember."
    )
    return _bounded(lines, budget)


def _bounded(lines: Iterable[str], budget: int) -> str:
    """The lines joined, each rule cut so the whole text fits `budget` characters."""
    lines = list(lines)
    text = "\n".join(lines)
    if len(text) <= budget:
        return text
    head, rules, tail = lines[0], lines[1:-1], lines[-1]
    room = max(40, (budget - len(head) - len(tail) - len(lines)) // max(1, len(rules)))
    rules = [r if len(r) <= room else r[: room - 1] + "…" for r in rules]
    return "\n".join([head, *rules, tail])[:budget]
