"""`cairn githooks install|uninstall`: a marked block in post-merge/-rewrite/-checkout."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from learn_git import Lab, Repo, hours

from cairn.cli import cli
from cairn.core.errors import CairnError
from cairn.io.repo.githooks import BEGIN, HOOKS, install_git_hooks, uninstall_git_hooks

EXISTING = "#!/bin/sh\necho 'team hook'\n"


def _hooks(repo: Repo) -> Path:
    return repo.root / ".git" / "hooks"


def _wait_for(check, seconds: float = 30.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.1)
    return False


def test_install_keeps_an_existing_hook_and_uninstall_restores_it(repo: Repo) -> None:
    hook = _hooks(repo) / "post-merge"
    hook.write_text(EXISTING, encoding="utf-8")
    hook.chmod(0o644)

    assert install_git_hooks(repo.root) == dict.fromkeys(HOOKS, "installed")

    text = hook.read_text(encoding="utf-8")
    assert text.startswith("#!/bin/sh\n" + BEGIN) and text.endswith(EXISTING.split("\n", 1)[1])
    assert text.count(BEGIN) == 1
    assert "cairn learn --quiet" in text and "|| true" in text
    assert hook.stat().st_mode & stat.S_IXUSR
    assert install_git_hooks(repo.root) == dict.fromkeys(HOOKS, "unchanged")
    assert hook.read_text(encoding="utf-8") == text

    assert uninstall_git_hooks(repo.root) == dict.fromkeys(HOOKS, "removed")
    assert hook.read_text(encoding="utf-8") == EXISTING
    assert not (_hooks(repo) / "post-rewrite").exists()  # Cairn made it: gone
    assert uninstall_git_hooks(repo.root) == dict.fromkeys(HOOKS, "absent")


def test_install_refreshes_a_changed_block(repo: Repo) -> None:
    install_git_hooks(repo.root, "old-cairn learn --quiet")
    assert install_git_hooks(repo.root, "new-cairn learn --quiet")["post-merge"] == "updated"
    text = (_hooks(repo) / "post-merge").read_text(encoding="utf-8")
    assert "new-cairn" in text and "old-cairn" not in text and text.count(BEGIN) == 1


def test_outside_git_install_refuses(tmp_path: Path) -> None:
    with pytest.raises(CairnError, match="not a git repository"):
        install_git_hooks(tmp_path)


def test_the_hooks_run_in_the_background_and_never_fail_git(repo: Repo, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    # the hook's own content ends with `exit 0`: Cairn's block, first, still runs
    (_hooks(repo) / "post-checkout").write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    install_git_hooks(repo.root, f"echo $0 >> {marker}; false")
    repo.git("switch", "-q", "-c", "feat")  # post-checkout on a branch checkout
    assert _wait_for(lambda: marker.exists())
    marker.unlink()
    repo.git("checkout", "-q", "--", "README.md")  # a file checkout: not a branch checkout
    repo.commit("x.txt", "x\n", hours(1))
    repo.git("switch", "-q", "main")
    assert _wait_for(lambda: marker.exists())
    marker.unlink()
    repo.git("merge", "-q", "--no-ff", "-m", "merge", "feat", at=hours(2))  # post-merge
    assert _wait_for(lambda: marker.exists())


def test_the_hooks_own_status_is_kept(repo: Repo, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    hook = _hooks(repo) / "post-checkout"
    # git turns a failing post-checkout into its own status 1
    for script, status in (("#!/bin/sh\nexit 3\n", 1), ("#!/bin/sh\ntrue\n", 0)):
        hook.write_text(script, encoding="utf-8")
        install_git_hooks(repo.root, f"touch {marker}")
        done = subprocess.run(
            ["git", "switch", "-q", "-C", "feat"], cwd=repo.root, capture_output=True, check=False
        )
        assert done.returncode == status  # the hook's own status, as before Cairn
        assert _wait_for(lambda: marker.exists())
        marker.unlink()
        uninstall_git_hooks(repo.root)
        assert hook.read_text(encoding="utf-8") == script


def test_a_hook_in_another_language_is_left_alone(repo: Repo) -> None:
    script = "#!/usr/bin/env python3\nprint('hi')\n"
    (_hooks(repo) / "post-merge").write_text(script, encoding="utf-8")
    done = install_git_hooks(repo.root)
    assert done["post-merge"] == "skipped" and done["post-rewrite"] == "installed"
    assert (_hooks(repo) / "post-merge").read_text(encoding="utf-8") == script
    bash = "#!/usr/bin/env bash\necho hi\n"
    (_hooks(repo) / "post-merge").write_text(bash, encoding="utf-8")
    assert install_git_hooks(repo.root)["post-merge"] == "installed"


def test_a_hook_without_a_shebang_keeps_none(repo: Repo) -> None:
    (_hooks(repo) / "post-rewrite").write_text("echo rewritten\n", encoding="utf-8")
    install_git_hooks(repo.root)
    text = (_hooks(repo) / "post-rewrite").read_text(encoding="utf-8")
    assert text.startswith(BEGIN) and text.endswith("echo rewritten\n")
    uninstall_git_hooks(repo.root)
    assert (_hooks(repo) / "post-rewrite").read_text(encoding="utf-8") == "echo rewritten\n"


def test_the_installed_hook_runs_cairn_learn(lab: Lab, home: Path, project: Path) -> None:
    ref = lab.ws.remember("Images are served from the CDN").ref
    runner = CliRunner()
    out = runner.invoke(
        cli, ["--project", str(project), "githooks", "install", "--json"], catch_exceptions=False
    )
    assert json.loads(out.stdout) == dict.fromkeys(HOOKS, "installed")
    assert str(home) in (_hooks(lab.repo) / "post-merge").read_text(encoding="utf-8")
    lab.repo.git("switch", "-q", "-c", "feat/cdn")
    lab.session("s1", "feat/cdn", hours(1), hours(2), [ref])
    lab.repo.commit("cdn.py", "x\n", hours(1.5))
    lab.repo.git("switch", "-q", "main")
    lab.repo.git("merge", "-q", "--no-ff", "-m", "merge cdn", "feat/cdn", at=hours(3))
    assert _wait_for(lambda: lab.counts(ref)["merge"] == 1)
    out = runner.invoke(
        cli, ["--project", str(project), "githooks", "uninstall"], catch_exceptions=False
    )
    assert "post-merge: removed" in out.stdout
    assert not os.path.exists(_hooks(lab.repo) / "post-merge")


def test_post_checkout_learns_only_on_a_branch_checkout(repo: Repo, tmp_path: Path) -> None:
    install_git_hooks(repo.root, f"touch {tmp_path}/ran-$3")
    hook = str(_hooks(repo) / "post-checkout")
    subprocess.run([hook, "a", "b", "0"], cwd=repo.root, check=True)  # files checked out
    subprocess.run([hook, "a", "b", "1"], cwd=repo.root, check=True)  # a branch checked out
    assert _wait_for(lambda: (tmp_path / "ran-1").exists())
    time.sleep(0.2)
    assert not (tmp_path / "ran-0").exists()
