#!/usr/bin/env bash
# Opt-in end-to-end suite (`make e2e`): install the agent CLIs from the npm registry into
# e2e/.tools, build Cairn's wheel and sdist (`python -m build`) and install the wheel into an
# isolated venv as `pipx install` / `uv tool install` do (e2e/.tools/cairn: its bin/ first on
# PATH, like ~/.local/bin), then run e2e/test_agents.py: each real CLI headless against a
# scripted mock model on 127.0.0.1, with Cairn's hooks installed by that install's `cairn setup`,
# checking that lessons reach the model.
#
#   bash e2e/run.sh                    install (if needed) and run everything
#   bash e2e/run.sh -k codex           extra arguments go to pytest
#   E2E_SKIP_INSTALL=1 bash e2e/run.sh use what is in e2e/.tools (no network)
#   CLAUDE_CODE_VERSION=latest ...     another version (also CODEX_, GEMINI_CLI_, OPENCODE_)
#   CAIRN_E2E_HOOKS=hand ...           hook configs written by the test, not `cairn setup`
set -euo pipefail

cd "$(dirname "$0")/.."
PY="${VENV:-.venv}/bin/python"
TOOLS=e2e/.tools
INSTALL_TIMEOUT="${E2E_INSTALL_TIMEOUT:-900}"

# The versions verified on the wire. Name the version: when npm resolves a range it skips
# releases whose `engines` the local Node does not satisfy (Claude Code 2.1.332 asks for
# node >= 22, so on Node 20 a plain install gets 2.1.197; its native binary needs no node).
PACKAGES=(
  "@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION:-2.1.332}"
  "@openai/codex@${CODEX_VERSION:-0.171.0}"
  "@google/gemini-cli@${GEMINI_CLI_VERSION:-0.61.0}"
  "opencode-ai@${OPENCODE_VERSION:-1.18.33}"
)

installed_version() {  # PACKAGE -> the version in e2e/.tools, or nothing
  local manifest="$TOOLS/node_modules/$1/package.json"
  [[ -f "$manifest" ]] && node -p "require('./$manifest').version" 2>/dev/null || true
}

if [[ ! -x "$PY" ]]; then
  echo "e2e: $PY not found; run \`make install\` first" >&2
  exit 1
fi

if [[ -z "${E2E_SKIP_INSTALL:-}" ]]; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "e2e: npm not found; the agent tests will be skipped" >&2
  else
    mkdir -p "$TOOLS"
    for spec in "${PACKAGES[@]}"; do
      name="${spec%@*}"
      want="${spec##*@}"
      have="$(installed_version "$name")"
      if [[ -n "$have" && "$have" == "$want" ]]; then
        echo "e2e: $name $have already installed"
        continue
      fi
      echo "e2e: installing $spec into $TOOLS (npm registry)"
      # One package at a time: a failed install skips that agent's tests, not everyone's.
      if ! timeout "$INSTALL_TIMEOUT" npm install --prefix "$TOOLS" --no-audit --no-fund \
          --loglevel=error "$spec"; then
        echo "e2e: WARNING: npm install $spec failed; its tests will be skipped" >&2
      fi
    done
  fi
fi

# Cairn as users install it: the wheel (built from this checkout, with the sdist beside it)
# in a venv of its own; nothing of the source tree on its path.
DIST="$TOOLS/dist"
CAIRN_VENV="$TOOLS/cairn"
rm -rf "$DIST" "$CAIRN_VENV"
echo "e2e: building the wheel and sdist into $DIST"
# --no-isolation: the build backend pinned in pyproject.toml is in the dev venv (offline-safe).
"$PY" -m build --no-isolation --outdir "$DIST" . >"$TOOLS/build.log" 2>&1 \
  || { cat "$TOOLS/build.log" >&2; echo "e2e: python -m build failed" >&2; exit 1; }
WHEEL="$(ls "$DIST"/*.whl)"
ls "$DIST"/*.tar.gz >/dev/null
"$(command -v python3)" -m venv "$CAIRN_VENV"
echo "e2e: installing $(basename "$WHEEL") into $CAIRN_VENV (as pipx does)"
"$CAIRN_VENV/bin/python" -m pip install --quiet --disable-pip-version-check "$WHEEL" \
  >"$TOOLS/install.log" 2>&1 \
  || { cat "$TOOLS/install.log" >&2; echo "e2e: installing the wheel failed" >&2; exit 1; }
export CAIRN_E2E_VENV="$PWD/$CAIRN_VENV"

echo "e2e: installed versions"
for spec in "${PACKAGES[@]}"; do
  name="${spec%@*}"
  printf '  %-28s %s\n' "$name" "$(installed_version "$name" || true)"
done

BASETEMP="${E2E_BASETEMP:-${TMPDIR:-/tmp}/cairn-e2e}"
echo "e2e: sandboxes and the mock's request log under $BASETEMP"
exec "$PY" -m pytest -p no:cacheprovider e2e -q -rs --basetemp "$BASETEMP" "$@"
