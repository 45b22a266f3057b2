"""The MCP server with a store it cannot open: every tool call says so in words the agent can
act on, nothing is read or saved, and once the store can be opened the next call uses it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver.exceptions import ToolError

import cairn
from cairn.mcp_server import Tools, build_server
from cairn.mcp_server.tools import UNUSABLE

ADVICE = "Nothing was read or saved; carry on without it, and tell the user to run `cairn doctor`"


def _call(tools: Tools, name: str, arguments: dict[str, Any]) -> Any:
    return anyio.run(build_server(tools).call_tool, name, arguments)


def test_a_server_given_no_store_says_so_on_every_call(project: Path) -> None:
    tools = Tools()
    for name, arguments in (
        ("recall", {"query": "deploy", "cwd": str(project)}),
        ("remember", {"text": "We deploy with Render"}),
    ):
        with pytest.raises(ToolError) as caught:
            _call(tools, name, arguments)
        assert str(caught.value) == UNUSABLE.format(why="no store was given to the server")
        assert ADVICE in str(caught.value)


def test_a_store_that_cannot_be_opened_is_tried_again_on_the_next_call(
    home: Path, project: Path
) -> None:
    home.write_text("a file where the store's folder should be", encoding="utf-8")
    tools = Tools(opener=lambda: cairn.open(home, project=project, cwd=project, tool="mcp"))
    with pytest.raises(ToolError) as caught:
        _call(tools, "remember", {"text": "We deploy with Render"})
    message = str(caught.value)
    assert message.startswith("Cairn's memory is unavailable: cannot create the Cairn store at ")
    assert ADVICE in message
    home.unlink()
    try:
        _call(tools, "remember", {"text": "We deploy with Render"})
        found = _call(tools, "recall", {"query": "deploy", "cwd": str(project)})
    finally:
        tools.close()
    assert "We deploy with Render" in str(found)
    with cairn.open(home, project=project) as ws:
        assert [m.text for m in ws.list(limit=None)] == ["We deploy with Render"]
