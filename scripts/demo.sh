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

say "content for the app (cairn serve): citations, evidence, a branch's sessions, progress"
git -c user.email=demo@example.com -c user.name=Demo commit -q --allow-empty -m "start" 2>/dev/null || true
mkdir -p src
printf 'MAX_RETRIES = 3\n\n\ndef retry_refund(refund):\n    for attempt in range(MAX_RETRIES):\n        if refund.send():\n            return True\n    return False\n' > src/refunds.py
printf 'def post(entry):\n    """Write one ledger entry."""\n    return entry\n' > src/ledger.py
git add src && git -c user.email=demo@example.com -c user.name=Demo commit -q -m "Refund retries and the ledger"
retries=$(cairn remember "Refund retries stop after MAX_RETRIES attempts" --source-ref "src/refunds.py:4-8" \
    --tag payments --reason "the loop in retry_refund" --json | python -c 'import json,sys; print(json.load(sys.stdin)["ref"])')
ledger=$(cairn remember "Every ledger write goes through post()" --source-ref "src/ledger.py#post" \
    --kind decision --tag ledger --json | python -c 'import json,sys; print(json.load(sys.stdin)["ref"])')
cairn remember "Ledger files under generated/ are written by make ledger; never edit them" \
    --when '{"tool": "edit", "path": "generated/**"}' >/dev/null
cairn remember "Use pnpm, never npm, in this repository" --kind preference --tag tooling >/dev/null
for fact in \
    "The staging database is reset every Sunday night" \
    "Refund webhooks arrive signed with the PSP's key" \
    "Currency amounts are integers in minor units" \
    "The ledger is append-only; corrections are new entries" \
    "Feature flags live in config/flags.yaml" \
    "Integration tests need the fake PSP on port 4010"; do
    cairn remember "$fact" --tag payments >/dev/null
done
# a session on the branch uses two memories and logs its progress
CAIRN_SESSION=demo-3 CAIRN_TOOL=claude-code cairn remember \
    "Refunds over 500 EUR need a second approval" --tag payments --used "$retries" --used "$ledger" >/dev/null
CAIRN_SESSION=demo-3 CAIRN_TOOL=claude-code cairn progress "Ship refunds v2" "Retry failed refunds" --status done >/dev/null
CAIRN_SESSION=demo-3 CAIRN_TOOL=claude-code cairn progress "Ship refunds v2" "Post refunds to the ledger" --status in_progress >/dev/null
CAIRN_SESSION=demo-3 CAIRN_TOOL=claude-code cairn progress "Ship refunds v2" "Second approval over 500 EUR" --status todo >/dev/null
cairn confirm "$ledger" >/dev/null
doubted=$(cairn remember "Refunds are paid out within one business day" --tag payments --json \
    | python -c 'import json,sys; print(json.load(sys.stdin)["ref"])')
CAIRN_SESSION=demo-4 cairn contradict "$doubted" >/dev/null
# the cited code moves on: the card shows the citation changed
sed -i 's/MAX_RETRIES = 3/MAX_RETRIES = 5/' src/refunds.py
sed -i 's/range(MAX_RETRIES)/range(MAX_RETRIES + 1)/' src/refunds.py
cairn list
echo
echo "The app over this store (memories, cards, review of feature/refunds, lessons, stats, progress):"
echo "  CAIRN_HOME=$CAIRN_HOME $(command -v cairn) --project $DEMO_PROJECT serve"
