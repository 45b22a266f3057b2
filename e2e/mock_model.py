"""A scripted mock model server for the agent end-to-end tests (127.0.0.1 only).

It speaks just enough of three provider APIs for a real agent CLI to run one scripted turn:

- Anthropic Messages, `POST /v1/messages` (SSE when `"stream": true`): Claude Code, and
  OpenCode through its bundled `@ai-sdk/anthropic` provider;
- OpenAI Responses, `POST /v1/responses` (SSE): Codex with `wire_api = "responses"`;
- Gemini, `POST /v1beta/models/MODEL:streamGenerateContent?alt=sse` and `:generateContent`.

The prompt carries a marker, `[cairn-e2e run=RUN scenario=NAME workdir=PATH]`. A request
whose tools and prompt hold it is answered from the script: with N tool results already in
the conversation, the reply is the script's tool call N+1, or once the script is done a final
text. Requests without tools or without a marker (titles, quota checks, summaries) get a short
plain text. Every request is appended to a JSON-lines log with what it was answered with, so a
test can pick out "the request right after the tool call" and check what the hook added.

Standalone, for poking at a CLI by hand:

    python e2e/mock_model.py --port 8765 --log /tmp/requests.jsonl
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

MARKER = re.compile(
    r"\[cairn-e2e run=(?P<run>[\w-]+) scenario=(?P<scenario>\w+) "
    r"workdir=(?P<workdir>[^\]\s\\\"]+)\]"
)
FINAL_TEXT = "Done: the scripted e2e turn is over."
SIDE_TEXT = "ok"
EDIT_OLD = "VERSION = 1"
EDIT_NEW = "VERSION = 2"
SHELL_COMMAND = "git push --dry-run origin HEAD"
NONE_COMMAND = "ls"
# Files the gate scenarios' commands create: the mock notes which exist at each request, so a
# test can tell whether a command had run when the model was told about it.
MADE_PREFIX = "e2e-made-"
# The gate scenarios: a session's first `git commit` (stopped by a gated rule, with a message
# the rule would reject), its retry (rewritten), and a second commit; an ungated lesson's
# command; and a commit with the store broken. Each command leaves a file behind when it runs.
SHELL_SCRIPTS = {
    "gate": [
        "git commit -q --allow-empty -m 'Updated stuff' && echo 1 > e2e-made-gate-1.txt",
        "git commit -q --allow-empty -m 'fix: update stuff' && echo 2 > e2e-made-gate-2.txt",
        "git commit -q --allow-empty -m 'fix: second change' && echo 3 > e2e-made-gate-3.txt",
    ],
    "ungated": ["git tag -f e2e-mark && echo 1 > e2e-made-ungated-1.txt"],
    "broken": ["git commit -q --allow-empty -m 'Broken store' && echo 1 > e2e-made-broken-1.txt"],
}


@dataclass(frozen=True)
class Step:
    """One scripted tool call: `args` for a JSON tool, `raw` for a freeform (custom) tool."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)
    raw: str | None = None


def script(agent: str, scenario: str, workdir: str) -> list[Step]:
    """The tool calls the model makes, in order, for one agent and scenario.

    The last step is the call under test; earlier steps only prepare it (Claude Code and
    OpenCode refuse to edit a file that was not read first in the session).
    """
    doc = f"{workdir}/docs/guide.md"
    app = f"{workdir}/src/app.py"
    if scenario in SHELL_SCRIPTS:
        return [shell_step(agent, command, workdir) for command in SHELL_SCRIPTS[scenario]]
    if agent == "claude-code":
        return {
            "shell": [Step("Bash", {"command": SHELL_COMMAND, "description": "Dry-run push"})],
            "read": [Step("Read", {"file_path": doc})],
            "edit": [
                Step("Read", {"file_path": app}),
                Step(
                    "Edit",
                    {
                        "file_path": app,
                        "old_string": EDIT_OLD,
                        "new_string": EDIT_NEW,
                        "replace_all": False,
                    },
                ),
            ],
            "none": [Step("Bash", {"command": NONE_COMMAND, "description": "List files"})],
        }.get(scenario, [])
    if agent == "opencode":
        return {
            "shell": [Step("bash", {"command": SHELL_COMMAND, "description": "Dry-run push"})],
            "read": [Step("read", {"filePath": doc})],
            "edit": [
                Step("read", {"filePath": app}),
                Step("edit", {"filePath": app, "oldString": EDIT_OLD, "newString": EDIT_NEW}),
            ],
            "none": [Step("bash", {"command": NONE_COMMAND, "description": "List files"})],
        }.get(scenario, [])
    if agent == "gemini":
        return {
            "shell": [
                Step("run_shell_command", {"command": SHELL_COMMAND, "description": "Dry-run push"})
            ],
            "read": [Step("read_file", {"file_path": doc})],
            "edit": [
                Step(
                    "replace",
                    {
                        "file_path": app,
                        "old_string": EDIT_OLD,
                        "new_string": EDIT_NEW,
                        "instruction": "Bump the version constant.",
                    },
                )
            ],
            "none": [
                Step("run_shell_command", {"command": NONE_COMMAND, "description": "List files"})
            ],
        }.get(scenario, [])
    if agent == "codex":
        patch = (
            f"*** Begin Patch\n*** Update File: src/app.py\n@@\n-{EDIT_OLD}\n+{EDIT_NEW}\n"
            "*** End Patch\n"
        )
        return {
            "shell": [Step("exec_command", {"cmd": SHELL_COMMAND, "workdir": workdir})],
            "edit": [Step("apply_patch", raw=patch)],
            "none": [Step("exec_command", {"cmd": NONE_COMMAND, "workdir": workdir})],
        }.get(scenario, [])
    return []


def shell_step(agent: str, command: str, workdir: str) -> Step:
    """One shell call in the agent's own tool."""
    if agent == "codex":
        return Step("exec_command", {"cmd": command, "workdir": workdir})
    name = {"claude-code": "Bash", "opencode": "bash", "gemini": "run_shell_command"}[agent]
    return Step(name, {"command": command, "description": "Run the scripted command"})


def made_files(workdir: str) -> list[str]:
    """The files the scripted commands made so far in `workdir` (names only)."""
    try:
        return sorted(n for n in os.listdir(workdir) if n.startswith(MADE_PREFIX))
    except OSError:
        return []


# ---------------------------------------------------------------------------------------------
# Reading requests


def strings(value: Any) -> Iterator[str]:
    """Every string inside a JSON value (keys left out), depth first."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def tool_names(provider: str, body: dict[str, Any]) -> list[str]:
    """The names of the tools a request offers the model."""
    names: list[str] = []
    for tool in body.get("tools") or []:
        if not isinstance(tool, dict):
            continue
        if provider == "gemini":
            for decl in tool.get("functionDeclarations") or tool.get("function_declarations") or []:
                if isinstance(decl, dict) and isinstance(decl.get("name"), str):
                    names.append(decl["name"])
        elif isinstance(tool.get("name"), str):
            names.append(tool["name"])
        elif isinstance(tool.get("function"), dict):
            names.append(str(tool["function"].get("name")))
    return names


def tool_results(provider: str, body: dict[str, Any]) -> int:
    """How many tool results the conversation in a request already holds."""
    count = 0
    if provider == "anthropic":
        for msg in body.get("messages") or []:
            content = msg.get("content") if isinstance(msg, dict) else None
            if isinstance(content, list):
                count += sum(
                    1 for b in content if isinstance(b, dict) and b.get("type") == "tool_result"
                )
    elif provider == "responses":
        items = body.get("input")
        if isinstance(items, list):
            count = sum(
                1
                for i in items
                if isinstance(i, dict) and str(i.get("type", "")).endswith("call_output")
            )
    elif provider == "gemini":
        for content in body.get("contents") or []:
            parts = content.get("parts") if isinstance(content, dict) else None
            if isinstance(parts, list):
                count += sum(1 for p in parts if isinstance(p, dict) and "functionResponse" in p)
    return count


def after_last_call(provider: str, body: dict[str, Any]) -> list[Any]:
    """The conversation items after the model's last tool call: the tool result and whatever
    the agent put next to it (hook context lands here)."""
    if provider == "anthropic":
        msgs = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        last = max(
            (
                i
                for i, m in enumerate(msgs)
                if m.get("role") == "assistant"
                and isinstance(m.get("content"), list)
                and any(isinstance(b, dict) and b.get("type") == "tool_use" for b in m["content"])
            ),
            default=-1,
        )
        return msgs[last + 1 :] if last >= 0 else []
    if provider == "responses":
        items = [i for i in body.get("input") or [] if isinstance(i, dict)]
        last = max(
            (
                n
                for n, i in enumerate(items)
                if i.get("type") in ("function_call", "custom_tool_call", "local_shell_call")
            ),
            default=-1,
        )
        return items[last + 1 :] if last >= 0 else []
    if provider == "gemini":
        contents = [c for c in body.get("contents") or [] if isinstance(c, dict)]
        last = max(
            (
                n
                for n, c in enumerate(contents)
                if any(isinstance(p, dict) and "functionCall" in p for p in c.get("parts") or [])
            ),
            default=-1,
        )
        return contents[last + 1 :] if last >= 0 else []
    return []


def which_agent(provider: str, names: list[str]) -> str:
    """The agent behind a request, from the tools it offers."""
    if provider == "responses":
        return "codex"
    if provider == "gemini":
        return "gemini"
    if "Bash" in names:
        return "claude-code"
    if "bash" in names:
        return "opencode"
    return ""


# ---------------------------------------------------------------------------------------------
# Writing replies


class Reply:
    """What one request gets: a tool call (`step`) or a text."""

    def __init__(self, step: Step | None = None, text: str = "") -> None:
        self.step, self.text = step, text

    @property
    def label(self) -> str:
        return f"tool:{self.step.name}" if self.step else "text"


_ids = itertools.count(1)


def new_id(prefix: str) -> str:
    return f"{prefix}_{int(time.time() * 1000) % 10**9}{next(_ids):04d}"


def sse(event: str | None, data: dict[str, Any]) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n".encode()


def anthropic_message(reply: Reply, model: str) -> dict[str, Any]:
    if reply.step:
        block: dict[str, Any] = {
            "type": "tool_use",
            "id": new_id("toolu"),
            "name": reply.step.name,
            "input": reply.step.args,
        }
        stop = "tool_use"
    else:
        block = {"type": "text", "text": reply.text}
        stop = "end_turn"
    return {
        "id": new_id("msg"),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [block],
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {
            "input_tokens": 100,
            "output_tokens": 20,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },
    }


def anthropic_stream(reply: Reply, model: str) -> bytes:
    msg = anthropic_message(reply, model)
    block = msg["content"][0]
    start = dict(msg, content=[], stop_reason=None)
    start["usage"] = dict(msg["usage"], output_tokens=1)
    out = [sse("message_start", {"type": "message_start", "message": start})]
    if block["type"] == "tool_use":
        out.append(
            sse(
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {
                        "type": "tool_use",
                        "id": block["id"],
                        "name": block["name"],
                        "input": {},
                    },
                },
            )
        )
        delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
    else:
        out.append(
            sse(
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                },
            )
        )
        delta = {"type": "text_delta", "text": block["text"]}
    out.append(
        sse("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta})
    )
    out.append(sse("content_block_stop", {"type": "content_block_stop", "index": 0}))
    out.append(
        sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": msg["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": 20},
            },
        )
    )
    out.append(sse("message_stop", {"type": "message_stop"}))
    return b"".join(out)


def responses_stream(reply: Reply, model: str) -> bytes:
    resp_id = new_id("resp")
    if reply.step and reply.step.raw is not None:
        item: dict[str, Any] = {
            "type": "custom_tool_call",
            "id": new_id("ctc"),
            "call_id": new_id("call"),
            "name": reply.step.name,
            "input": reply.step.raw,
            "status": "completed",
        }
    elif reply.step:
        item = {
            "type": "function_call",
            "id": new_id("fc"),
            "call_id": new_id("call"),
            "name": reply.step.name,
            "arguments": json.dumps(reply.step.args),
            "status": "completed",
        }
    else:
        item = {
            "type": "message",
            "id": new_id("msg"),
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": reply.text, "annotations": []}],
        }
    base = {
        "id": resp_id,
        "object": "response",
        "created_at": int(time.time()),
        "model": model,
        "status": "in_progress",
        "output": [],
    }
    usage = {
        "input_tokens": 100,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 20,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 120,
    }
    out = [
        sse(
            "response.created", {"type": "response.created", "sequence_number": 0, "response": base}
        ),
        sse(
            "response.output_item.added",
            {
                "type": "response.output_item.added",
                "sequence_number": 1,
                "output_index": 0,
                "item": dict(item, status="in_progress"),
            },
        ),
    ]
    if item["type"] == "message":
        out.append(
            sse(
                "response.output_text.delta",
                {
                    "type": "response.output_text.delta",
                    "sequence_number": 2,
                    "item_id": item["id"],
                    "output_index": 0,
                    "content_index": 0,
                    "delta": reply.text,
                },
            )
        )
    out.append(
        sse(
            "response.output_item.done",
            {
                "type": "response.output_item.done",
                "sequence_number": 3,
                "output_index": 0,
                "item": item,
            },
        )
    )
    done = dict(base, status="completed", output=[item], usage=usage)
    out.append(
        sse(
            "response.completed",
            {"type": "response.completed", "sequence_number": 4, "response": done},
        )
    )
    return b"".join(out)


def gemini_chunk(reply: Reply, model: str) -> dict[str, Any]:
    if reply.step:
        part: dict[str, Any] = {"functionCall": {"name": reply.step.name, "args": reply.step.args}}
    else:
        part = {"text": reply.text}
    return {
        "candidates": [
            {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {
            "promptTokenCount": 100,
            "candidatesTokenCount": 20,
            "totalTokenCount": 120,
        },
        "modelVersion": model,
    }


# ---------------------------------------------------------------------------------------------
# The server


class MockModel:
    """The mock server: `start()` binds 127.0.0.1 on a free port (or `port`) in a thread."""

    def __init__(self, log: Path, port: int = 0) -> None:
        self.log = Path(log)
        self.log.parent.mkdir(parents=True, exist_ok=True)
        self.lock = threading.Lock()
        self.seq = 0
        mock = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                mock.handle(self, "GET")

            def do_POST(self) -> None:
                mock.handle(self, "POST")

            def do_HEAD(self) -> None:
                mock.handle(self, "HEAD")

        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.httpd.daemon_threads = True
        self.thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self.httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> MockModel:
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True
        )
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        if self.thread is not None:
            self.thread.join(timeout=5)

    def records(self, run: str | None = None) -> list[dict[str, Any]]:
        """The logged requests, oldest first; only those of one run when `run` is given."""
        if not self.log.exists():
            return []
        with self.lock:
            lines = self.log.read_text(encoding="utf-8").splitlines()
        out = [json.loads(line) for line in lines if line.strip()]
        return [r for r in out if run is None or r.get("run") == run]

    # -- one request ------------------------------------------------------------------------

    def handle(self, req: BaseHTTPRequestHandler, method: str) -> None:
        length = int(req.headers.get("Content-Length") or 0)
        raw = req.rfile.read(length) if length else b""
        if req.headers.get("Content-Encoding", "").lower() in ("gzip", "zstd", "br"):
            raw = self.decode(raw, req.headers["Content-Encoding"].lower())
        url = urlsplit(req.path)
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {"_raw": raw.decode("utf-8", "replace")}
        provider = (
            "anthropic"
            if url.path.endswith("/messages")
            else "responses"
            if url.path.endswith("/responses")
            else "gemini"
            if ":generateContent" in url.path or ":streamGenerateContent" in url.path
            else ""
        )
        record: dict[str, Any] = {
            "time": time.time(),
            "method": method,
            "path": req.path,
            "provider": provider,
            "headers": {
                k.lower(): v
                for k, v in req.headers.items()
                if k.lower()
                in ("user-agent", "content-type", "accept", "anthropic-version", "x-stainless-lang")
            },
        }
        status, ctype, payload = 404, "application/json", b'{"error":"not mocked"}'
        if isinstance(body, dict) and provider:
            reply, meta = self.decide(provider, body)
            record.update(meta, reply=reply.label)
            status, ctype, payload = self.render(provider, url, body, reply)
        elif url.path.endswith("/count_tokens"):
            status, payload = 200, b'{"input_tokens": 100}'
        elif method == "GET" and url.path.rstrip("/").endswith("/models"):
            status, payload = 200, b'{"object":"list","data":[],"models":[]}'
        record["status"] = status
        record["body"] = body
        self.write(record)
        req.send_response(status)
        req.send_header("Content-Type", ctype)
        req.send_header("Content-Length", str(len(payload)))
        if ctype == "text/event-stream":
            req.send_header("Cache-Control", "no-cache")
        req.end_headers()
        if method != "HEAD":
            req.wfile.write(payload)
            req.wfile.flush()

    @staticmethod
    def decode(raw: bytes, encoding: str) -> bytes:
        if encoding == "gzip":
            import gzip

            return gzip.decompress(raw)
        return raw  # zstd/br are not in the standard library: logged as raw text

    def decide(self, provider: str, body: dict[str, Any]) -> tuple[Reply, dict[str, Any]]:
        names = tool_names(provider, body)
        text = "\n".join(
            strings(body.get("messages") or body.get("input") or body.get("contents") or [])
        )
        match = MARKER.search(text)
        meta: dict[str, Any] = {"tools": names, "results": tool_results(provider, body)}
        if not match or not names:
            return Reply(text=SIDE_TEXT), meta
        agent = which_agent(provider, names)
        steps = script(agent, match["scenario"], match["workdir"])
        meta.update(run=match["run"], scenario=match["scenario"], agent=agent, steps=len(steps))
        meta["made"] = made_files(match["workdir"])
        done = meta["results"]
        if done < len(steps):
            return Reply(step=steps[done]), meta
        return Reply(text=FINAL_TEXT), meta

    def render(
        self, provider: str, url: Any, body: dict[str, Any], reply: Reply
    ) -> tuple[int, str, bytes]:
        model = str(body.get("model") or "mock-model")
        if provider == "anthropic":
            if body.get("stream"):
                return 200, "text/event-stream", anthropic_stream(reply, model)
            return 200, "application/json", json.dumps(anthropic_message(reply, model)).encode()
        if provider == "responses":
            return 200, "text/event-stream", responses_stream(reply, model)
        model = url.path.rsplit("/", 1)[-1].split(":")[0]
        chunk = gemini_chunk(reply, model)
        if ":streamGenerateContent" in url.path:
            return 200, "text/event-stream", f"data: {json.dumps(chunk)}\r\n\r\n".encode()
        return 200, "application/json", json.dumps(chunk).encode()

    def write(self, record: dict[str, Any]) -> None:
        with self.lock:
            self.seq += 1
            record["seq"] = self.seq
            with self.log.open("a", encoding="utf-8") as out:
                out.write(json.dumps(record) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--log", type=Path, default=Path("mock-requests.jsonl"))
    parser.add_argument("--seconds", type=float, default=600, help="stop after this long")
    args = parser.parse_args()
    mock = MockModel(args.log, args.port).start()
    print(f"mock model on {mock.url}, log {args.log}", flush=True)
    try:
        time.sleep(args.seconds)
    finally:
        mock.stop()


if __name__ == "__main__":
    main()
