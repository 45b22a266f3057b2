"""OpenCode: a generated JS plugin, and the MCP server in `opencode.json`.

Project scope writes `<proj>/.opencode/plugins/cairn.js`, which runs the stable `cairn-hook`
command from PATH (the same bytes on every machine), and puts the MCP server (this machine's
interpreter) in the user's `$XDG_CONFIG_HOME/opencode/opencode.json`; user scope writes
`$XDG_CONFIG_HOME/opencode/plugins/cairn.js` and that same file (an existing `opencode.jsonc`
is used when there is no `opencode.json`).

OpenCode has no hook protocol of its own: plugins run in-process and are awaited with no
timeout, and an exception thrown in `tool.execute.before` blocks the tool. So the plugin
(`PLUGIN` below) spawns `cairn-hook opencode after` asynchronously with a hard 2 s timeout,
wraps every handler in try/catch, never changes `output.args`, and appends the hook's stdout to
`output.output` in `tool.execute.after`. The session brief goes into the system prompt, before
the first model request and never on the user's terminal: OpenCode (1.18) calls
`experimental.chat.system.transform({sessionID, model}, {system})` before each request, and
the plugin runs `start` once per session there and adds its text to `system` each time (the
system prompt is rebuilt for every request). An OpenCode without that hook gets no brief.

For gates (opt-in, see `cairn.usecases.gates`) it also runs `cairn-hook opencode before` in
`tool.execute.before`; the hook prints there only the reason of a gate that stops the call,
and the plugin throws exactly that text, after its try/catch, so nothing else (a failed
spawn, a timeout, a bug) can ever block a call.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from cairn.usecases.install.command import SERVER_NAME
from cairn.usecases.install.files import Edit, InstallError, json_edit, parse_json, read_bytes
from cairn.usecases.install.merge import server_change
from cairn.usecases.install.plan import HookSite, Installed, Plan, Target

AGENT = "opencode"
PLUGIN_NAME = "cairn.js"
MARKER = "// Cairn for OpenCode: written by `cairn setup opencode`"
TIMEOUT_MS = 2000
PROBE_EVENT = "after"
# The events the plugin sends the hook (`start` aside): what `cairn doctor` expects to find.
EVENTS: dict[str, str | None] = {"before": None, "after": None}
GATES_MARK = "// cairn:gates"
_HOOK_LINE = re.compile(r"^const HOOK = (.*); // cairn:hook$", re.M)
_ENV_LINE = re.compile(r"^const ENV = (.*); // cairn:env$", re.M)

PLUGIN = """\
__MARKER__; `cairn setup opencode --uninstall` removes it.
// Cairn's lessons arrive after a bash, read, edit, write or patch call, appended to the tool's
// result; the session brief goes into the system prompt before the first model request.
// OpenCode awaits plugins in-process with no timeout of its own, so every hook call here is
// killed after TIMEOUT_MS. A throw in tool.execute.before blocks the tool call: the
// only throw here is a Cairn gate's reason, which the hook prints on "before" only when a
// gate (opt-in) stops this call once; anything failing lets the call run. output.args is
// never changed.
import { spawn } from "node:child_process";

const HOOK = __HOOK__; // cairn:hook
const ENV = __ENV__; // cairn:env
const TIMEOUT_MS = __TIMEOUT__;
const MAX_OUTPUT = 65536;
const MAX_PENDING = 256;
const TOOLS = new Set(["bash", "read", "edit", "write", "apply_patch", "patch"]);

function runHook(event, payload, cwd) {
  return new Promise((resolve) => {
    let done = false;
    let out = "";
    let child = null;
    let timer = null;
    const finish = (text) => {
      if (done) return;
      done = true;
      if (timer) clearTimeout(timer);
      resolve(text);
    };
    try {
      child = spawn(HOOK[0], [...HOOK.slice(1), "opencode", event], {
        cwd,
        env: { ...process.env, ...ENV },
        stdio: ["pipe", "pipe", "ignore"],
      });
      timer = setTimeout(() => {
        try {
          child.kill("SIGKILL");
        } catch {}
        finish("");
      }, TIMEOUT_MS);
      child.on("error", () => finish(""));
      child.stdout.setEncoding("utf8");
      child.stdout.on("data", (chunk) => {
        if (out.length < MAX_OUTPUT) out += chunk;
      });
      child.on("close", (code) => finish(code === 0 ? out.slice(0, MAX_OUTPUT) : ""));
      child.stdin.on("error", () => {});
      child.stdin.end(JSON.stringify(payload));
    } catch {
      finish("");
    }
  });
}

export const Cairn = async (ctx) => {
  const directory = (ctx && (ctx.directory || ctx.worktree)) || process.cwd();
  const briefs = new Map();
  const pending = new Map();
  return {
    "experimental.chat.system.transform": async (input, output) => {
      try {
        const session = input && typeof input.sessionID === "string" ? input.sessionID : "";
        if (!session || !output || !Array.isArray(output.system)) return;
        if (!briefs.has(session)) {
          const text = await runHook("start", { sessionID: session, directory }, directory);
          briefs.set(session, text.trim());
          if (briefs.size > MAX_PENDING) briefs.delete(briefs.keys().next().value);
        }
        const brief = briefs.get(session);
        if (brief) output.system.push(brief);
      } catch {}
    },
    "tool.execute.before": async (input, output) => {
      // cairn:gates
      let gate = "";
      try {
        // Older builds pass the arguments only here: remember them (read, never changed).
        if (input && TOOLS.has(input.tool) && output && output.args) {
          pending.set(input.callID, output.args);
          if (pending.size > MAX_PENDING) pending.delete(pending.keys().next().value);
          const session = typeof input.sessionID === "string" ? input.sessionID : "";
          gate = await runHook(
            "before",
            { tool: input.tool, sessionID: session, callID: input.callID, directory,
              args: output.args },
            directory,
          );
        }
      } catch {
        gate = "";
      }
      if (gate) throw new Error(gate);
    },
    "tool.execute.after": async (input, output) => {
      try {
        if (!input) return;
        const args = input.args || pending.get(input.callID) || {};
        pending.delete(input.callID);
        const session = typeof input.sessionID === "string" ? input.sessionID : "";
        let text = "";
        if (TOOLS.has(input.tool)) {
          text = await runHook(
            "after",
            { tool: input.tool, sessionID: session, callID: input.callID, directory, args },
            directory,
          );
        }
        if (text && output && typeof output.output === "string") output.output += text;
      } catch {}
    },
  };
};
"""


def paths(target: Target) -> tuple[Path, Path]:
    """(the plugin file, the opencode.json holding the MCP server: the user's, at either scope)."""
    user = target.xdg_config() / "opencode"
    folder = target.project / ".opencode" if target.scope == "project" else user
    return folder / "plugins" / PLUGIN_NAME, config_file(user)


def config_file(folder: Path) -> Path:
    """`opencode.json` in `folder`, or `opencode.jsonc` when only that one exists."""
    config = folder / "opencode.json"
    if not config.exists() and (folder / "opencode.jsonc").exists():
        config = folder / "opencode.jsonc"
    return config


def plugin(target: Target) -> str:
    """The plugin's source for this installation."""
    return (
        PLUGIN.replace("__MARKER__", MARKER)
        .replace("__HOOK__", json.dumps(target.launch.hook_argv("", "")[:-2], ensure_ascii=False))
        .replace("__ENV__", json.dumps(target.launch.env, ensure_ascii=False))
        .replace("__TIMEOUT__", str(TIMEOUT_MS))
    )


def server(target: Target) -> dict[str, Any]:
    """Cairn's MCP server entry (`mcp.cairn`)."""
    entry: dict[str, Any] = {
        "type": "local",
        "command": list(target.launch.server),
        "enabled": True,
    }
    if target.launch.server_env:
        entry["environment"] = target.launch.server_env
    return entry


def is_ours(raw: bytes | None) -> bool:
    """True for a plugin file Cairn wrote."""
    return raw is not None and raw.startswith(MARKER.encode())


def plan(target: Target, uninstall: bool) -> Plan:
    """The edits that install (or remove) Cairn for OpenCode at the target's scope."""
    plugin_file, config = paths(target)
    before = read_bytes(plugin_file)
    if before is not None and not is_ours(before):
        if not uninstall:
            raise InstallError(
                f"{plugin_file} exists and was not written by Cairn; move it, "
                f"then run `cairn setup opencode` again (nothing was written)"
            )
        plugin_edit = Edit(plugin_file, before, before)
    else:
        after = None if uninstall else plugin(target).encode("utf-8")
        plugin_edit = Edit(plugin_file, before, after, backup=False)
    edits = [
        plugin_edit,
        json_edit(
            config,
            server_change(config, "mcp", SERVER_NAME, None if uninstall else server(target)),
            uninstall=uninstall,
            backups=target.backups,
            comments=True,
        ),
    ]
    if target.scope == "project":
        legacy = config_file(target.project)  # where setup put the server before
        edits.append(
            json_edit(
                legacy,
                server_change(legacy, "mcp", SERVER_NAME, None),
                uninstall=True,
                backups=target.backups,
                comments=True,
            )
        )
    notes: list[str] = []
    if not uninstall:
        notes.append(
            "OpenCode has no hook timeout: the plugin kills the hook after "
            f"{TIMEOUT_MS} ms and never throws. Lessons arrive after the call, "
            "appended to the tool's result (also shown in the TUI)."
        )
    return Plan(edits, notes)


def hook_argv(raw: bytes | None) -> tuple[tuple[str, ...], dict[str, str]]:
    """The hook argv and environment written into a Cairn plugin file."""
    text = "" if raw is None else raw.decode("utf-8", errors="replace")
    argv: tuple[str, ...] = ()
    env: dict[str, str] = {}
    found = _HOOK_LINE.search(text)
    if found:
        try:
            value = json.loads(found.group(1))
            argv = tuple(str(v) for v in value) if isinstance(value, list) else ()
        except ValueError:
            argv = ()
    found = _ENV_LINE.search(text)
    if found:
        try:
            value = json.loads(found.group(1))
            env = {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}
        except ValueError:
            env = {}
    return argv, env


def installed(target: Target) -> Installed | None:
    """Cairn's plugin and server in OpenCode's config at this scope, if any."""
    plugin_file, config = paths(target)
    raw = read_bytes(plugin_file)
    sites: tuple[HookSite, ...] = ()
    extra: dict[str, Any] = {}
    if is_ours(raw):
        argv, env = hook_argv(raw)
        events = [PROBE_EVENT]
        if raw is not None and GATES_MARK.encode() in raw:  # older plugins call `after` only
            events.insert(0, "before")
        sites = tuple(
            HookSite(event, argv=(*argv, AGENT, event), timeout_s=TIMEOUT_MS / 1000)
            for event in events
        )
        extra["env"] = env
    servers = parse_json(config, read_bytes(config), comments=True).get("mcp")
    entry = servers.get(SERVER_NAME) if isinstance(servers, dict) else None
    if not sites and entry is None:
        return None
    if isinstance(entry, dict) and isinstance(entry.get("command"), list):
        entry = {**entry, "args": entry["command"][1:], "command": (entry["command"] or [""])[0]}
    return Installed(
        AGENT,
        target.scope,
        plugin_file,
        sites,
        (PROBE_EVENT, probe(target)),
        entry if isinstance(entry, dict) else None,
        config,
        extra,
    )


def probe(target: Target) -> dict[str, Any]:
    """A harmless payload in the plugin's shape (a bash `true`)."""
    return {
        "tool": "bash",
        "sessionID": "cairn-doctor",
        "callID": "cairn-doctor",
        "directory": str(target.project),
        "args": {"command": "true"},
    }
