"""The MCP server's answers as a client sees them, called in process (`build_server(...)
.call_tool`, as the SDK's own session does): action rules, tidy's list / accept / decline,
refusals of arguments that do not fit the schema in one sentence, and a crash that tells the
client nothing of its cause."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError

import cairn
from cairn.mcp_server import Tools, build_server


@pytest.fixture
def tools(home: Path, project: Path) -> Iterator[Tools]:
    served = Tools(opener=lambda: cairn.open(home, project=project, cwd=project, tool="mcp"))
    yield served
    served.close()


def _call(tools: Tools, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = anyio.run(build_server(tools).call_tool, name, arguments)
    assert not result.is_error, result
    answer: dict[str, Any] = result.structured_content
    return answer


def _refused(tools: Tools, name: str, arguments: dict[str, Any]) -> str:
    with pytest.raises(ToolError) as caught:
        anyio.run(build_server(tools).call_tool, name, arguments)
    return str(caught.value)


def test_action_rules_come_back_newest_first_and_only_for_their_action(tools: Tools) -> None:
    older = _call(
        tools,
        "remember",
        {"text": "Run make lint before committing", "tags": ["trigger:git-commit"]},
    )
    newer = _call(
        tools,
        "remember",
        {"text": "Write the changelog line before committing", "tags": ["trigger:git-commit"]},
    )
    _call(tools, "remember", {"text": "Push only to your own branch", "tags": ["trigger:git-push"]})
    answer = _call(tools, "get_action_rules", {"action": "git-commit"})
    assert answer["action"] == "git-commit"
    assert [r["ref"] for r in answer["rules"]] == [newer["ref"], older["ref"]]
    assert answer["rules"][1]["text"] == "Run make lint before committing"
    assert _call(tools, "get_action_rules", {"action": "pr-create"})["rules"] == []


def test_tidy_lists_a_merge_declines_one_and_accepts_another(
    tools: Tools, home: Path, project: Path
) -> None:
    for text in (
        "The api tests run with pnpm test --filter api",
        "The api tests run with pnpm test --filter api in CI",
        "Staging deploys run on every merge to main",
        "Staging deploys run on every merge to the main branch",
    ):
        _call(tools, "remember", {"text": text})
    listed = _call(tools, "tidy", {})["proposals"]
    merges = [p for p in listed if p["kind"] == "merge"]
    assert len(merges) == 2
    assert _call(tools, "tidy", {"limit": 1})["proposals"] == listed[:1]
    declined = _call(tools, "tidy", {"decline": merges[0]["id"]})
    assert declined["declined"]["id"] == merges[0]["id"]
    accepted = _call(tools, "tidy", {"accept": merges[1]["id"]})
    assert accepted["accepted"]["id"] == merges[1]["id"]
    assert [p for p in _call(tools, "tidy", {})["proposals"] if p["kind"] == "merge"] == []
    tools.close()
    with cairn.open(home, project=project) as ws:
        assert len(ws.list(limit=None)) == 3  # the accepted merge made two memories one


def test_an_unknown_proposal_is_refused_in_the_librarys_words(tools: Tools) -> None:
    said = _refused(tools, "tidy", {"accept": "t-nosuch"})
    assert "t-nosuch" in said
    assert not said.startswith("Error executing tool")


def test_a_missing_argument_is_named_in_one_sentence(tools: Tools) -> None:
    assert _refused(tools, "recall", {"cwd": "."}) == "recall refused: `query` is required."


def test_a_wrong_value_is_quoted_shortened_and_the_other_misfits_counted(tools: Tools) -> None:
    long = "x" * 100
    said = _refused(tools, "recall", {"query": "deploy", "cwd": ".", "kind": long, "limit": "many"})
    assert said.startswith("recall refused: `kind`: Input should be 'pages', 'fact', ")
    assert said.endswith(f"(got '{'x' * 56}...), and 1 more field(s) do not fit.")
    assert "\n" not in said and "http" not in said
    one = _refused(tools, "get_action_rules", {"action": "git-commit", "k": 1000})
    assert one.startswith("get_action_rules refused: `k`: ")
    assert one.endswith("(got 1000).")


def test_a_crash_reaches_the_client_without_its_cause(home: Path) -> None:
    def opener() -> cairn.Cairn:
        raise RuntimeError("internal detail at /secret/path")

    crashing = Tools(opener=opener)
    with pytest.raises(UnexpectedToolError) as caught:
        anyio.run(build_server(crashing).call_tool, "recall", {"query": "deploy", "cwd": "."})
    assert str(caught.value) == "Error executing tool recall"
    assert "secret" not in str(caught.value)
