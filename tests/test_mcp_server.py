"""The MCP server: tool schemas pinned, and the real server driven over stdio by the SDK's client.

The end-to-end tests start `python -m cairn.mcp_server` (and `cairn mcp`) as a subprocess in a
real git repository on a named branch and talk to it with `mcp.client.stdio`, as an agent does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, get_args

import anyio
import mcp_types as types
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

import cairn
from cairn.core.models import KINDS
from cairn.io.store.backends import open_store
from cairn.mcp_server import Kind, RecallKind, Tools, build_server, tool_name
from tests import backends as sqlite_only

# name -> parameter -> (JSON type, required). A changed parameter must change this literal.
SCHEMAS = {
    "recall": {
        "query": ("string", True),
        "cwd": ("string", True),
        "as_of": ("string", False),
        "also": ("array[string]", False),
        "kind": ("string", False),
        "limit": ("integer", False),
    },
    "get_memory": {
        "refs": ("array[string]", True),
        "cwd": ("string", False),
    },
    "remember": {
        "text": ("string", True),
        "kind": ("string", False),
        "tags": ("array[string]", False),
        "reason": ("string", False),
        "source_ref": ("string", False),
        "when": ("object[string]", False),
        "pinned": ("boolean", False),
        "replaces": ("string", False),
        "used": ("array[string]", False),
        "gate": ("boolean", False),
        "cwd": ("string", False),
    },
    "log_mission_progress": {
        "goal": ("string", True),
        "step": ("string", True),
        "status": ("string", True),
        "used": ("array[string]", False),
        "cwd": ("string", False),
    },
    "get_action_rules": {
        "action": ("string", True),
        "k": ("integer", False),
        "cwd": ("string", False),
    },
    "tidy": {
        "accept": ("string", False),
        "decline": ("string", False),
        "limit": ("integer", False),
        "cwd": ("string", False),
    },
}


def json_type(schema: dict[str, Any]) -> str:
    """The JSON type of a parameter, `null` left out: `string`, `array[string]`, ..."""
    if "anyOf" in schema:
        kinds = [json_type(s) for s in schema["anyOf"] if s.get("type") != "null"]
        assert len(kinds) == 1, schema
        return kinds[0]
    if schema["type"] == "array":
        return f"array[{json_type(schema['items'])}]"
    if schema["type"] == "object":
        return f"object[{json_type(schema['additionalProperties'])}]"
    return str(schema["type"])


def shapes(tools: list[types.Tool]) -> dict[str, dict[str, tuple[str, bool]]]:
    out = {}
    for tool in tools:
        schema = tool.input_schema
        required = set(schema.get("required", ()))
        out[tool.name] = {
            name: (json_type(prop), name in required) for name, prop in schema["properties"].items()
        }
    return out


@pytest.fixture
def server_tools(tmp_path: Path) -> list[types.Tool]:
    with cairn.open(tmp_path / "home", project=tmp_path, cwd=tmp_path, tool="mcp") as base:
        return anyio.run(build_server(Tools(base)).list_tools)


def test_tool_schemas_are_pinned(server_tools: list[types.Tool]) -> None:
    assert shapes(server_tools) == SCHEMAS
    assert [t.name for t in server_tools] == list(SCHEMAS)


def test_every_tool_tells_the_agent_when_to_use_it(server_tools: list[types.Tool]) -> None:
    for tool in server_tools:
        assert tool.description and len(tool.description) > 150, tool.name
        assert "\n    " not in tool.description, tool.name
        for name, prop in tool.input_schema["properties"].items():
            assert prop.get("description"), (tool.name, name)


def test_kind_choices_follow_the_models() -> None:
    assert get_args(Kind) == KINDS
    assert get_args(RecallKind) == ("pages", *KINDS)


@pytest.mark.parametrize(
    ("client", "tool"),
    [
        ("claude-code", "claude-code"),
        ("Claude Code", "claude-code"),
        ("codex-mcp-client", "codex"),
        ("gemini-cli-mcp-client", "gemini"),
        ("cursor-vscode", "cursor"),
        ("opencode", "opencode"),
        ("Zed Editor", "zed-editor"),
        ("", "mcp"),
        (None, "mcp"),
    ],
)
def test_the_client_name_gives_the_tool_the_hooks_use(client: str | None, tool: str) -> None:
    assert tool_name(client) == tool


# -- the real server over stdio -----------------------------------------------------------------


def git_repo(folder: Path, branch: str) -> Path:
    folder.mkdir()
    run = [
        "git",
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@example.com",
        "-c",
        "commit.gpgsign=false",
    ]
    run += ["-C", str(folder)]
    subprocess.run(["git", "init", "-q", "-b", branch, str(folder)], check=True)
    (folder / "README.md").write_text("# app\n", encoding="utf-8")
    subprocess.run([*run, "add", "README.md"], check=True)
    subprocess.run([*run, "commit", "-q", "-m", "Start the login page"], check=True)
    return folder.resolve()


Session = Callable[[str, dict[str, Any]], Awaitable[types.CallToolResult]]


def serve(
    tmp_path: Path,
    args: list[str],
    client: str,
    script: Callable[[ClientSession, Session], Awaitable[None]],
) -> str:
    """Run the server as a subprocess, hand a connected session to `script`, return its stderr."""
    log = tmp_path / "server.log"
    params = StdioServerParameters(
        command=sys.executable,
        args=args,
        # On the PostgreSQL half, the server's store is the test's database too.
        env={"CAIRN_HOME": str(tmp_path / "home")} | _team_url(),
        cwd=tmp_path,
    )

    async def main() -> None:
        with log.open("w", encoding="utf-8") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(
                    read, write, client_info=types.Implementation(name=client, version="1.0")
                ) as session,
            ):
                await session.initialize()

                async def call(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
                    with anyio.fail_after(10):
                        return await session.call_tool(name, arguments)

                await script(session, call)

    anyio.run(main)
    return log.read_text(encoding="utf-8")


def _team_url() -> dict[str, str]:
    url = os.environ.get("CAIRN_DATABASE_URL")
    return {"CAIRN_DATABASE_URL": url} if url else {}


def ok(result: types.CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert result.structured_content is not None
    text = result.content[0]
    assert isinstance(text, types.TextContent)
    assert json.loads(text.text) == result.structured_content
    return result.structured_content


def test_the_five_tools_over_stdio(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "app", "feat/login")
    cwd = str(repo)
    seen: dict[str, Any] = {}

    async def script(session: ClientSession, call: Session) -> None:
        listed = await session.list_tools()
        assert shapes(listed.tools) == SCHEMAS

        rule = ok(
            await call(
                "remember",
                {
                    "text": "Commit messages are one line with a conventional prefix",
                    "kind": "preference",
                    "tags": ["trigger:git-commit"],
                    "cwd": cwd,
                },
            )
        )
        fact = ok(
            await call(
                "remember",
                {
                    "text": "The login form posts to /api/session",
                    "reason": "read in the router",
                    "cwd": cwd,
                },
            )
        )
        assert rule["outcome"] == fact["outcome"] == "new"

        found = ok(await call("recall", {"query": "login form", "cwd": cwd}))
        assert found["query"] == "login form"
        assert fact["ref"] in [r["ref"] for r in found["results"]]

        shown = ok(await call("get_memory", {"refs": [fact["ref"], "m-000000"], "cwd": cwd}))
        [view] = shown["memories"]
        assert view["ref"] == fact["ref"] and view["reason"] == "read in the router"
        assert view["tool"] == "codex" and view["branch"] == "feat/login"
        assert shown["unknown"] == ["m-000000"]

        rules = ok(await call("get_action_rules", {"action": "git-commit", "cwd": cwd}))
        assert rules["action"] == "git-commit"
        assert [r["ref"] for r in rules["rules"]] == [rule["ref"]]
        assert set(rules["rules"][0]) == {"ref", "text", "written"}
        assert ok(await call("get_action_rules", {"action": "git-push", "cwd": cwd}))["rules"] == []

        logged = ok(
            await call(
                "log_mission_progress",
                {
                    "goal": "Ship the login page",
                    "step": "add the rate limit",
                    "status": "In-Progress",
                    "used": [fact["ref"], "m-000000"],
                    "cwd": cwd,
                },
            )
        )
        assert logged["branch"] == "feat/login" and logged["status"] == "in_progress"
        assert logged["cited"] == [fact["ref"]] and logged["unknown_used"] == ["m-000000"]
        assert logged["brief"]["open"] == ["add the rate limit"]

        brief = ok(await call("recall", {"query": "what is open", "cwd": cwd}))["results"][0]
        assert brief["ref"] == "branch:feat/login" and brief["kind"] == "brief"
        assert brief["goal"] == "Ship the login page" and brief["open"] == ["add the rate limit"]
        assert "last commit: Start the login page" in brief["line"]
        assert brief["sessions"][0]["tool"] == "codex"

        cited = ok(await call("get_memory", {"refs": [fact["ref"]], "cwd": cwd}))["memories"][0]
        assert cited["cited"]["count"] == 1

        refused = await call("remember", {"text": "", "cwd": cwd})
        assert refused.is_error
        [message] = refused.content
        assert isinstance(message, types.TextContent)
        assert "refused: the memory is empty" in message.text

        missing = await call("recall", {"query": "login form"})
        assert missing.is_error and "cwd" in str(missing.content[0])

        bad_cwd = await call("recall", {"query": "login", "cwd": str(tmp_path / "nowhere")})
        assert bad_cwd.is_error and "is not a folder" in str(bad_cwd.content[0])

        seen["session"] = brief["sessions"][0]["id"]

    stderr = serve(tmp_path, ["-m", "cairn.mcp_server"], "codex-mcp-client", script)
    assert "Traceback" not in stderr

    with cairn.open(tmp_path / "home", project=repo, cwd=repo) as ws:
        row = ws.store.get_session(seen["session"])
        assert row is not None and row.id.startswith("mcp-")
        assert (row.tool, row.project, row.branch) == ("codex", str(repo), "feat/login")
        assert row.ended is not None, "the session is marked ended when the client closes"
        [progress] = ws.store.progress(str(repo), "feat/login")
        assert (progress.tool, progress.session) == ("codex", row.id)


def test_cairn_mcp_serves_the_same_tools(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "app", "main")

    async def script(session: ClientSession, call: Session) -> None:
        assert shapes((await session.list_tools()).tools) == SCHEMAS
        saved = ok(await call("remember", {"text": "Releases are cut on Tuesdays"}))
        shown = ok(await call("get_memory", {"refs": [saved["ref"]]}))
        view = shown["memories"][0]
        assert (view["tool"], view["project"], view["branch"]) == ("claude-code", str(repo), "main")

    cli = ["-c", "from cairn.cli import main; main()", "--project", str(repo), "mcp"]
    serve(tmp_path, cli, "claude-code", script)
    with cairn.open(tmp_path / "home", project=repo) as ws:
        assert [m.text for m in ws.list()] == ["Releases are cut on Tuesdays"]


def test_tidy_lists_accepts_and_declines_over_stdio(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "app", "main")
    cwd = str(repo)

    async def script(session: ClientSession, call: Session) -> None:
        for text in (
            "The api tests run with pnpm test --filter api",
            "The api tests run with pnpm test --filter api in CI",
            "Staging deploys run on every merge to main",
            "Staging deploys run on every merge to the main branch",
        ):
            ok(await call("remember", {"text": text, "cwd": cwd}))
        listed = ok(await call("tidy", {"cwd": cwd}))["proposals"]
        merges = [p for p in listed if p["kind"] == "merge"]
        assert len(merges) == 2
        assert ok(await call("tidy", {"limit": 1, "cwd": cwd}))["proposals"] == listed[:1]
        ok(await call("tidy", {"decline": merges[0]["id"], "cwd": cwd}))
        ok(await call("tidy", {"accept": merges[1]["id"], "cwd": cwd}))
        again = ok(await call("tidy", {"cwd": cwd}))["proposals"]
        assert [p for p in again if p["kind"] == "merge"] == []
        bad = await call("tidy", {"accept": "t-nosuch", "cwd": cwd})
        assert bad.is_error

    serve(tmp_path, ["-m", "cairn.mcp_server"], "codex", script)
    with cairn.open(tmp_path / "home", project=repo) as ws:
        assert len(ws.list()) == 3  # one merge accepted: two memories became one


def test_recall_over_mcp_indexes_the_docs_and_never_serves_a_link_out(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "app", "main")
    (repo / "docs").mkdir()
    (repo / "docs" / "guide.md").write_text("# Releases\nReleases are cut with make release.\n")
    outside = tmp_path / "credentials"
    outside.write_text("[default]\nthe aws access key for the release bucket is kept here\n")
    (repo / "docs" / "setup.md").symlink_to(outside)
    cwd = str(repo)

    async def script(session: ClientSession, call: Session) -> None:
        found = ok(await call("recall", {"query": "releases cut", "cwd": cwd}))["results"]
        assert [(r["kind"], r["path"]) for r in found] == [("doc", "docs/guide.md")]
        leaked = ok(await call("recall", {"query": "aws access key", "cwd": cwd}))["results"]
        assert leaked == []
        ok(await call("remember", {"text": "Releases are tagged by the bot", "cwd": cwd}))
        found = ok(await call("recall", {"query": "releases tagged bot", "cwd": cwd}))["results"]
        assert found[0]["kind"] == "fact"

    serve(tmp_path, ["-m", "cairn.mcp_server"], "codex-mcp-client", script)
    # The tool runs recall's steps around the search: the memory it offered is in the ledger.
    store = open_store(tmp_path / "home")  # the server's backend (PostgreSQL on that pass)
    try:
        rows = store.table_rows("offers", ["channel", "session"])
    finally:
        store.close()
    assert [(channel, session[:4]) for channel, session in rows] == [("recall", "mcp-")]


def text_of(result: types.CallToolResult) -> str:
    [message] = result.content
    assert isinstance(message, types.TextContent)
    return message.text


def test_a_broken_store_still_lists_the_tools_and_each_call_says_why(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "app", "main")
    (tmp_path / "home").write_text("not a folder\n", encoding="utf-8")  # CAIRN_HOME is a file

    async def script(session: ClientSession, call: Session) -> None:
        assert shapes((await session.list_tools()).tools) == SCHEMAS
        for name, args in (
            ("recall", {"query": "login", "cwd": str(repo)}),
            ("remember", {"text": "Releases are cut on Tuesdays", "cwd": str(repo)}),
        ):
            refused = await call(name, args)
            assert refused.is_error
            said = text_of(refused)
            assert said.startswith("Cairn's memory is unavailable: ")
            assert str(tmp_path / "home") in said and "`cairn doctor`" in said
        # Repaired while the server runs: the next call opens the store.
        (tmp_path / "home").unlink()
        saved = ok(
            await call("remember", {"text": "Releases are cut on Tuesdays", "cwd": str(repo)})
        )
        assert saved["outcome"] == "new"

    stderr = serve(tmp_path, ["-m", "cairn.mcp_server"], "claude-code", script)
    assert "Traceback" not in stderr


@sqlite_only.FILE
def test_a_damaged_database_still_lists_the_tools(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "app", "main")
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "cairn.db").write_bytes(b"this is not a database" * 100)

    async def script(session: ClientSession, call: Session) -> None:
        assert [t.name for t in (await session.list_tools()).tools] == list(SCHEMAS)
        refused = await call("get_action_rules", {"action": "git-commit", "cwd": str(repo)})
        assert refused.is_error and "is damaged" in text_of(refused)

    serve(tmp_path, ["-m", "cairn.mcp_server"], "claude-code", script)


def test_refusals_are_one_sentence_with_recalls_limits(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "app", "main")
    cwd = str(repo)

    async def script(session: ClientSession, call: Session) -> None:
        for args in ({"limit": 0}, {"limit": 1000}, {"limit": "many"}):
            refused = await call("recall", {"query": "login", "cwd": cwd, **args})
            said = text_of(refused)
            assert refused.is_error, args
            assert said.startswith("recall refused: `limit`"), said
            assert "\n" not in said and "http" not in said and "Error executing" not in said
        assert ok(await call("recall", {"query": "login", "cwd": cwd, "limit": 25}))
        missing = await call("recall", {"cwd": cwd})
        assert text_of(missing) == "recall refused: `query` is required."
        empty = await call("get_action_rules", {"action": "  ", "cwd": cwd})
        assert empty.is_error and text_of(empty) == (
            "an action is one name such as git-commit, not an empty string"
        )
        too_many = await call("get_action_rules", {"action": "git-commit", "k": 1000, "cwd": cwd})
        assert too_many.is_error and text_of(too_many).startswith("get_action_rules refused: `k`")

    serve(tmp_path, ["-m", "cairn.mcp_server"], "claude-code", script)


def test_the_docstring_counts_the_tools_served(server_tools: list[types.Tool]) -> None:
    import cairn.mcp_server as module

    words = {5: "five", 6: "six", 7: "seven"}
    doc = module.__doc__ or ""
    assert doc.startswith(f"The MCP server: {words[len(server_tools)]} tools")
    for tool in server_tools:
        assert f"    {tool.name}(" in doc, tool.name


def test_a_cwd_in_a_clone_with_a_remote_is_its_repository_key(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "app", "main")
    with cairn.open(tmp_path / "home", project=repo, cwd=repo) as ws:
        old = ws.remember("Deploys need the release label").ref  # keyed by the folder
    subprocess.run(
        ["git", "-C", str(repo), "remote", "add", "origin", "git@github.com:acme/app.git"],
        check=True,
    )
    seen: dict[str, Any] = {}

    async def script(session: ClientSession, call: Session) -> None:
        found = ok(await call("recall", {"query": "release label deploys", "cwd": str(repo)}))
        seen["refs"] = [hit["ref"] for hit in found["results"]]
        saved = ok(await call("remember", {"text": "Tags are signed", "cwd": str(repo)}))
        view = ok(await call("get_memory", {"refs": [saved["ref"]]}))["memories"][0]
        seen["project"] = view["project"]

    stderr = serve(tmp_path, ["-m", "cairn.mcp_server"], "codex-mcp-client", script)
    assert "Traceback" not in stderr
    assert seen["project"] == "git:github.com/acme/app"
    with cairn.open(tmp_path / "home", project=repo, cwd=repo) as ws:
        moved = ws.store.get_memory(old).replaced_by
        assert moved is not None and seen["refs"] == [moved]
        assert ws.store.get_memory(moved).project == "git:github.com/acme/app"
