"""End to end: real agent CLIs, real Cairn hooks, a scripted mock model on 127.0.0.1.

For each agent: a fake HOME, its own CAIRN_HOME, a work folder that is a git repo (with a
local bare remote, so `git push --dry-run` is harmless and succeeds), hooks installed by
`cairn setup AGENT --project` (or written by hand from the agents' documented hook contracts
when that command does not exist), three lessons saved with `cairn remember`. Then the real CLI runs
headless once per scenario; the mock model asks for one tool call and records the request
that carries the tool result back. The test reads that request:

- shell / read / edit: the matching lesson's sentence and ref are in what follows the tool
  call (tool result, system/developer message or `<hook_context>`), the others are not;
- none (`ls`): no call text ("Cairn memory for this call") and no lesson anywhere in the
  request (the session brief and the MCP instructions are other channels and may be there).

Gates (one session, three commits): a `git commit` rule saved with `--gate` stops the first
commit (its file is never made), the rule reaches the model before the command ran (the mock
notes which files exist at each request), the retry and a second commit run and are not
stopped, and `cairn stats` counts one denial, one retry, changed. An ungated lesson never
blocks; with the store broken, a commit is never blocked either.

Opt-in (`make e2e` / `bash e2e/run.sh`); not part of `make test`. Every subprocess has a
timeout; every server binds 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import cairn.hooks.entry

sys.path.insert(0, str(Path(__file__).parent))

from mock_model import (
    EDIT_NEW,
    EDIT_OLD,
    FINAL_TEXT,
    MADE_PREFIX,
    MockModel,
    after_last_call,
    script,
    strings,
)

HERE = Path(__file__).resolve().parent
TOOLS = Path(os.environ.get("CAIRN_E2E_TOOLS") or HERE / ".tools").resolve() / "node_modules"
PYTHON = Path(sys.executable)
# Cairn as users install it: the wheel in a venv of its own (run.sh builds it and sets
# CAIRN_E2E_VENV); its bin/ goes first on every sandbox's PATH, as ~/.local/bin does for pipx.
CAIRN_BIN = Path(os.environ.get("CAIRN_E2E_VENV") or PYTHON.parent.parent) / "bin"
CAIRN = CAIRN_BIN / "cairn"
ENTRY = Path(cairn.hooks.entry.__file__).resolve()
NODE = shutil.which("node")
SETUP_TIMEOUT = 60
CAIRN_TIMEOUT = 60
RUN_TIMEOUT = {"claude-code": 180, "codex": 180, "gemini": 240, "opencode": 300}
# The header of what a tool call gets (`cairn.usecases.calls.render`). The session brief ("Cairn
# memory
# for this project ...", SessionStart / OpenCode's first call) and the MCP server's
# instructions are other channels, present whether or not a call matched.
CALL_TEXT = "Cairn memory for this call"
# CAIRN_E2E_HOOKS=hand writes the hook configs by hand (e2e/README.md) instead of running
# `cairn setup` (to tell a setup problem from an agent problem); default: setup when it exists.
HOOKS = os.environ.get("CAIRN_E2E_HOOKS", "")

LESSONS = {
    "shell": (
        "Run make check before every git push because CI is slow (e2e kestrel).",
        {"tool": "shell", "match": "git push"},
    ),
    "read": (
        "The docs folder is generated from docstrings, so fix the source and not the "
        "page (e2e heron).",
        {"tool": "read", "path": "docs/**"},
    ),
    "edit": (
        "Every change under src needs a line in the changelog (e2e plover).",
        {"tool": "edit", "path": "src/**"},
    ),
}
# A gated action rule, and an ungated lesson (saved by every sandbox; see the gate tests).
GATE_RULE = "Commit messages: one line with a conventional prefix such as fix: (e2e wren)."
UNGATED = (
    "Tags name releases, so check the version first (e2e finch).",
    {"tool": "shell", "match": "git tag"},
)
AGENTS = ("claude-code", "codex", "gemini", "opencode")
SCENARIOS = ("shell", "read", "edit", "none")
# Scenarios an agent cannot express with its own tools, and why.
NOT_APPLICABLE = {
    ("codex", "read"): "Codex has no read tool: reads go through exec_command (a shell call), so "
    "a read trigger has no tool call to ride on",
}


# ---------------------------------------------------------------------------------------------
# Finding the installed CLIs


def first_file(*candidates: Path) -> Path | None:
    for path in candidates:
        if path.is_file() and os.access(path, os.X_OK):
            return path
    return None


def command_for(agent: str) -> list[str] | None:
    """The argv prefix that starts an agent's CLI from e2e/.tools, or None when missing."""
    if agent == "claude-code":
        # npm 11 blocks the postinstall that copies the native binary to bin/claude.exe.
        native = sorted(TOOLS.glob("@anthropic-ai/claude-code-*/claude"))
        found = first_file(*native, TOOLS / "@anthropic-ai/claude-code/bin/claude.exe")
        return [str(found)] if found else None
    if agent == "codex":
        wrapper = TOOLS / "@openai/codex/bin/codex.js"
        if NODE and wrapper.is_file():
            return [NODE, str(wrapper)]
        native = first_file(*sorted(TOOLS.glob("@openai/codex-*/vendor/*/bin/codex")))
        return [str(native)] if native else None
    if agent == "gemini":
        bundle = TOOLS / "@google/gemini-cli/bundle/gemini.js"
        return [NODE, str(bundle)] if NODE and bundle.is_file() else None
    if agent == "opencode":
        found = first_file(
            TOOLS / "opencode-ai/bin/opencode.exe",
            *sorted(TOOLS.glob("opencode-linux-*/bin/opencode")),
        )
        return [str(found)] if found else None
    return None


def missing(agent: str) -> str:
    return (
        f"{agent} CLI is not installed in {TOOLS.parent} (run `bash e2e/run.sh`, which "
        "installs it from the npm registry)" + ("" if NODE else "; node is not on PATH")
    )


def setup_command_exists() -> bool:
    """Whether this Cairn has `cairn setup` (written by another change; may not exist yet)."""
    try:
        done = subprocess.run(
            [str(CAIRN), "setup", "--help"],
            capture_output=True,
            text=True,
            timeout=CAIRN_TIMEOUT,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


# ---------------------------------------------------------------------------------------------
# One agent's sandbox


@dataclass
class Sandbox:
    agent: str
    root: Path
    mock: MockModel
    refs: dict[str, str] = field(default_factory=dict)
    hooks_by: str = ""

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def work(self) -> Path:
        return self.root / "work"

    @property
    def cairn_home(self) -> Path:
        return self.root / "cairn"

    def env(self) -> dict[str, str]:
        """A clean environment: no inherited keys, tokens or config of the real user."""
        env = {
            "PATH": f"{CAIRN_BIN}{os.pathsep}"
            + os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
            "HOME": str(self.home),
            "LANG": "C.UTF-8",
            "TERM": "dumb",
            "TMPDIR": str(self.root / "tmp"),
            "CAIRN_HOME": str(self.cairn_home),
            "GIT_CONFIG_NOSYSTEM": "1",
            "NO_COLOR": "1",
        }
        if self.agent == "claude-code":
            env.update(
                ANTHROPIC_BASE_URL=self.mock.url,
                ANTHROPIC_API_KEY="sk-ant-dummy",
                CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
                DISABLE_AUTOUPDATER="1",
            )
            if os.geteuid() == 0:  # else: "--dangerously-skip-permissions cannot be used
                env["IS_SANDBOX"] = "1"  # with root/sudo privileges"
        elif self.agent == "codex":
            env.update(MOCK_API_KEY="dummy")
        elif self.agent == "gemini":
            env.update(
                GOOGLE_GEMINI_BASE_URL=self.mock.url,
                GEMINI_API_KEY="dummy",
                GEMINI_CLI_TRUST_WORKSPACE="true",
            )
        elif self.agent == "opencode":
            env.update(
                PWD=str(self.work),  # OpenCode takes its project dir from $PWD
                XDG_CONFIG_HOME=str(self.home / ".config"),
                XDG_DATA_HOME=str(self.home / ".local/share"),
                XDG_CACHE_HOME=str(self.home / ".cache"),
                XDG_STATE_HOME=str(self.home / ".local/state"),
                OPENCODE_DISABLE_AUTOUPDATE="1",
                OPENCODE_DISABLE_MODELS_FETCH="1",
                OPENCODE_DISABLE_LSP_DOWNLOAD="1",
            )
        return env

    def run(
        self, argv: list[str], timeout: float, cwd: Path | None = None
    ) -> subprocess.CompletedProcess[str]:
        try:
            return subprocess.run(
                argv,
                cwd=cwd or self.work,
                env=self.env(),
                text=True,
                capture_output=True,
                timeout=timeout,
                stdin=subprocess.DEVNULL,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            out = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else ""
            err = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else ""
            pytest.fail(
                f"{argv[0]} timed out after {timeout}s\nstdout:\n{out[-3000:]}\n"
                f"stderr:\n{err[-3000:]}"
            )

    def git(self, *args: str, cwd: Path | None = None) -> None:
        done = self.run(["git", *args], CAIRN_TIMEOUT, cwd=cwd)
        assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"

    # -- building it --------------------------------------------------------------------------

    def build(self) -> None:
        for folder in (self.home, self.work, self.root / "tmp"):
            folder.mkdir(parents=True)
        (self.home / ".gitconfig").write_text(
            "[user]\n\tname = Cairn E2E\n\temail = e2e@example.invalid\n"
            "[init]\n\tdefaultBranch = main\n",
            encoding="utf-8",
        )
        self.git("init", "-q")
        # In the repository too: Gemini CLI runs shell commands without the sandbox's HOME, so
        # a `git commit` it runs would not find the identity in ~/.gitconfig.
        self.git("config", "user.name", "Cairn E2E")
        self.git("config", "user.email", "e2e@example.invalid")
        (self.work / "docs").mkdir()
        (self.work / "src").mkdir()
        (self.work / "docs/guide.md").write_text(
            "# Guide\n\nHow to use the app.\n", encoding="utf-8"
        )
        (self.work / "src/app.py").write_text(f'"""The app."""\n\n{EDIT_OLD}\n', encoding="utf-8")
        (self.work / "README.md").write_text("# App\n", encoding="utf-8")
        self.git("add", "-A")
        self.git("commit", "-q", "-m", "Initial commit")
        remote = self.root / "remote.git"
        self.git("init", "-q", "--bare", str(remote))
        self.git("remote", "add", "origin", str(remote))
        self.git("push", "-q", "origin", "main")
        self.write_agent_config()
        self.install_hooks()
        for scenario, (sentence, when) in LESSONS.items():
            done = self.run(
                [str(CAIRN), "remember", "--json", sentence, "--when", json.dumps(when)],
                CAIRN_TIMEOUT,
            )
            assert done.returncode == 0, f"cairn remember failed: {done.stderr}{done.stdout}"
            self.refs[scenario] = json.loads(done.stdout)["ref"]
        gate_rule = ["--kind", "rule", "--tag", "trigger:git-commit", "--gate"]
        ungated = ["--when", json.dumps(UNGATED[1])]
        for name, sentence, extra in (
            ("gate", GATE_RULE, gate_rule),
            ("ungated", UNGATED[0], ungated),
        ):
            done = self.run([str(CAIRN), "remember", "--json", sentence, *extra], CAIRN_TIMEOUT)
            assert done.returncode == 0, f"cairn remember failed: {done.stderr}{done.stdout}"
            self.refs[name] = json.loads(done.stdout)["ref"]

    def write_agent_config(self) -> None:
        """Point the CLI at the mock model (the user-level config; no hooks in it)."""
        if self.agent == "codex":
            codex = self.home / ".codex"
            codex.mkdir()
            (codex / "config.toml").write_text(
                'model = "gpt-5.5"\n'  # a bundled slug: the model gets the apply_patch tool
                'model_provider = "mock"\n'
                'approval_policy = "never"\n'
                'sandbox_mode = "danger-full-access"\n\n'
                "[model_providers.mock]\n"
                'name = "mock"\n'
                f'base_url = "{self.mock.url}/v1"\n'
                'env_key = "MOCK_API_KEY"\n'
                'wire_api = "responses"\n\n'
                f'[projects."{self.work}"]\n'
                'trust_level = "trusted"\n',
                encoding="utf-8",
            )
        elif self.agent == "gemini":
            gemini = self.home / ".gemini"
            gemini.mkdir()
            settings = {
                "security": {"auth": {"selectedType": "gemini-api-key"}},
                "privacy": {"usageStatisticsEnabled": False},
                "telemetry": {"enabled": False},
            }
            (gemini / "settings.json").write_text(json.dumps(settings, indent=2), encoding="utf-8")
        elif self.agent == "opencode":
            config = self.home / ".config/opencode"
            config.mkdir(parents=True)
            settings = {
                "$schema": "https://opencode.ai/config.json",
                "model": "mock/mock-model",
                "autoupdate": False,
                "share": "disabled",
                "permission": {
                    "bash": "allow",
                    "edit": "allow",
                    "read": "allow",
                    "external_directory": "allow",
                },
                "provider": {
                    "mock": {
                        "npm": "@ai-sdk/anthropic",
                        "options": {"baseURL": f"{self.mock.url}/v1", "apiKey": "dummy"},
                        "models": {
                            "mock-model": {
                                "tool_call": True,
                                "limit": {"context": 200000, "output": 8192},
                            }
                        },
                    }
                },
            }
            (config / "opencode.json").write_text(json.dumps(settings, indent=2), encoding="utf-8")

    def install_hooks(self) -> None:
        if HOOKS != "hand" and (HOOKS == "setup" or setup_command_exists()):
            # Codex runs a hook only once it is approved: the user asks Cairn to (--trust).
            trust = ["--trust"] if self.agent == "codex" else []
            done = self.run([str(CAIRN), "setup", self.agent, "--project", *trust], SETUP_TIMEOUT)
            assert done.returncode == 0, f"cairn setup failed: {done.stderr}{done.stdout}"
            self.hooks_by = "cairn setup"
            return
        write_hooks_by_hand(self.agent, self.work)
        self.hooks_by = "hand"

    # -- one headless run ---------------------------------------------------------------------

    def argv(self, prompt: str) -> list[str]:
        base = command_for(self.agent)
        assert base is not None
        if self.agent == "claude-code":
            return [
                *base,
                "-p",
                prompt,
                "--dangerously-skip-permissions",
                "--output-format",
                "json",
            ]
        if self.agent == "codex":
            extra = [] if self.hooks_by == "cairn setup" else ["--dangerously-bypass-hook-trust"]
            # `cairn setup` must trust its own hooks; hand-written ones are trusted per run.
            return [*base, "exec", "--skip-git-repo-check", *extra, prompt]
        if self.agent == "gemini":
            return [*base, "-p", prompt, "--yolo", "-m", "gemini-2.5-flash"]
        return [*base, "run", prompt]


def hook_command(agent: str, event: str) -> str:
    """The hook command line as `cairn setup` registers it (bench/hook.py): the absolute
    interpreter (a pyenv shim costs ~100 ms a call), `-S`, the entry run as a file."""
    return shlex.join([str(PYTHON), "-S", str(ENTRY), agent, event])


OPENCODE_PLUGIN = """\
// Cairn: lessons on tool calls (e2e stand-in for `cairn setup opencode --project`).
import { execFile } from "node:child_process";

const PYTHON = __PYTHON__;
const ENTRY = __ENTRY__;

function hook(payload, cwd, event = "after") {
  return new Promise((resolve) => {
    try {
      const args = ["-S", ENTRY, "opencode", event];
      const child = execFile(PYTHON, args, { cwd, timeout: 3000, maxBuffer: 1 << 20 },
        (err, stdout) => resolve(err ? "" : String(stdout || "")));
      child.stdin.on("error", () => {});
      child.stdin.end(payload);
    } catch {
      resolve("");
    }
  });
}

export const CairnPlugin = async ({ directory }) => ({
  "tool.execute.before": async (input, output) => {
    let gate = "";
    try {
      const payload = JSON.stringify({ tool: input.tool, sessionID: input.sessionID,
        callID: input.callID, directory, args: output.args ?? {} });
      gate = await hook(payload, directory, "before");
    } catch {
      gate = "";
    }
    if (gate) throw new Error(gate);  // a gate's reason: the only thing "before" prints
  },
  "tool.execute.after": async (input, output) => {
    try {
      const payload = JSON.stringify({ tool: input.tool, sessionID: input.sessionID,
        callID: input.callID, directory, args: input.args ?? {} });
      const text = await hook(payload, directory);
      if (text && typeof output.output === "string") output.output += text;
    } catch {
      // never throw: an exception here would reach the model as the tool's result
    }
  },
});
"""


def write_hooks_by_hand(agent: str, work: Path) -> None:
    """Project-level hook config as each agent documents it (see e2e/README.md)."""
    if agent == "claude-code":
        config = {
            "hooks": {
                "PreToolUse": [
                    {
                        "matcher": "Bash|Read|Edit|Write",
                        "hooks": [
                            {
                                "type": "command",
                                "command": hook_command(agent, "PreToolUse"),
                                "timeout": 5,
                            }
                        ],
                    }
                ]
            }
        }
        target = work / ".claude/settings.json"
    elif agent == "codex":
        config = {
            "hooks": {
                "PreToolUse": [
                    {
                        "matcher": "Bash|apply_patch",
                        "hooks": [
                            {
                                "type": "command",
                                "command": hook_command(agent, "PreToolUse"),
                                "timeout": 5,
                            }
                        ],
                    }
                ]
            }
        }
        target = work / ".codex/hooks.json"
    elif agent == "gemini":
        config = {
            "hooks": {
                event: [
                    {
                        "matcher": "run_shell_command|read_file|read_many_files|replace|write_file",
                        "hooks": [
                            {
                                "type": "command",
                                "command": hook_command(agent, event),
                                "timeout": 5000,
                                "name": "cairn",
                            }
                        ],
                    }
                ]
                for event in ("BeforeTool", "AfterTool")  # BeforeTool: for gates only
            }
        }
        target = work / ".gemini/settings.json"
    elif agent == "opencode":
        target = work / ".opencode/plugins/cairn.js"
        target.parent.mkdir(parents=True)
        plugin = OPENCODE_PLUGIN.replace("__PYTHON__", json.dumps(str(PYTHON)))
        target.write_text(plugin.replace("__ENTRY__", json.dumps(str(ENTRY))), encoding="utf-8")
        return
    else:
        raise ValueError(agent)
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps(config, indent=2), encoding="utf-8")


# ---------------------------------------------------------------------------------------------
# Fixtures


@pytest.fixture(scope="session")
def mock(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MockModel]:
    server = MockModel(tmp_path_factory.mktemp("mock") / "requests.jsonl").start()
    yield server
    server.stop()


_SANDBOXES: dict[str, Sandbox] = {}
_BROKEN: dict[str, str] = {}


@pytest.fixture
def sandbox(
    request: pytest.FixtureRequest, mock: MockModel, tmp_path_factory: pytest.TempPathFactory
) -> Sandbox:
    """The agent's sandbox, built once per agent and shared by its scenarios."""
    agent = request.param
    if agent in _BROKEN:
        pytest.fail(
            f"the {agent} sandbox could not be built (see its first test): {_BROKEN[agent]}",
            pytrace=False,
        )
    if agent not in _SANDBOXES:
        box = Sandbox(agent, tmp_path_factory.mktemp(agent), mock)
        try:
            box.build()
        except BaseException as exc:  # pytest.fail raises a BaseException
            _BROKEN[agent] = f"{type(exc).__name__}: {str(exc)[:1500]}"
            raise
        _SANDBOXES[agent] = box
    return _SANDBOXES[agent]


# ---------------------------------------------------------------------------------------------
# The tests


def describe(records: list[dict[str, Any]]) -> str:
    return (
        "\n".join(
            f"  #{r['seq']} {r['path']} results={r.get('results')} -> {r.get('reply')}"
            for r in records
        )
        or "  (none)"
    )


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize(
    "sandbox",
    [
        pytest.param(
            agent, marks=pytest.mark.skipif(command_for(agent) is None, reason=missing(agent))
        )
        for agent in AGENTS
    ],
    indirect=True,
)
def test_lesson_reaches_the_model(sandbox: Sandbox, scenario: str) -> None:
    agent = sandbox.agent
    if (agent, scenario) in NOT_APPLICABLE:
        pytest.skip(NOT_APPLICABLE[(agent, scenario)])
    run = f"{agent}-{scenario}-{uuid.uuid4().hex[:8]}"
    prompt = (
        f"Carry out the scripted step. [cairn-e2e run={run} scenario={scenario} "
        f"workdir={sandbox.work}]"
    )
    before = (sandbox.work / "src/app.py").read_text(encoding="utf-8")
    done = sandbox.run(sandbox.argv(prompt), RUN_TIMEOUT[agent])
    output = f"stdout:\n{done.stdout[-4000:]}\nstderr:\n{done.stderr[-4000:]}"
    records = sandbox.mock.records(run)
    log = f"mock log: {sandbox.mock.log} (run={run})\nrequests:\n{describe(records)}"
    assert done.returncode == 0, f"{agent} exited {done.returncode}\n{output}\n{log}"
    if scenario == "edit":
        text = (sandbox.work / "src/app.py").read_text(encoding="utf-8")
        (sandbox.work / "src/app.py").write_text(before, encoding="utf-8")
        assert EDIT_NEW in text and EDIT_OLD not in text, (
            f"the edit did not happen (was it blocked?)\nbefore:\n{before}\nafter:\n{text}"
            f"\n{output}\n{log}"
        )

    steps = script(agent, scenario, str(sandbox.work))
    nexts = [r for r in records if r.get("results") == len(steps)]
    assert nexts, (
        f"{agent} never sent the result of its scripted tool call back to the "
        f"model\n{log}\n{output}"
    )
    nxt = nexts[0]
    assert nxt["reply"] == "text", log
    assert FINAL_TEXT in done.stdout + done.stderr, f"the turn did not finish\n{output}"
    after = "\n".join(strings(after_last_call(nxt["provider"], nxt["body"])))
    everything = "\n".join(strings(nxt["body"]))
    hook_errors = sandbox.cairn_home / "hook-errors.log"
    errors = hook_errors.read_text(encoding="utf-8") if hook_errors.exists() else ""
    where = (
        f"hooks installed by {sandbox.hooks_by}; request #{nxt['seq']} after the call "
        f"holds:\n{after[-3000:]}\n{log}\nhook errors: {errors or '(none)'}"
    )

    if scenario == "none":
        assert CALL_TEXT not in everything, f"Cairn call text arrived on `ls`\n{where}"
        for other, (sentence, _) in LESSONS.items():
            assert sentence not in everything, f"the {other} lesson arrived on `ls`\n{where}"
            assert sandbox.refs[other] not in everything, where
    else:
        sentence = LESSONS[scenario][0]
        assert sentence in after, (
            f"the {scenario} lesson ({sandbox.refs[scenario]}) did not reach the model\n{where}"
        )
        assert sandbox.refs[scenario] in after, where
        assert CALL_TEXT in after, where
        for other, (other_sentence, _) in LESSONS.items():
            if other != scenario:
                assert other_sentence not in everything, (
                    f"the {other} lesson arrived on a {scenario} call\n{where}"
                )
    assert not errors, f"the hook logged errors:\n{errors}"


def run_scenario(sandbox: Sandbox, scenario: str) -> tuple[list[dict[str, Any]], str]:
    """Run one headless turn of a scenario; (the mock's records of it, what to show on failure).
    The turn must finish (exit 0, the final text)."""
    agent = sandbox.agent
    run = f"{agent}-{scenario}-{uuid.uuid4().hex[:8]}"
    prompt = (
        f"Carry out the scripted step. [cairn-e2e run={run} scenario={scenario} "
        f"workdir={sandbox.work}]"
    )
    done = sandbox.run(sandbox.argv(prompt), RUN_TIMEOUT[agent])
    output = f"stdout:\n{done.stdout[-4000:]}\nstderr:\n{done.stderr[-4000:]}"
    records = sandbox.mock.records(run)
    log = (
        f"hooks installed by {sandbox.hooks_by}; mock log: {sandbox.mock.log} (run={run})\n"
        f"requests:\n{describe(records)}\n{output}"
    )
    assert done.returncode == 0, f"{agent} exited {done.returncode}\n{log}"
    assert FINAL_TEXT in done.stdout + done.stderr, f"the turn did not finish\n{log}"
    return records, log


def answer_to(records: list[dict[str, Any]], calls: int, log: str) -> tuple[dict[str, Any], str]:
    """The first request carrying `calls` tool results back, and the text after its last call."""
    found = [r for r in records if r.get("results") == calls]
    assert found, f"no request carried the result of scripted call {calls}\n{log}"
    record = found[0]
    return record, "\n".join(strings(after_last_call(record["provider"], record["body"])))


def hook_errors(sandbox: Sandbox) -> str:
    path = sandbox.cairn_home / "hook-errors.log"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def made(sandbox: Sandbox) -> set[str]:
    return {p.name for p in sandbox.work.iterdir() if p.name.startswith(MADE_PREFIX)}


def commit_messages(sandbox: Sandbox) -> list[str]:
    done = sandbox.run(["git", "log", "--format=%s"], CAIRN_TIMEOUT)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


AGENT_PARAMS = [
    pytest.param(agent, marks=pytest.mark.skipif(command_for(agent) is None, reason=missing(agent)))
    for agent in AGENTS
]


@pytest.mark.parametrize("sandbox", AGENT_PARAMS, indirect=True)
def test_a_gate_stops_the_first_commit_once_before_it_runs(sandbox: Sandbox) -> None:
    ref = sandbox.refs["gate"]
    records, log = run_scenario(sandbox, "gate")
    # The model hears the rule in the answer to the first commit, and that commit had not run.
    first, after = answer_to(records, 1, log)
    assert GATE_RULE in after and ref in after, (
        f"the gate's rule did not reach the model\n{after[-3000:]}\n{log}"
    )
    assert "run the command again" in after, log
    assert "e2e-made-gate-1.txt" not in first["made"], f"the stopped commit ran\n{log}"
    # The retry runs, and so does a second commit: neither is stopped, the rule is not repeated.
    for calls in (2, 3):
        record, after = answer_to(records, calls, log)
        assert f"e2e-made-gate-{calls}.txt" in record["made"], f"commit {calls} did not run\n{log}"
        assert GATE_RULE not in after and "run the command again" not in after, (
            f"commit {calls} was stopped or got the rule again\n{after[-3000:]}\n{log}"
        )
    assert {"e2e-made-gate-2.txt", "e2e-made-gate-3.txt"} <= made(sandbox)
    assert "e2e-made-gate-1.txt" not in made(sandbox)
    messages = commit_messages(sandbox)
    assert "fix: update stuff" in messages and "fix: second change" in messages, messages
    assert "Updated stuff" not in messages, messages
    done = sandbox.run([str(CAIRN), "stats", "--json"], CAIRN_TIMEOUT)
    assert done.returncode == 0, done.stderr
    gates = json.loads(done.stdout)["gates"]
    assert [
        (g["ref"], g["denials"], g["retries"], g["differed"], g["by_agent"]) for g in gates
    ] == [(ref, 1, 1, 1, {sandbox.agent: 1})], gates
    assert not hook_errors(sandbox), f"the hook logged errors:\n{hook_errors(sandbox)}"


@pytest.mark.parametrize("sandbox", AGENT_PARAMS, indirect=True)
def test_an_ungated_lesson_never_blocks(sandbox: Sandbox) -> None:
    records, log = run_scenario(sandbox, "ungated")
    record, after = answer_to(records, 1, log)
    assert "e2e-made-ungated-1.txt" in record["made"], f"the command did not run first\n{log}"
    assert UNGATED[0] in after and sandbox.refs["ungated"] in after, log  # with the result
    assert "run the command again" not in after and "Before this call runs" not in after, log
    assert not hook_errors(sandbox), f"the hook logged errors:\n{hook_errors(sandbox)}"


@pytest.mark.parametrize("sandbox", AGENT_PARAMS, indirect=True)
def test_a_broken_store_never_blocks(sandbox: Sandbox) -> None:
    store = sandbox.cairn_home / "cairn.db"
    saved = {
        p: p.read_bytes()
        for p in (store, store.with_name("cairn.db-wal"), store.with_name("cairn.db-shm"))
        if p.exists()
    }
    errors = sandbox.cairn_home / "hook-errors.log"
    try:
        for path in saved:
            path.unlink()
        store.write_bytes(b"this is not a database" * 100)
        records, log = run_scenario(sandbox, "broken")
        record, after = answer_to(records, 1, log)
        assert "e2e-made-broken-1.txt" in record["made"], f"the commit was blocked\n{log}"
        assert GATE_RULE not in after and "run the command again" not in after, log
        assert "StoreError" in hook_errors(sandbox), "the hook never reached the broken store"
    finally:
        store.unlink(missing_ok=True)
        for path, data in saved.items():
            path.write_bytes(data)
        errors.unlink(missing_ok=True)


def test_cursor() -> None:
    pytest.skip(
        "Cursor cannot be installed or run offline: its only CLI (cursor-agent) comes "
        "from a curl installer, and the npm package `cursor-agent` is unrelated"
    )


# ---------------------------------------------------------------------------------------------
# Installs: a broken store, a checkout at another path, install then uninstall


@pytest.mark.parametrize("sandbox", AGENT_PARAMS, indirect=True)
def test_a_broken_store_keeps_the_mcp_server_and_tells_the_model_nothing(
    sandbox: Sandbox,
) -> None:
    """A file where the store folder should be: the agent still connects to Cairn's MCP server
    (its tools are offered to the model) and no request says that a server failed."""
    home = sandbox.cairn_home
    aside = home.with_name("cairn-aside")
    home.rename(aside)
    try:
        home.write_text("not a folder\n", encoding="utf-8")
        records, log = run_scenario(sandbox, "none")
        assert records, log
        first = "\n".join(strings(records[0]["body"]))
        if sandbox.agent == "claude-code":
            # Claude Code does not wait for MCP servers before its first request ("still
            # connecting"), so ask it: `claude mcp list` starts each server and reports it.
            listed = sandbox.run([*(command_for("claude-code") or []), "mcp", "list"], 120)
            line = next((x for x in listed.stdout.splitlines() if x.startswith("cairn:")), "")
            assert "Connected" in line and "Failed" not in line, listed.stdout + listed.stderr
        elif sandbox.agent != "codex":  # Codex 0.171 defers MCP tools behind `tool_search`
            assert "get_action_rules" in first, f"Cairn's MCP tools were not offered\n{log}"
        for record in records:
            text = "\n".join(strings(record["body"]))
            told = MCP_FAILURE.search(text)
            assert told is None, f"the model was told: {told and told.group()!r}\n{log}"
    finally:
        home.unlink(missing_ok=True)
        aside.rename(home)


MCP_FAILURE = re.compile(
    r"(?i)failed to connect|cairn[^\n]{0,60}\b(?:fail|error|disconnect)|"
    r"\b(?:fail|error)[^\n]{0,60}\bcairn\b"
)
COMMITTED = {
    "claude-code": (".claude/settings.json",),
    "gemini": (".gemini/settings.json",),
}


@pytest.mark.parametrize(
    "sandbox",
    [p for p in AGENT_PARAMS if p.values[0] in COMMITTED],
    indirect=True,
)
def test_the_committed_files_work_from_another_checkout_path(sandbox: Sandbox) -> None:
    """The project's committed config, cloned to another path (a teammate's machine): the
    files are the same bytes, hold no path of the first checkout, and the lesson still reaches
    the model there without running `cairn setup` again; the run leaves them unchanged."""
    files = COMMITTED[sandbox.agent]
    sandbox.git("add", "-f", *files)
    sandbox.git("commit", "-q", "-m", "Share Cairn's hooks")
    other = sandbox.root / "elsewhere" / "checkout"
    other.parent.mkdir()
    sandbox.git("clone", "-q", str(sandbox.work), str(other), cwd=sandbox.root)
    for name in files:
        raw = (other / name).read_bytes()
        assert raw == (sandbox.work / name).read_bytes()
        for machine in (str(sandbox.work), str(sandbox.cairn_home), str(CAIRN_BIN), "python"):
            assert machine.encode() not in raw, f"{name} names {machine}"
    sentence = "Pushing from the second checkout needs a green build first (e2e osprey)."
    done = sandbox.run(
        [str(CAIRN), "remember", "--json", sentence, "--when", json.dumps(LESSONS["shell"][1])],
        CAIRN_TIMEOUT,
        cwd=other,
    )
    assert done.returncode == 0, done.stderr
    ref = json.loads(done.stdout)["ref"]
    run = f"{sandbox.agent}-moved-{uuid.uuid4().hex[:8]}"
    prompt = f"Carry out the scripted step. [cairn-e2e run={run} scenario=shell workdir={other}]"
    done = sandbox.run(sandbox.argv(prompt), RUN_TIMEOUT[sandbox.agent], cwd=other)
    records = sandbox.mock.records(run)
    log = f"requests:\n{describe(records)}\nstdout:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    assert done.returncode == 0, log
    _, after = answer_to(records, 1, log)
    assert sentence in after and ref in after, f"the lesson did not reach the model\n{log}"
    status = sandbox.run(["git", "status", "--porcelain"], CAIRN_TIMEOUT, cwd=other)
    assert status.stdout == "", f"the run changed the checkout:\n{status.stdout}"


USER_FILES = {
    ".claude/settings.json": b'{\n  "permissions": {"allow": ["Bash(ls:*)", "Read"]},\n'
    b'  "model": "opus"\n}\n',
    ".claude.json": b'{"numStartups": 4, "projects": {}}\n',
    ".codex/config.toml": b'# mine\nmodel = "o3"\n\n[projects."/x"]\ntrust_level = "trusted"\n',
    ".gemini/settings.json": b'{\n  // my theme\n  "ui": {"theme": "GitHub"},\n}\n',
    ".config/opencode/opencode.jsonc": b'{\n  // my model\n  "model": "anthropic/x"\n}\n',
    ".cursor/mcp.json": b'{"mcpServers": {"docs": {"command": "/usr/bin/docs"}}}\n',
}
PROJECT_FILES = {
    ".claude/settings.json": b'{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": '
    b'[{"type": "command", "command": "./lint.sh"}]}]}}',
    ".mcp.json": b'{\n  "mcpServers": {"db": {"command": "db-mcp", "env": {"TOKEN": "t-1"}}}\n}\n',
    ".gemini/settings.json": b'{\n  /* the team\'s */ "model": {"name": "gemini-2.5-pro"}\n}\n',
    "opencode.json": b'{\n  "$schema": "https://opencode.ai/config.json",\n  "mcp": {}\n}\n',
}


def everything(*roots: Path) -> dict[str, bytes | None]:
    """Every file (its bytes) and folder (None) under the roots."""
    return {
        str(p): (p.read_bytes() if p.is_file() else None)
        for root in roots
        for p in sorted(root.rglob("*"))
        if ".git" not in p.relative_to(root).parts[:1]
    }


@pytest.mark.parametrize("agent", [*AGENTS, "cursor"])
def test_install_then_uninstall_leaves_every_user_file_byte_for_byte(
    agent: str, tmp_path: Path
) -> None:
    """With the user's own config files in place (comments, compact arrays, a token), both
    scopes installed then uninstalled by the installed `cairn`: every file and folder is as
    it was, and the project's `git status` never shows a backup."""
    home, work = tmp_path / "home", tmp_path / "work"
    for root, files in ((home, USER_FILES), (work, PROJECT_FILES)):
        for name, data in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_bytes(data)
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    (work / ".gitignore").write_text(".mcp.json\n", encoding="utf-8")
    env = {
        "PATH": f"{CAIRN_BIN}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
        "HOME": str(home),
        "CAIRN_HOME": str(tmp_path / "cairn"),
        "LANG": "C.UTF-8",
    }
    before = everything(home, work)

    def cairn(*args: str) -> str:
        done = subprocess.run(
            [str(CAIRN), *args],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=SETUP_TIMEOUT,
            check=False,
        )
        assert done.returncode == 0, f"cairn {' '.join(args)}: {done.stderr}{done.stdout}"
        return done.stdout

    trust = ["--trust"] if agent == "codex" else []
    cairn("setup", agent, "--project", *trust)
    cairn("setup", agent, "--user", *trust)
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=work,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "backup" not in status and "t-1" not in status, status
    assert everything(home, work) != before
    cairn("setup", agent, "--project", "--uninstall")
    said = cairn("setup", agent, "--user", "--uninstall")
    after = everything(home, work)
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    assert after == before, f"changed or left behind: {changed}\n{said}"


@pytest.mark.parametrize(
    "sandbox", [p for p in AGENT_PARAMS if p.values[0] == "opencode"], indirect=True
)
def test_opencode_has_the_brief_before_its_first_request_and_the_terminal_never(
    sandbox: Sandbox,
) -> None:
    fact = "Release trains leave on Tuesdays from the main branch (e2e godwit)."
    done = sandbox.run([str(CAIRN), "remember", "--json", fact], CAIRN_TIMEOUT)
    assert done.returncode == 0, done.stderr
    ref = json.loads(done.stdout)["ref"]
    run = f"opencode-brief-{uuid.uuid4().hex[:8]}"
    prompt = (
        f"Carry out the scripted step. [cairn-e2e run={run} scenario=none workdir={sandbox.work}]"
    )
    done = sandbox.run(sandbox.argv(prompt), RUN_TIMEOUT["opencode"])
    records = sandbox.mock.records(run)
    log = f"requests:\n{describe(records)}\nstdout:\n{done.stdout[-3000:]}\n{done.stderr[-2000:]}"
    assert done.returncode == 0 and records, log
    first = "\n".join(strings(records[0]["body"]))
    assert fact in first and ref in first, f"the brief was not in the first request\n{log}"
    assert records[0].get("results") == 0, log  # before any tool ran
    assert "Cairn memory for this project" not in done.stdout + done.stderr, log
