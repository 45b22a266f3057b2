"""Bash text -> the argv of every simple command it runs, found with tree-sitter-bash.

Every `command` node of the tree is a simple command, wherever it sits: a list (`&&`, `||`,
`;`), a pipeline, a subshell, a `{ }` group, an if/while/for/case body, a function body, or
a command substitution (`$( )`, backticks, `<( )`), including one inside a double-quoted
string or an unquoted heredoc, because bash runs those too. Everything else is data: quoted
text, comments, heredoc bodies (`echo "git commit"` runs only `echo`).

For each simple command:
- `NAME=value` prefixes are dropped: they are not among the command's words;
- wrappers are peeled with their options and option values: sudo, doas, env (and its
  `NAME=value` operands), time, nice, nohup, timeout (and its duration), command, exec,
  xargs, stdbuf, coproc, and `python -m MODULE`;
- a shell handed a script (`bash -c '...'`, `sh -lc "..."`, `bash <<'EOF'`,
  `bash <<< '...'`) has that script parsed in turn, at most three shells deep.

The tree is walked with an explicit stack: a tower of `$($($(...)))` must not reach
Python's recursion limit, because nothing here may raise.
"""

import re
from functools import cache

import tree_sitter_bash
from tree_sitter import Language, Node, Parser

from cairn.core.shell.argv import Options, Word, basename, options, skip_options

__all__ = ["argvs", "joined"]

# A shell run inside a shell inside a shell is already unusual; deeper nesting is not worth
# the time on the hook's hot path.
_MAX_SHELL_DEPTH = 3

_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
_SUBSTITUTIONS = frozenset({"command_substitution", "process_substitution"})
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_PYTHON = re.compile(r"python[0-9.]*")
_CONTINUATION = re.compile(r"\\(\\|\n)")


# Each wrapper runs the command that follows its options. `stop` words make it run nothing
# (`sudo -l`, `command -v git`), so the wrapper itself stays the program.
_WRAPPERS: dict[str, Options] = {
    "sudo": options(
        "aCcDgpRrTtUu",
        "auth-type close-from login-class chdir group prompt chroot role command-timeout"
        " type other-user user host",
        "-V -h -l --list -v --validate -K --remove-timestamp -e --edit",
    ),
    "doas": options("Cu", stop="-C"),
    "env": options("uCS", "unset chdir split-string"),
    "time": options("fo", "format output"),
    "nice": options("n", "adjustment"),
    "nohup": options(),
    "timeout": options("sk", "signal kill-after"),
    "command": options(stop="-v -V"),
    "exec": options("a"),
    "xargs": options(
        "adEILnPs",
        "arg-file delimiter eof replace max-lines max-args max-procs max-chars process-slot-var",
    ),
    "stdbuf": options("ioe", "input output error"),
    "coproc": options(),
    "ionice": options("cnpPu", "class classdata pid pgid uid"),
    # flock's lock file is its first operand (`_unwrap` skips it), `-c CMD` a script.
    "flock": options("wEc", "timeout wait conflict-exit-code command"),
    "chrt": options(),
    "taskset": options(),
}
# Programs that run the command after a subcommand and its options: `uv run pytest`. The
# outer program keeps its own action (`uv-run`); the command it runs is found as well.
_RUNNERS: dict[tuple[str, str], Options] = {
    ("uv", "run"): options(
        "pw", "with python package extra group env-file directory project index from"
    ),
    ("poetry", "run"): options(),
    ("pipenv", "run"): options(),
    ("bundle", "exec"): options(),
    ("pnpm", "exec"): options(),
    ("direnv", "exec"): options(),  # `direnv exec DIR CMD`: the folder comes first
}
# Programs that hand their operands to a shell as one script: `watch -n 1 git commit` runs
# `sh -c "git commit"`, `parallel git commit ::: x` runs `git commit x`.
_SCRIPT_RUNNERS: dict[str, Options] = {
    "eval": options(),
    "watch": options("nd", "interval differences"),
    "parallel": options("jSIEdaLlnNs", "jobs sshlogin arg-file delimiter max-args"),
}
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_ECHOES = frozenset({"echo", "printf"})
# Wrappers that take `NAME=value` operands before the command.
_ASSIGNING = frozenset({"env", "sudo"})


# tree-sitter-bash 0.25's scanner passes the lookahead code point to isdigit()/isalpha(),
# which read past the C library's table for anything above U+00FF and can kill the process
# (`echo {🎉}` crashes about one run in two). So the tree is built from a copy in which every
# non-ASCII byte is `%`, a plain word character: it has the same length, so each node's
# byte range still points into the real text, which is where words are read from.
_ASCII_ONLY = bytes.maketrans(bytes(range(128, 256)), b"%" * 128)


@cache
def _parser() -> Parser:
    # Built on first use and kept for the process: building it costs more than a parse.
    return Parser(Language(tree_sitter_bash.language()))


def argvs(command: str) -> list[tuple[Word, ...]]:
    """The argv of each simple command in `command`, wrappers peeled, in order of appearance."""
    out: list[tuple[Word, ...]] = []
    _collect(command, 0, False, out)
    return out


def _collect(
    script: str, depth: int, outer_substitutions: bool, out: list[tuple[Word, ...]]
) -> None:
    if "\\\n" in script:
        # Bash removes a backslash-newline before it splits words (`gi\<newline>t` is `git`);
        # tree-sitter reads it as a word break. An escaped backslash (`\\`) stays.
        script = _CONTINUATION.sub(lambda m: m[0] if m[1] == "\\" else "", script)
    # surrogatepass: a str from undecodable bytes may hold lone surrogates; never raise.
    src = script.encode("utf-8", "surrogatepass")
    tree = _parser().parse(src if src.isascii() else src.translate(_ASCII_ONLY))
    # (node, True) means "emit this command": it is pushed just above the command's name, so
    # a command comes out where its program word stands, after the substitutions in its
    # `NAME=$(...)` prefixes and before those in its arguments.
    stack: list[tuple[Node, bool]] = [(tree.root_node, False)]
    while stack:
        node, emit = stack.pop()
        if emit:
            _command(node, src, depth, out)
            continue
        kind = node.type
        if outer_substitutions and kind in _SUBSTITUTIONS:
            # The outer shell expanded this before the inner one ever saw the script, and
            # the outer walk already found the commands in it.
            continue
        for child in reversed(node.children):
            stack.append((child, False))
            if kind == "command" and child.type == "command_name":
                stack.append((node, True))


def _command(node: Node, src: bytes, depth: int, out: list[tuple[Word, ...]]) -> None:
    name = node.child_by_field_name("name")
    if name is None:
        return
    head = name.named_children[0] if name.named_child_count else name
    # Anonymous children under the argument field (the `$` of `$"..."`) carry no word.
    nodes = [head, *(n for n in node.children_by_field_name("argument") if n.is_named)]
    words = [_word(n, src) for n in nodes]
    start = _unwrap(words)
    out.append(tuple(words[start:]))
    if depth < _MAX_SHELL_DEPTH:
        script = _shell_script(node, src, nodes[start:], words[start:])
        if script is not None:
            _collect(script[0], depth + 1, script[1], out)
        else:
            _follow(words[start:], depth, out)


def _run(argv: list[Word], depth: int, out: list[tuple[Word, ...]]) -> None:
    """A command another program runs from its operands (`find -exec`, `uv run`)."""
    if not argv:
        return
    start = _unwrap(argv)
    out.append(tuple(argv[start:]))
    if depth < _MAX_SHELL_DEPTH:
        _follow(argv[start:], depth, out)


def _follow(argv: list[Word], depth: int, out: list[tuple[Word, ...]]) -> None:
    """The commands a simple command runs through its operands, found from its words alone."""
    if not argv or not argv[0].plain:
        return
    name = basename(argv[0].text)
    rest = list(argv[1:])
    if name in _SHELLS:
        i, c_flag, _s_flag = _shell_options(argv)
        if c_flag and i < len(argv) and argv[i].plain:
            _collect(argv[i].text, depth + 1, False, out)
    elif name in _SCRIPT_RUNNERS:
        first = skip_options(argv, 1, _SCRIPT_RUNNERS[name])
        if first is None:
            return
        operands = list(argv[first:])
        if name == "parallel":
            ends = [k for k, w in enumerate(operands) if w.text.startswith(":::")]
            operands = operands[: ends[0]] if ends else operands
        _script(operands, depth, out)
    elif name == "find":
        _find_exec(rest, depth, out)
    elif name == "flock":
        for k, word in enumerate(rest[:-1]):
            if word.text in ("-c", "--command"):
                _script(rest[k + 1 : k + 2], depth, out)
                break
    elif (
        name == "git" and len(rest) >= 2 and [w.text for w in rest[:2]] == ["submodule", "foreach"]
    ):
        operands = rest[2:]
        while operands and operands[0].text in ("--recursive", "--quiet", "-q"):
            operands = operands[1:]
        _script(operands, depth, out)
    elif rest and rest[0].plain and (name, rest[0].text) in _RUNNERS:
        start = skip_options(rest, 1, _RUNNERS[name, rest[0].text])
        if start is not None:
            if name == "direnv":
                start += 1  # the folder whose environment it loads
            _run(rest[start:], depth + 1, out)


def _script(operands: list[Word], depth: int, out: list[tuple[Word, ...]]) -> None:
    """Operands a program joins with spaces and hands to a shell (eval, watch, parallel)."""
    if operands and all(word.plain for word in operands):
        _collect(" ".join(word.text for word in operands), depth + 1, False, out)


def _find_exec(rest: list[Word], depth: int, out: list[tuple[Word, ...]]) -> None:
    """`find ... -exec CMD ARGS ;` (or `+`, `-execdir`, `-ok`): each CMD runs."""
    k = 0
    while k < len(rest):
        if rest[k].text in _FIND_EXEC:
            end = k + 1
            while end < len(rest) and rest[end].text not in (";", "+"):
                end += 1
            _run(rest[k + 1 : end], depth + 1, out)
            k = end
        k += 1


def _unwrap(words: list[Word]) -> int:
    """Index of the word naming the program that actually runs under any wrappers."""
    start = 0
    n = len(words)
    while words[start].plain:
        name = basename(words[start].text)
        if _PYTHON.fullmatch(name):
            i = _python_module(words, start + 1)
        elif name in _WRAPPERS:
            i = skip_options(words, start + 1, _WRAPPERS[name])
            if i is not None and name in _ASSIGNING:
                while i < n and _ASSIGNMENT.match(words[i].text):
                    i += 1
            if i is not None and name in ("timeout", "flock", "chrt", "taskset"):
                i += 1  # the duration, the lock file, the priority, the CPU mask
            if i is not None and name == "flock" and i < n and words[i].text in ("-c", "--command"):
                return start  # `flock FILE -c CMD`: `_follow` reads the script
        else:
            return start
        if i is None or i >= n:
            return start
        start = i
    return start


def _python_module(words: list[Word], i: int) -> int | None:
    """For `python [-flags] -m MODULE ...`, the index of MODULE; None for anything else."""
    while i < len(words):
        text = words[i].text
        if text == "-m":
            return i + 1
        if text in ("-W", "-X"):
            i += 2
        elif len(text) > 1 and text[0] == "-" and text[1] != "-" and not set(text) & set("cm"):
            i += 1
        else:
            return None
    return None


def _shell_script(
    node: Node, src: bytes, nodes: list[Node], words: list[Word]
) -> tuple[str, bool] | None:
    """The script a shell command runs, and whether it holds outer substitutions."""
    if not words[0].plain or basename(words[0].text) not in _SHELLS:
        return None
    i, c_flag, s_flag = _shell_options(words)
    if c_flag:
        return _script_word(nodes[i], words[i]) if i < len(words) else None
    if i < len(words) and not s_flag:
        return None  # `bash script.sh` runs a file, not its stdin
    parent = node.parent
    redirects = node.children_by_field_name("redirect")
    if parent is not None and parent.type == "redirected_statement":
        redirects += parent.children_by_field_name("redirect")
    for redirect in redirects:
        if redirect.type == "heredoc_redirect":
            for child in redirect.children:
                if child.type == "heredoc_body":
                    has_subs = any(c.type in _SUBSTITUTIONS for c in child.children)
                    return _text(child, src), has_subs
        elif redirect.type == "herestring_redirect" and redirect.named_child_count:
            arg = redirect.named_children[0]
            return _script_word(arg, _word(arg, src))
    return _piped_script(node, src)


def _piped_script(node: Node, src: bytes) -> tuple[str, bool] | None:
    """`echo 'git commit' | bash`: the text an echo or printf right before it in a pipeline
    writes, when every word of it is plain but for `\\n` (printf: its format, or with a `%s`
    format its arguments, one a line)."""
    parent = node.parent
    if parent is not None and parent.type == "redirected_statement":
        node, parent = parent, parent.parent
    if parent is None or parent.type != "pipeline":
        return None
    before = node.prev_named_sibling
    if before is None or before.type != "command":
        return None
    name = before.child_by_field_name("name")
    if name is None:
        return None
    head = name.named_children[0] if name.named_child_count else name
    nodes = [head, *(n for n in before.children_by_field_name("argument") if n.is_named)]
    argv = [_word(n, src) for n in nodes]
    if not argv[0].plain or basename(argv[0].text) not in _ECHOES:
        return None
    for word, raw in zip(argv, nodes, strict=True):
        # A `\n` that echo -e or printf turns into a newline is a word break in the script;
        # the prefilter reads that backslash as one too.
        value, written = word.text.replace("\\n", "\n"), _text(raw, src).replace("\\n", "\n")
        if not (word.literal and joined(value) in joined(written)):
            return None
    args = [word.text for word in argv[1:]]
    if basename(argv[0].text) == "echo":
        escapes = False
        while args and args[0] in ("-n", "-e", "-E", "-ne", "-en"):
            escapes = escapes or "e" in args[0]
            args = args[1:]
        text = " ".join(args)
        return (text.replace("\\n", "\n") if escapes else text), False
    if not args:
        return None
    if "%" not in args[0]:
        return args[0].replace("\\n", "\n"), False
    return ("\n".join(args[1:]) if args[0].startswith("%s") else ""), False


def _shell_options(words: list[Word]) -> tuple[int, bool, bool]:
    """First operand of a shell's argv, and whether `-c` or `-s` was among its options."""
    c_flag = s_flag = False
    i = 1
    n = len(words)
    while i < n and words[i].literal:
        text = words[i].text
        if text in ("-", "--"):
            i += 1
            break
        if text.startswith("--"):
            i += 2 if text in ("--rcfile", "--init-file") else 1
            continue
        if len(text) < 2 or text[0] not in "-+":
            break
        if text[0] == "-":
            c_flag = c_flag or "c" in text
            s_flag = s_flag or "s" in text
        i += 2 if text[-1] in "oO" else 1  # -o pipefail, +O extglob
    return min(i, n), c_flag, s_flag


def _script_word(node: Node, word: Word) -> tuple[str, bool] | None:
    # A plain word is the script as written. A double-quoted string is too, once its few
    # escapes are undone, and those never make letters; a concatenation (`"gi"'t push'`) or
    # a $'...' string could spell a program that does not appear in the command as written.
    if not word.plain and node.type not in ("string", "translated_string"):
        return None
    return word.text, any(c.type in _SUBSTITUTIONS for c in node.children)


def _text(node: Node, src: bytes) -> str:
    return src[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _word(node: Node, src: bytes) -> Word:
    raw = _text(node, src)
    text, literal = _value(node, src, raw)
    return Word(text, literal, literal and joined(text) in joined(raw))


def joined(raw: str) -> str:
    """`raw` without quotes, backslashes and line continuations. A word is plain when its value,
    so joined, appears in its text so joined (`git commi"t"`, `g\\it`, not `$'\\x67it'`): the
    prefilter reads the payload the same way, so an action's words are found there."""
    return raw.replace("\\\n", "").translate(_JOIN)


_JOIN = str.maketrans("", "", "\\'\"")


_UNQUOTED_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
# Inside double quotes a backslash escapes only these; `\<newline>` is kept as written so
# that no two letters on either side of it join into a program name the text never spells.
_DQ_ESCAPE = re.compile(r"\\([$`\"\\])")
_ANSI_ESCAPES = {
    "\\": "\\", "'": "'", '"': '"', "?": "?", "n": "\n", "t": "\t", "r": "\r",
    "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "v": "\v",
}  # fmt: skip
# Numeric escapes (\x67, \147, \u0067) are left as written: they can spell letters.
_ANSI_ESCAPE = re.compile(r"\\([\\'\"?ntrabeEfv])")


def _value(node: Node, src: bytes, raw: str) -> tuple[str, bool]:
    kind = node.type
    if kind in ("word", "number"):
        if "\\" not in raw:
            return raw, True
        return _UNQUOTED_ESCAPE.sub(lambda m: "" if m[1] == "\n" else m[1], raw), True
    if kind == "raw_string":
        return raw[1:-1] if len(raw) > 1 and raw.endswith("'") else raw[1:], True
    if kind == "ansi_c_string":
        body = raw[2:-1] if len(raw) > 2 and raw.endswith("'") else raw[2:]
        return _ANSI_ESCAPE.sub(lambda m: _ANSI_ESCAPES[m[1]], body), True
    if kind in ("string", "translated_string"):
        return _string_value(node, src)
    if kind == "concatenation":
        parts = [_word(child, src) for child in node.children]
        texts = [p.text for p in parts]
        # `x{a,b}` is brace expansion: several words, none of them known here.
        brace = "{" in texts and "}" in texts
        return "".join(texts), not brace and all(p.literal for p in parts)
    # Expansions of every kind: the value is known only when the shell runs.
    return raw, False


def _string_value(node: Node, src: bytes) -> tuple[str, bool]:
    parts: list[str] = []
    literal = True
    for child in node.children:
        if child.type == "string_content":
            parts.append(_DQ_ESCAPE.sub(r"\1", _text(child, src)))
        elif child.is_named:
            parts.append(_text(child, src))
            literal = False
        elif child.type != '"':
            parts.append(_text(child, src))
    return "".join(parts), literal
