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
