"""A throwaway PostgreSQL cluster for the tests (a pytest plugin, loaded by tests/conftest.py).

`pg_cluster` starts one cluster per test session with the machine's own server binaries
(`initdb`, `pg_ctl`): its Unix socket in a tmp folder, TCP off (`listen_addresses=''`), fsync
off. Each test takes a new database from a template the migrations made once
(`Cluster.new_database`). Where no server is installed (or it cannot be run, or
`CAIRN_TEST_POSTGRES=off`), every test that needs it is skipped and the run's summary says so
in red: the PostgreSQL half did not run.

As root (a container), the server is run as the `postgres` user through `runuser`: PostgreSQL
refuses to run as root.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

SKIPPED: list[str] = []
SEARCH = ["/usr/local/bin", "/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin"]
SEARCH += ["/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/14/bin"]


class Cluster:
    """A running cluster: its socket folder and a counter for new databases."""

    def __init__(self, folder: Path, wrap: list[str], pg_ctl: str) -> None:
        self.folder = folder
        self.wrap = wrap
        self.pg_ctl = pg_ctl
        self.made = 0

    def url(self, database: str) -> str:
        """The URL of one database of the cluster (through the socket, role `cairn`)."""
        return f"postgresql://cairn@/{database}?host={self.folder}"

    def admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(sql)  # type: ignore[arg-type]

    def new_database(self, migrated: bool = True) -> str:
        """A new empty database (with the store's schema unless `migrated` is False)."""
        self.made += 1
        name = f"t{self.made}"
        template = "cairn_template" if migrated else "template0"
        self.admin(f"CREATE DATABASE {name} TEMPLATE {template} STRATEGY FILE_COPY")
        return self.url(name)

    def drop_database(self, url: str) -> None:
        """Drop a database `new_database` made (its connections closed first)."""
        name = url.split("@/", 1)[1].split("?", 1)[0]
        self.admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def stop(self) -> None:
        subprocess.run(
            [*self.wrap, self.pg_ctl, "-D", str(self.folder / "data"), "-m", "immediate", "stop"],
            env=_server_env(),
            capture_output=True,
            timeout=60,
            check=False,
        )


def _server_env() -> dict[str, str]:
    """The server's environment: this one without libfaketime (`make test-future` preloads it
    to move the tests' clock a year ahead). The server times its own lock and statement
    timeouts, which faked timers never end; Cairn's "now" comes from its own clock, not the
    server's."""
    drop = ("LD_PRELOAD", "DYLD_INSERT_LIBRARIES")
    return {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("FAKETIME")}


def _binary(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    for folder in SEARCH:
        path = os.path.join(folder, name)
        if os.access(path, os.X_OK):
            return path
    return None


def _start() -> Cluster:
    """Start the cluster, or raise RuntimeError saying why it cannot be."""
    if os.environ.get("CAIRN_TEST_POSTGRES") == "off":
        raise RuntimeError("CAIRN_TEST_POSTGRES=off")
    initdb, pg_ctl = _binary("initdb"), _binary("pg_ctl")
    if initdb is None or pg_ctl is None:
        raise RuntimeError("no PostgreSQL server binaries (initdb, pg_ctl) on this machine")
    try:
        import psycopg  # noqa: F401
    except ImportError as exc:
        raise RuntimeError("psycopg is not installed (pip install -e '.[dev]')") from exc
    wrap: list[str] = []
    folder = Path(tempfile.mkdtemp(prefix="cairn-pg-"))
    if os.geteuid() == 0:
        runuser = shutil.which("runuser")
        try:
            owner = pwd.getpwnam("postgres")
        except KeyError:
            owner = None
        if runuser is None or owner is None:
            raise RuntimeError("running as root with no `postgres` user to run the server as")
        os.chown(folder, owner.pw_uid, owner.pw_gid)
        wrap = [runuser, "-u", "postgres", "--"]
    data = folder / "data"
    init = [initdb, "-D", str(data), "-A", "trust", "-U", "cairn", "--no-sync", "--locale=C"]
    made = subprocess.run(
        [*wrap, *init, "-E", "UTF8"],
        env=_server_env(),
        capture_output=True,
        timeout=120,
        check=False,
    )
    if made.returncode != 0:
        raise RuntimeError(f"initdb failed: {made.stderr.decode(errors='replace')[-300:]}")
    options = f"-c listen_addresses='' -k {folder} -c fsync=off -c full_page_writes=off"
    start = [pg_ctl, "-D", str(data), "-w", "-t", "60", "-l", str(folder / "log")]
    started = subprocess.run(
        [*wrap, *start, "-o", options, "start"],
        env=_server_env(),
        capture_output=True,
        timeout=120,
        check=False,
    )
    cluster = Cluster(folder, wrap, pg_ctl)
    if started.returncode != 0:
        cluster.stop()
        raise RuntimeError(f"pg_ctl start failed: {started.stderr.decode(errors='replace')}")
    from cairn.io.store.postgres import PostgresStore

    cluster.admin("CREATE DATABASE cairn_template TEMPLATE template0")
    PostgresStore.migrate(cluster.url("cairn_template"), "2026-11-01T12:00:00.000000Z")
    return cluster


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    """The session's PostgreSQL cluster (skips the test where none can be started)."""
    try:
        cluster = _start()
    except RuntimeError as exc:
        SKIPPED.append(str(exc))
        pytest.skip(f"PostgreSQL half skipped: {exc}")
    try:
        yield cluster
    finally:
        cluster.stop()
        shutil.rmtree(cluster.folder, ignore_errors=True)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say loudly that the PostgreSQL half did not run, when it did not."""
    if SKIPPED:
        terminalreporter.section("PostgreSQL", sep="!", red=True, bold=True)
        terminalreporter.write_line(
            f"THE POSTGRESQL HALF OF THE SUITE WAS SKIPPED: {SKIPPED[0]}", red=True, bold=True
        )
