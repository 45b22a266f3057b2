"""Each of Cairn's readers, given each fault in place of its file, answers at once with what
it documents: the file counts as missing or unreadable, never waited on or read to the end."""

from __future__ import annotations

from pathlib import Path

import pytest

import cairn
from cairn.core.errors import QueryError
from cairn.io.triggerlist import lines_of
from cairn.io.workspace import current_branch, git_dir_of, project_dir
from cairn.usecases.install.files import InstallError, read_bytes
from cairn.usecases.rulesfiles import import_rules
from cairn.usecases.sessions import replied_refs
from cairn.usecases.stats import read_timing
from tests.faults.conftest import FAULTS, make_fault, make_git, run_cli, within


@pytest.mark.parametrize("fault", FAULTS)
def test_setup_reads_an_agent_config_only_when_it_is_a_file(tmp_path: Path, fault: str) -> None:
    config = tmp_path / "settings.json"
    make_fault(config, fault)
    with within(10):
        if fault == "dangling":
            assert read_bytes(config) is None  # a missing file: setup writes a new one
        else:
            with pytest.raises(InstallError, match="cannot read"):
                read_bytes(config)


# (A folder is a folder of rules files: read, not refused.)
@pytest.mark.parametrize("fault", [f for f in FAULTS if f != "folder"])
def test_importing_rules_from_what_is_not_a_file_is_refused(
    home: Path, project: Path, fault: str
) -> None:
    rules = project / "AGENTS.md"
    make_fault(rules, fault)
    with within(10), cairn.open(home, project=project, cwd=project) as ws:
        if fault == "dangling":  # no file at all: the argument is wrong
            with pytest.raises(QueryError):
                import_rules(ws, [rules])
        else:  # listed with the reason; the other files of an import still count
            [item] = import_rules(ws, [rules]).items
            assert (item.outcome, item.path) == ("skipped", str(rules))
            assert item.reason.startswith("cannot read: ")
        assert ws.store.count_memories() == 0


@pytest.mark.parametrize("fault", FAULTS)
def test_the_store_s_own_files_read_as_absent(home: Path, project: Path, fault: str) -> None:
    cairn.open(home, project=project).close()
    make_fault(home / "triggers.tsv", fault)
    make_fault(home / "hook-timing.log", fault)
    with within(10):
        assert lines_of(home) == []
        assert read_timing(home) == []


@pytest.mark.parametrize("fault", FAULTS)
def test_a_transcript_that_is_not_a_file_has_no_refs(tmp_path: Path, fault: str) -> None:
    make_fault(tmp_path / "t.jsonl", fault)
    with within(10):
        assert replied_refs(tmp_path / "t.jsonl") == []


@pytest.mark.parametrize("name", ["HEAD", "commondir"])
@pytest.mark.parametrize("fault", FAULTS)
def test_git_files_that_are_not_files_read_as_absent(project: Path, fault: str, name: str) -> None:
    # A worktree's `.git` file points at its git folder, which holds HEAD and commondir.
    main = project.parent / "main"
    main.mkdir()
    make_git(main)
    gitdir = main / ".git" / "worktrees" / "wt"
    gitdir.mkdir(parents=True)
    (gitdir / "HEAD").write_text("ref: refs/heads/topic\n")
    (gitdir / "commondir").write_text("../..\n")
    (project / ".git").write_text(f"gitdir: {gitdir}\n")
    assert (current_branch(project), project_dir(project)) == ("topic", str(main))
    make_fault(gitdir / name, fault)
    with within(10):
        branch, folder = current_branch(project), project_dir(project)
    assert (branch, folder) == (("", str(main)) if name == "HEAD" else ("topic", str(project)))
    make_fault(project / ".git", fault)
    with within(10):
        assert git_dir_of(project) is None or fault == "folder"


@pytest.mark.parametrize("name", ["recall-postings.npz", "recall-lsa.npz"])
@pytest.mark.parametrize("fault", ["fifo", "device"])
def test_recall_s_kept_state_that_is_not_a_file_is_computed_afresh(
    home: Path, project: Path, fault: str, name: str
) -> None:
    make_git(project)
    with cairn.open(home, project=project, cwd=project) as ws:
        ws.remember("The build runs on the CI only")
    make_fault(home / name, fault)
    ran = run_cli(home, project, "recall", "build")
    assert ran.bounded and ran.returncode == 0 and b"CI only" in ran.stdout


@pytest.mark.parametrize("fault", ["fifo", "device", "huge"])
def test_a_git_hook_that_is_not_a_script_is_left_alone(project: Path, fault: str) -> None:
    import subprocess

    from cairn.io.repo.githooks import install_git_hooks, uninstall_git_hooks

    subprocess.run(["git", "init", "-q", str(project)], check=True)
    hook = project / ".git" / "hooks" / "post-merge"
    make_fault(hook, fault)
    with within(20):
        assert install_git_hooks(project)["post-merge"] == "skipped"
        assert install_git_hooks(project)["post-checkout"] == "unchanged"
        assert uninstall_git_hooks(project) == {
            "post-merge": "absent",
            "post-rewrite": "removed",
            "post-checkout": "removed",
        }
