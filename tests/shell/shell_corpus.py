"""Shell commands and the actions each performs: shared by the tests and bench/shell_parse.py.

The one table of the parser's cases: `CASES` (and `ALIAS_CASES`, with git aliases).
"""

import json
from collections.abc import Mapping

from cairn.core.lessons.prefilter import Prefilter
from cairn.io.triggerlist import action_entries
from cairn.io.workspace import resolve_git_aliases

# The four shapes the spec names (spec/action-rules.txt), each its own test as well.
SPEC_CASES: list[tuple[str, list[str]]] = [
    ("git -c commit.gpgsign=false commit", ["git-commit"]),
    ("git config commit.gpgsign false", ["git-config"]),
    ('echo "git commit"', []),
    ("cd repo && git commit", ["git-commit"]),
]

AGENT_COMMIT = """git commit -m "$(cat <<'EOF'
feat: parse shell commands

Co-Authored-By: someone; git push --force
EOF
)\""""

AGENT_PR = """gh pr create --title "Add parser" --body "$(cat <<'EOF'
## Summary
- git commit and gh pr new are only words here
EOF
)\""""


def nest_shells(script: str, levels: int) -> str:
    """`script` wrapped in `levels` nested `bash -c "..."`, double-quoted each time."""
    for _ in range(levels):
        escaped = "".join("\\" + ch if ch in '\\"$`' else ch for ch in script)
        script = f'bash -c "{escaped}"'
    return script


CASES: list[tuple[str, list[str]]] = [
    *SPEC_CASES,
    # git global options before the subcommand
    ("git --no-pager -C repo commit -m x", ["git-commit"]),
    ("git --git-dir=.git commit", ["git-commit"]),
    ("git --git-dir .git --work-tree . commit", ["git-commit"]),
    ("git -C repo -c user.name=x -c user.email=y commit --amend", ["git-commit"]),
    ("git --namespace=foo push", ["git-push"]),
    ("git --config-env=core.editor=EDITOR rebase -i HEAD~3", ["git-rebase"]),
    ("git --exec-path=/opt/git commit", ["git-commit"]),
    ("git --super-prefix sub/ commit", ["git-commit"]),
    ("git -p log", ["git-log"]),
    (
        "git -P --bare --no-replace-objects --literal-pathspecs --no-optional-locks status",
        ["git-status"],
    ),
    ("git --glob-pathspecs --icase-pathspecs --noglob-pathspecs --paginate add .", ["git-add"]),
    ('git -c "user.name=$NAME" commit', ["git-commit"]),
    ('git -C "$REPO" commit', ["git-commit"]),
    ("git --exec-path", []),
    ("git --version", []),
    ("git --help commit", []),
    ("git -h", []),
    ("git --list-cmds=main", []),
    ("git", []),
    ("git -c", []),
    # the subcommand itself
    ("/usr/bin/git commit", ["git-commit"]),
    ("git rebase -i main", ["git-rebase"]),
    ("git push --force-with-lease origin HEAD", ["git-push"]),
    ("git commit-tree abc", ["git-commit-tree"]),
    ("git log --grep='git push'", ["git-log"]),
    ('"git" "commit"', ["git-commit"]),
    ("'git' commit", ["git-commit"]),
    ("git COMMIT", []),
    # an expansion as the program or the subcommand never fires
    ("$GIT commit", []),
    ('"$GIT" commit', []),
    ("${GIT:-git} commit", []),
    ("$(which git) commit", []),
    ("`which git` commit", []),
    ("git $SUB", []),
    ('git "$(echo commit)"', []),
    ("git $FLAGS commit", []),
    # words bash joins from quoted and escaped pieces name the program all the same
    ("g\\it commit", ["git-commit"]),
    ('gi""t commit', ["git-commit"]),
    ('git "com"mit', ["git-commit"]),
    ('git commi"t" -m x', ["git-commit"]),
    ("git c'ommit' -m x", ["git-commit"]),
    ("gi\\t commit -m x", ["git-commit"]),
    ("gi\\\nt commit -m x", ["git-commit"]),
    ("git com\\\nmit -m x", ["git-commit"]),
    ("echo a\\\\\ngit commit", ["git-commit"]),  # `\\` then a newline: no continuation
    ("git-commit -m x", ["git-commit"]),
    ("/usr/lib/git-core/git-push origin", ["git-push"]),
    # ...but not an expansion, nor a numeric escape that spells letters
    ("git {commit,push}", []),
    ("$'\\x67it' commit", []),
    # asking for help runs nothing
    ("git commit --help", []),
    ("git commit -h", []),
    ("git push --help", []),
    ("gh pr create --help", []),
    ("gh pr create -h", []),
    ("npm publish --help", []),
    ("git grep -h TODO", ["git-grep"]),  # `-h` hides file names here
    ("git commit -m x -- --help", ["git-commit"]),
    # it runs on another machine: ssh's command is not this project's action
    ("ssh host git commit -m x", []),
    ("ssh -t deploy@host 'cd app && git pull'", []),
    # programs that run a command they are given
    ('eval "git commit -m x"', ["git-commit"]),
    ("eval git commit -m x", ["git-commit"]),
    ('eval "$CMD"', []),
    ("echo 'git commit -m x' | bash", ["git-commit"]),
    ('echo "git push" | sh -s', ["git-push"]),
    ("printf 'git push' | bash", ["git-push"]),
    ("printf 'cd app\\ngit push\\n' | sh", ["git-push"]),
    ("echo -e 'ls\\ngit commit -m x' | bash", ["git-commit"]),
    ("printf '%s\\n' 'git add .' 'git commit -m x' | bash", ["git-add", "git-commit"]),
    ("echo $CMD | bash", []),
    ("echo git push | grep push", []),
    ("find . -exec git commit -m x \\;", ["git-commit"]),
    ("find . -name '*.py' -execdir git add {} +", ["git-add"]),
    ("find . -exec sh -c 'git add \"$1\"' _ {} \\;", ["git-add"]),
    ("watch -n 1 git commit", ["git-commit"]),
    ("watch 'git status'", ["git-status"]),
    ("parallel git commit ::: x", ["git-commit"]),
    ("parallel -j 4 'git push {}' ::: a b", ["git-push"]),
    ("ionice -c 3 git commit -m x", ["git-commit"]),
    ("ionice -c2 -n7 git gc", ["git-gc"]),
    ("flock /tmp/lock git commit -m x", ["git-commit"]),
    ("flock -w 10 /tmp/lock git push", ["git-push"]),
    ('flock /tmp/lock -c "git commit -m x"', ["git-commit"]),
    ("uv run git commit -m x", ["uv-run", "git-commit"]),
    ("uv run --with rich pytest", ["uv-run"]),
    ("poetry run git push", ["poetry-run", "git-push"]),
    ("direnv exec . git commit -m x", ["git-commit"]),
    ("nice git commit -m x", ["git-commit"]),
    ("nice -n 19 ionice -c3 git gc", ["git-gc"]),
    ("timeout 5 git commit -m x", ["git-commit"]),
    ("timeout --preserve-status 1m git push", ["git-push"]),
    ("git submodule foreach git commit -m x", ["git-submodule", "git-commit"]),
    ("git submodule foreach --recursive 'git push'", ["git-submodule", "git-push"]),
    # hub, GitHub's older CLI, wraps git
    ("hub pr create", ["pr-create"]),
    ("hub pull-request -m x", ["pr-create"]),
    ("hub commit -m x", ["git-commit"]),
    ("hub -C repo push", ["git-push"]),
    # compound commands: each simple command on its own
    ('git add . && git commit -m "fix: x" && git push', ["git-add", "git-commit", "git-push"]),
    ("git add -A; git commit -m wip", ["git-add", "git-commit"]),
    ("make test || git stash", ["make-test", "git-stash"]),
    ("git log --oneline | head -5", ["git-log"]),
    ("(cd repo && git push)", ["git-push"]),
    ("{ git fetch; git rebase origin/main; }", ["git-fetch", "git-rebase"]),
    (
        "if git diff --quiet; then echo clean; else git commit -am wip; fi",
        ["git-diff", "git-commit"],
    ),
    ('for b in a b; do git push origin "$b"; done', ["git-push"]),
    ("while ! git pull; do sleep 1; done", ["git-pull"]),
    ('case "$x" in y) git push;; esac', ["git-push"]),
    ('f() { git commit "$@"; }; f -m x', ["git-commit"]),
    ("git push & wait", ["git-push"]),
    ("git commit -m x 2>&1 | tee log.txt", ["git-commit"]),
    ("git commit -m x > /dev/null 2>&1", ["git-commit"]),
    ("cd repo\ngit commit -m x", ["git-commit"]),
    ("git push && git push --tags", ["git-push"]),
    ("gh pr create --fill && git push", ["pr-create", "git-push"]),
    # command substitutions run, even inside double quotes
    ("echo $(git rev-parse HEAD)", ["git-rev-parse"]),
    ('echo "$(git push)"', ["git-push"]),
    ("echo `git push`", ["git-push"]),
    ('X=$(git rev-parse --abbrev-ref HEAD) && git push origin "$X"', ["git-rev-parse", "git-push"]),
    ("export SHA=$(git rev-parse HEAD)", ["git-rev-parse"]),
    ("FOO=$(git rev-parse HEAD) make deploy", ["git-rev-parse", "make-deploy"]),
    ("diff <(git show HEAD:a) a", ["git-show"]),
    ("[[ -n $(git status --porcelain) ]] && git stash", ["git-status", "git-stash"]),
    # heredocs: the body is data unless bash expands a substitution in it
    (AGENT_COMMIT, ["git-commit"]),
    (AGENT_PR, ["pr-create"]),
    ("cat <<EOF > notes.txt\ngit push --force\nEOF", []),
    ("cat <<'EOF'\n$(git push)\nEOF", []),
    ("cat <<EOF\n$(git push)\nEOF", ["git-push"]),
    ("cat <<EOF\ngit push\nEOF\ngit commit -m x", ["git-commit"]),
    # comments and quoted text are data
    ("# git commit", []),
    ("ls # git commit", []),
    ("echo hi # && git push", []),
    ("echo 'git push'", []),
    ('grep -r "git commit" .', []),
    ("printf '%s\\n' \"gh pr create\"", []),
    ("echo git commit", []),
    # NAME=value prefixes
    ("FOO=1 git commit", ["git-commit"]),
    ("GIT_AUTHOR_NAME=x GIT_AUTHOR_EMAIL=y git commit -m z", ["git-commit"]),
    # wrappers
    ("sudo git push", ["git-push"]),
    ("sudo -u x git push", ["git-push"]),
    ("sudo -E -H -u root git push", ["git-push"]),
    ("sudo -Eu root git push", ["git-push"]),
    ("sudo --user=root VAR=1 git commit", ["git-commit"]),
    ("sudo -l git push", []),
    ("sudo", []),
    ("env git commit", ["git-commit"]),
    ("env A=1 B=2 git commit", ["git-commit"]),
    ("env -u HOME -i A=1 git commit", ["git-commit"]),
    ("env --unset=HOME git push", ["git-push"]),
    ("time git push", ["git-push"]),
    ("time -p git push", ["git-push"]),
    ("nice -n 5 git gc", ["git-gc"]),
    ("nice -10 make build", ["make-build"]),
    ("nohup git fetch &", ["git-fetch"]),
    ("timeout 10s git push", ["git-push"]),
    ("timeout -s KILL 5 git push", ["git-push"]),
    ("timeout --signal=TERM -k 2 30 cargo test", ["cargo-test"]),
    ("timeout 10", []),
    ("command git push", ["git-push"]),
    ("command -v git", []),
    ("exec git push", ["git-push"]),
    ("exec -a name git push", ["git-push"]),
    ("git ls-files -z | xargs -0 git add", ["git-ls-files", "git-add"]),
    ("find . -name '*.py' | xargs -I{} git add {}", ["git-add"]),
    ("xargs -n 1 -P 4 git push", ["git-push"]),
    ("sudo env A=1 nice -n 2 timeout 5 git push", ["git-push"]),
    ("stdbuf -oL git log", ["git-log"]),
    ("coproc git fetch", ["git-fetch"]),
    ("python -m pip install -r requirements.txt", ["pip-install"]),
    ("python3 -u -m pip install x", ["pip-install"]),
    ('python -c "import os"', []),
    ("pip3 install requests", ["pip-install"]),
    # shells handed a script
    ("bash -c 'git push'", ["git-push"]),
    ('sh -c "git commit -m \\"msg\\""', ["git-commit"]),
    ("bash -lc 'cd repo && git commit -m x'", ["git-commit"]),
    ('bash -ec "git push"', ["git-push"]),
    ("zsh -c 'gh pr create --fill'", ["pr-create"]),
    ("bash -o pipefail -c 'git log | head'", ["git-log"]),
    ("sudo bash -c 'git push'", ["git-push"]),
    ('bash -c "git commit -m \\"$(date)\\""', ["git-commit"]),
    ("bash -c 'echo \"git commit\"'", []),
    (nest_shells("git push", 3), ["git-push"]),
    (nest_shells("git push", 4), []),
    ("bash script.sh", []),
    ('bash -c "$CMD"', []),
    ("bash -c g\\it\\ push", ["git-push"]),
    ("bash -c $'git push'", ["git-push"]),
    ("bash -c $'\\x67it push'", []),
    ("bash <<'EOF'\ngit push\nEOF", ["git-push"]),
    ("bash <<< 'git push'", ["git-push"]),
    ("sh -s <<EOF\ngit push\nEOF", ["git-push"]),
    ("bash -x script.sh <<EOF\ngit push\nEOF", []),
    # gh
    ("gh pr create --fill", ["pr-create"]),
    ("gh pr new", ["pr-create"]),
    ("gh pr create -R owner/repo --title x", ["pr-create"]),
    ("gh -R owner/repo pr create", ["pr-create"]),
    ("gh pr -R owner/repo create", ["pr-create"]),
    ("gh pr --repo=owner/repo new", ["pr-create"]),
    ("gh issue list --label bug", ["issue-list"]),
    ("gh issue ls", ["issue-list"]),
    ("gh release create v1.0 --notes x", ["release-create"]),
    ("gh pr merge 12 --squash", ["pr-merge"]),
    ("gh repo clone owner/x", ["repo-clone"]),
    ("gh ssh-key add key.pub", ["ssh-key-add"]),
    ("gh api repos/o/r/pulls", ["gh-api"]),
    ("gh auth status", ["auth-status"]),
    ("gh pr", []),
    ("gh --version", []),
    ("gh git commit", []),
    ("gh gh new", []),
    ("gh $GROUP create", []),
    # other tools
    ("npm publish", ["npm-publish"]),
    ("npm --prefix web publish --access public", ["npm-publish"]),
    ("npm i -D typescript", ["npm-install"]),
    ("npm run build", ["npm-run"]),
    ("npm test", ["npm-test"]),
    ("npm -w pkg run test", ["npm-run"]),
    ("pnpm -C web i", ["pnpm-install"]),
    ("pnpm --filter app test", ["pnpm-test"]),
    ("yarn", ["yarn-install"]),
    ("yarn add left-pad", ["yarn-add"]),
    ("yarn --cwd web publish", ["yarn-publish"]),
    ("bun i", ["bun-install"]),
    ("bun run dev", ["bun-run"]),
    ("docker push registry/x:1", ["docker-push"]),
    ("docker --context prod push x", ["docker-push"]),
    ("docker -H ssh://h build -t x .", ["docker-build"]),
    ("docker buildx build --push .", ["docker-build"]),
    ("docker image push x", ["docker-push"]),
    ("docker image ls", ["docker-image"]),
    ("docker compose up -d", ["docker-compose"]),
    ("kubectl -n prod apply -f k8s/", ["kubectl-apply"]),
    ("kubectl --context=prod delete pod x", ["kubectl-delete"]),
    ("kubectl --namespace prod rollout restart deploy/x", ["kubectl-rollout"]),
    ("helm upgrade --install x chart", ["helm-upgrade"]),
    ("helm -n prod uninstall x", ["helm-uninstall"]),
    ("helm del x", ["helm-uninstall"]),
    ("terraform apply -auto-approve", ["terraform-apply"]),
    ("terraform -chdir=infra destroy", ["terraform-destroy"]),
    ("terraform plan -out=tfplan", ["terraform-plan"]),
    ("tofu apply", ["tofu-apply"]),
    ("cargo publish --dry-run", ["cargo-publish"]),
    ("cargo +nightly test", ["cargo-test"]),
    ("cargo t", ["cargo-test"]),
    ("cargo --color always -Z unstable-options build", ["cargo-build"]),
    ("pip install -e .", ["pip-install"]),
    ("pip --python .venv/bin/python install x", ["pip-install"]),
    ("uv pip install x", ["uv-pip"]),
    ("uv --directory sub run pytest", ["uv-run"]),
    ("poetry -C app publish", ["poetry-publish"]),
    ("twine upload dist/*", ["twine-upload"]),
    ("go test ./...", ["go-test"]),
    ("go -C sub build", ["go-build"]),
    ("make", []),
    ("make release", ["make-release"]),
    ("make -C docs -j 4 VERBOSE=1 html", ["make-html"]),
    ("make -j8 test", ["make-test"]),
    ("ls -la", []),
    ("rm -rf build", []),
    ("pytest -q", []),
    # malformed input: whatever tree-sitter recovers, never an exception
    ('git commit -m "unclosed', ["git-commit"]),
    ("git push 'x", ["git-push"]),
    ('echo "git commit', []),
    ("'''", []),
    ("", []),
    ("   \n\t", []),
    ("\x00\x01\xff\ufffd", []),
    ("\udcff git commit", []),
    (")))((( ;;; &&", []),
    # text past ASCII (tree-sitter only ever sees it as `%` bytes)
    ("echo {\U0001f389} && git push", ["git-push"]),
    ('git commit -m "fix: \u00fcn\u00efcode \u2713"', ["git-commit"]),
    ("echo \u201cgit commit\u201d", []),
    ("\u201cgit\u201d commit", []),
    ("cat <<\u00c9OF\ngit push\n\u00c9OF\ngit pull", ["git-pull"]),
    # long commands
    ("git add f && " * 800 + "git commit -m x", ["git-add", "git-commit"]),
    ("echo " + "x" * 10_000 + " && git push", ["git-push"]),
]

# Git aliases (`alias.NAME = VALUE` in the repository's or the user's git config), and the
# actions a command performs with them.
GIT_ALIASES = {"ci": "commit", "pub": "push", "c": "ci", "loop": "loop"}
ALIAS_CASES: list[tuple[str, list[str]]] = [
    ("git ci -m x", ["git-commit"]),
    ("git c -m x", ["git-commit"]),  # an alias of an alias
    ("git -C repo pub origin", ["git-push"]),
    ("git loop", ["git-loop"]),  # git refuses a looping alias
    ("git commit -m x", ["git-commit"]),
    ("git ci --help", []),
    ("hub ci -m x", ["git-commit"]),
]


def reaches_the_parser(command: str, action: str, aliases: Mapping[str, str] | None = None) -> bool:
    """Would the hook's prefilter let `command` through to the parser for `action`? With the
    trigger list's own lines for a rule of that action, and these git aliases."""
    entries = action_entries("m-000001", "*", action)
    data = json.dumps({"tool_input": {"command": command}}).encode()
    resolved = resolve_git_aliases(dict(aliases or {}))
    return bool(Prefilter(entries).candidates(data, lambda: resolved))
