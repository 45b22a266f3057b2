"""Commands that learn from the code: `learn`, `review`, `githooks`.

- `cairn learn` reads git: merges confirm what the branch's sessions cited; reverts and
  discarded branches contradict it.
- `cairn review merge|revert|discard BRANCH` records an act by hand; `cairn review undo [ID]`
  takes the last act (or the one named) back; `cairn review list` shows the acts.
- `cairn githooks install|uninstall` adds (or removes) the git hooks that run `cairn learn`
  after merges, rewrites and branch checkouts. It is its own command so it never collides
  with `cairn setup AGENT`.
"""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path

import click

from cairn.cli.group import Env, cli, json_option, pass_env
from cairn.cli.output import console, emit_json, escape
from cairn.io.store.acts import Act
from cairn.usecases.codeacts import (
    ACTS,
    Recorded,
    install_git_hooks,
    learn,
    list_acts,
    review,
    undo,
    undo_last,
    uninstall_git_hooks,
)


def _line(act: Act, refs: tuple[str, ...] | None = None) -> str:
    """One act on one line, for people."""
    text = f"[cyan]{act.aid}[/] {act.act} of [bold]{escape(act.branch or '?')}[/] ({act.source})"
    if refs is not None:
        text += f": {len(refs)} memories" + (f" {' '.join(refs)}" if refs else "")
    if act.undone_at:
        text += f" [dim]taken back {act.undone_at[:19]}[/]"
    return text


def _print(done: Recorded) -> None:
    console().print(_line(done.act, done.refs))


@cli.command(name="learn")
@click.option("--quiet", is_flag=True, help="Print nothing (for git hooks).")
@json_option
@pass_env
def learn_command(env: Env, quiet: bool, as_json: bool) -> None:
    """Learn from git: merges confirm, reverts and discarded branches contradict."""
    cairn = env.cairn()
    result = learn(cairn.store, cairn.ctx, Path(cairn.ctx.root))
    if quiet:
        return
    if as_json:
        emit_json(result.to_dict())
        return
    for done in result.acts:
        _print(done)
    for aid in result.reapplied:
        console().print(f"[cyan]{aid}[/] taken back: its revert was reverted")
    if not result.acts and not result.reapplied:
        console().print(result.note or "nothing new")


@cli.group(name="review")
def review_group() -> None:
    """Record a code act by hand (merge, revert, discard), list acts, or take one back."""


def _act_command(act: str, doc: str) -> None:
    @review_group.command(name=act, help=doc)
    @click.argument("branch")
    @json_option
    @pass_env
    def command(env: Env, branch: str, as_json: bool) -> None:
        cairn = env.cairn()
        done = review(cairn.store, cairn.ctx, act, branch)
        if as_json:
            emit_json(done.to_dict())
        else:
            _print(done)


for _act, _doc in zip(
    ACTS,
    (
        "BRANCH was merged: confirm what its sessions cited.",
        "BRANCH's work was reverted: contradict what its sessions cited.",
        "BRANCH was thrown away: contradict what its sessions cited.",
    ),
    strict=True,
):
    _act_command(_act, _doc)


@review_group.command(name="undo")
@click.argument("act_id", required=False)
@json_option
@pass_env
def undo_command(env: Env, act_id: str | None, as_json: bool) -> None:
    """Take back the last act (or ACT_ID): its evidence stops counting."""
    cairn = env.cairn()
    act = undo(cairn.store, cairn.ctx, act_id) if act_id else undo_last(cairn.store, cairn.ctx)
    if as_json:
        emit_json(act.to_dict())
    else:
        console().print(_line(act))


@review_group.command(name="list")
@click.option("--limit", type=int, default=20, show_default=True)
@json_option
@pass_env
def list_command(env: Env, limit: int, as_json: bool) -> None:
    """The project's code acts, newest first."""
    cairn = env.cairn()
    acts = list_acts(cairn.store, cairn.ctx, limit)
    if as_json:
        emit_json([a.to_dict() for a in acts])
        return
    for act in acts:
        console().print(_line(act))
    if not acts:
        console().print("no acts yet")


def learn_command_line(home: str | None) -> str:
    """The shell command the git hooks run: this install's `cairn`, with `--home` if given."""
    found = shutil.which("cairn")
    beside = Path(sys.executable).with_name("cairn")
    program = str(beside) if beside.exists() else (found or "cairn")
    words = [program, *(["--home", home] if home else []), "learn", "--quiet"]
    return shlex.join(words)


@cli.group(name="githooks")
def githooks_group() -> None:
    """Git hooks that run `cairn learn` after merges, rewrites and branch checkouts."""


@githooks_group.command(name="install")
@json_option
@pass_env
def install_command(env: Env, as_json: bool) -> None:
    """Add Cairn's block to post-merge, post-rewrite and post-checkout (existing hooks kept)."""
    cairn = env.cairn()
    done = install_git_hooks(Path(cairn.ctx.root), learn_command_line(env.home))
    _report(done, as_json)


@githooks_group.command(name="uninstall")
@json_option
@pass_env
def uninstall_command(env: Env, as_json: bool) -> None:
    """Remove Cairn's block from the git hooks (the rest of each hook is kept)."""
    cairn = env.cairn()
    _report(uninstall_git_hooks(Path(cairn.ctx.root)), as_json)


def _report(done: dict[str, str], as_json: bool) -> None:
    if as_json:
        emit_json(done)
        return
    for hook, what in done.items():
        console().print(f"{hook}: {what}")
