#!/usr/bin/env bash
# `make demo`: Cairn's main job on a fresh demo store, with the real CLI.
set -euo pipefail
VENV=${VENV:-.venv}
export PATH="$PWD/$VENV/bin:$PATH"
export CAIRN_HOME="$PWD/.demo-store"
rm -rf "$CAIRN_HOME"
DEMO_PROJECT="$CAIRN_HOME/project"
mkdir -p "$DEMO_PROJECT"
cd "$DEMO_PROJECT"
git init -q -b feature/refunds . 2>/dev/null || git init -q .
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "remember: one claim per memory"
cairn remember "We deploy with Fly.io from the main branch" --kind decision --reason "chosen in 2025"
cairn remember "Commit messages: single line, conventional prefix, no emojis" \
    --kind preference --tag trigger:git-commit
cairn remember "Refunds are retried three times before the ledger marks them failed" \
    --tag payments --reason "agreed with finance"

say "correct: the old claim stays in history"
old=$(cairn remember "We deploy with Fly.io from the main branch" --json | python -c 'import json,sys; print(json.load(sys.stdin)["ref"])')
new=$(cairn correct "$old" "We moved deploys from Fly.io to Render" --json | python -c 'import json,sys; print(json.load(sys.stdin)["ref"])')
cairn show "$new"

say "a refusal: secrets never reach memory"
cairn remember "the deploy token is ghp_abcdefghijklmnopqrstuvwxyz0123456789" || true

say "recall: local BM25, stems and accents folded"
cairn recall "how are refund retries handled"
cairn recall "deployment"

say "a lesson rides along on the matching tool call"
cairn remember "Before a push, run make check: the pre-push hook is the only CI" \
    --when '{"tool": "shell", "match": "git push"}' --reason "CI was turned off in May"
cairn lessons test --shell "git add -A && git push origin feature/refunds"

say "the same call as Claude Code's PreToolUse hook sends it (simulated)"
payload=$(printf '{"session_id":"demo-1","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git push origin feature/refunds"}}' "$DEMO_PROJECT")
echo "$payload" | cairn-hook claude-code PreToolUse | python -m json.tool
echo "(a call that cannot match prints nothing:)"
echo "${payload/git push/ls -la}" | cairn-hook claude-code PreToolUse
echo "(and the same lesson does not fire twice in one session:)"
echo "$payload" | cairn-hook claude-code PreToolUse
echo "(a new session gets it again:)"
echo "${payload/demo-1/demo-2}" | cairn-hook claude-code PreToolUse | python -m json.tool
echo "-- end of hook output --"
echo "each call was answered by the hook's own process, which then exited (hook-timing.log:"
echo "event, ms, then prefilter = the trigger list alone decided, process = it read the store):"
cut -f3,4,6 "$CAIRN_HOME/hook-timing.log"

say "what memory did today: cairn stats"
cairn stats
