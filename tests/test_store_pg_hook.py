"""The hook's firing call over PostgreSQL: few round trips, the schema checked once a machine.

Runs on the session's throwaway cluster (`pg_cluster`, tests/pgcluster.py); skipped, loudly,
where no PostgreSQL server is installed. Statements are counted in the server's own log
(`log_statement = all`, set on the test's database only), never timed.
"""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
import pytest

import cairn
from cairn.io.store import postgres
from cairn.io.store.pg_migrations import MIGRATIONS
from cairn.io.store.postgres import SCHEMA_VERSION, PostgresStore, redact, schema_mark
from cairn.usecases.install.command import launch
from tests.faults.conftest import SLOW_BUDGET_S, run_bounded
from tests.pgcluster import Cluster

pytestmark = pytest.mark.usefixtures("pg_cluster")

# A firing call that shows a lesson in a new session: the trigger generation, the session
# row, then one write transaction (BEGIN with the lock, the session, the memories, their
# events, the session's offers, the new offer, COMMIT). Was 12: the lock bound set apart and
# the schema checked (two queries) on every call.
FIRING_STATEMENTS = 9


def _database(url: str) -> str:
    return url.split("@/", 1)[1].split("?", 1)[0]


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    return project


def _push(project: Path, session: str) -> bytes:
    return json.dumps(
        {
            "session_id": session,
            "cwd": str(project),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "git push origin main"},
        }
    ).encode()


@pytest.fixture
def team(pg_cluster: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A database holding one shell lesson, and the hook's environment on one machine."""
    url = pg_cluster.new_database()
    home = tmp_path / "laptop"
    monkeypatch.setenv("CAIRN_DATABASE_URL", url)
    with cairn.open(home, project=_project(tmp_path)) as ws:
        ws.remember("Run make check before a push", when={"tool": "shell", "match": "git push"})
    return {
        "CAIRN_HOME": str(home),
        "CAIRN_DATABASE_URL": url,
        "CAIRN_HOOK_BUDGET": str(SLOW_BUDGET_S),
    }


def _logged(pg_cluster: Cluster, url: str, argv: list[str], data: bytes, env: dict[str, str]):
    """Run the hook once; (what it printed, the statements its database logged meanwhile)."""
    log = pg_cluster.folder / "log"
    before = log.stat().st_size
    done = run_bounded(argv, data, env=env)
    with open(log, "rb") as server_log:
        server_log.seek(before)
        lines = server_log.read().decode(errors="replace").splitlines()
    # Simple queries log "statement: ...", extended ones "execute <name>: ...".
    said = [line for line in lines if "LOG:  statement: " in line or "LOG:  execute " in line]
    return done, said


def test_a_firing_hook_sends_few_statements_and_checks_the_schema_once(
    pg_cluster: Cluster, team: dict[str, str], tmp_path: Path
) -> None:
    url = team["CAIRN_DATABASE_URL"]
    pg_cluster.admin(f"ALTER DATABASE {_database(url)} SET log_statement = 'all'")
    argv = launch().hook_argv("claude-code", "PreToolUse")
    project = tmp_path / "proj"
    for session in ("first", "second"):
        done, said = _logged(pg_cluster, url, argv, _push(project, session), team)
        assert done.returncode == 0
        assert b"Run make check before a push" in done.stdout
        assert len(said) <= FIRING_STATEMENTS, "\n".join(said)
        assert not [line for line in said if "migrations" in line]
        assert not [line for line in said if "SET lock_timeout" in line and "LOCAL" not in line]


def test_a_session_start_checks_the_schema_again(
    pg_cluster: Cluster, team: dict[str, str], tmp_path: Path
) -> None:
    url = team["CAIRN_DATABASE_URL"]
    pg_cluster.admin(f"ALTER DATABASE {_database(url)} SET log_statement = 'all'")
    start = json.dumps(
        {"session_id": "s", "cwd": str(tmp_path / "proj"), "hook_event_name": "SessionStart"}
    ).encode()
    done, said = _logged(
        pg_cluster, url, launch().hook_argv("claude-code", "SessionStart"), start, team
    )
    assert done.returncode == 0
    assert [line for line in said if "FROM migrations" in line]


def test_the_schema_check_is_noted_once_and_trusted_only_by_the_hook(
    team: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, home = team["CAIRN_DATABASE_URL"], team["CAIRN_HOME"]
    checks: list[str] = []
    real = postgres.applied

    def counted(conn: postgres.PgConnection) -> set[str] | None:
        checks.append(conn.path)
        return real(conn)

    monkeypatch.setattr(postgres, "applied", counted)
    mark = Path(schema_mark(home, url))
    mark.unlink()
    PostgresStore(url, home, trust_checked=True).close()  # no note yet: checked, noted
    assert (len(checks), mark.read_text().splitlines()[0]) == (1, SCHEMA_VERSION)
    PostgresStore(url, home, trust_checked=True).close()  # noted: not checked again
    assert len(checks) == 1
    PostgresStore(url, home).close()  # the CLI, MCP, a session start: always checked
    assert len(checks) == 2


def test_a_changed_schema_version_is_checked_again(
    team: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, home = team["CAIRN_DATABASE_URL"], team["CAIRN_HOME"]
    checks: list[int] = []
    real = postgres.applied
    monkeypatch.setattr(postgres, "applied", lambda conn: checks.append(1) or real(conn))
    mark = Path(schema_mark(home, url))
    mark.write_text("14 0014_an_older_cairn\n")
    PostgresStore(url, home, trust_checked=True).close()
    assert checks == [1]
    assert mark.read_text().splitlines()[0] == SCHEMA_VERSION


def test_the_note_names_its_database_and_no_password(
    team: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, home = team["CAIRN_DATABASE_URL"], team["CAIRN_HOME"]
    one = "postgresql://cairn:s3cret@db.example/one"
    assert schema_mark(home, one) == schema_mark(home, "postgresql://cairn:other@db.example/one")
    assert schema_mark(home, one) != schema_mark(home, "postgresql://cairn@db.example/two")
    mark = Path(schema_mark(home, url))
    assert url in mark.read_text()
    # A note in the file of another database (a file-name clash) is not trusted.
    checks: list[int] = []
    real = postgres.applied
    monkeypatch.setattr(postgres, "applied", lambda conn: checks.append(1) or real(conn))
    mark.write_text(f"{SCHEMA_VERSION}\npostgresql://cairn@elsewhere/other\n")
    PostgresStore(url, home, trust_checked=True).close()
    assert checks == [1]
    PostgresStore(url, home, trust_checked=True).close()
    assert checks == [1]
    assert "s3cret" not in postgres._noted(one)


def test_a_database_behind_its_note_makes_the_hook_silent_and_the_note_go(
    pg_cluster: Cluster, team: dict[str, str], tmp_path: Path
) -> None:
    url, home = team["CAIRN_DATABASE_URL"], team["CAIRN_HOME"]
    mark = Path(schema_mark(home, url))
    assert mark.exists()
    # The database is restored from before its last migration (here: that migration's row
    # gone, and a table the hook reads): the note no longer tells the truth.
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DELETE FROM migrations WHERE name = %s", (MIGRATIONS[-1][0],))
        conn.execute("DROP TABLE offers CASCADE")
    argv = launch().hook_argv("claude-code", "PreToolUse")
    done = run_bounded(argv, _push(tmp_path / "proj", "after"), env=team)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert not mark.exists()
    with pytest.raises(cairn.StoreError, match="lacks"):
        PostgresStore(url, home, trust_checked=True)


def test_the_bounds_travel_in_the_startup_packet(
    team: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    url = team["CAIRN_DATABASE_URL"]
    monkeypatch.setenv("PGOPTIONS", "-c work_mem=5MB")
    conn = postgres.connect(url, 300, within_s=0.75)
    try:
        shown = [
            conn.execute(f"SHOW {name}").fetchone()
            for name in ("lock_timeout", "statement_timeout", "work_mem")
        ]
    finally:
        conn.close()
    assert shown == [("300ms",), ("750ms",), ("5MB",)]
    plain = postgres.connect(url)
    try:
        assert plain.execute("SHOW statement_timeout").fetchone() == ("0",)
    finally:
        plain.close()


def test_a_password_given_as_a_url_parameter_is_never_written(team: dict[str, str]) -> None:
    home = team["CAIRN_HOME"]
    url = "postgresql://cairn@db.example/one?sslmode=require&password=s3cret&sslpassword=k3y"
    assert redact(url) == "postgresql://cairn@db.example/one?sslmode=require"
    assert "s3cret" not in postgres._noted(url)
    assert "k3y" not in postgres._noted(url)
    assert schema_mark(home, url) == schema_mark(home, redact(url))
