"""`cairn serve` as a real process: 127.0.0.1 only, the token opens it, Ctrl-C stops it."""

from __future__ import annotations

import http.client
import os
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

WAIT = 30.0  # seconds, at most, for the server to start or stop


def _line(proc: subprocess.Popen[bytes], prefix: str) -> str:
    """The first stdout line starting with `prefix` (bounded wait; raw reads, so no line
    waits in a buffer the selector cannot see)."""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    sel = selectors.DefaultSelector()
    sel.register(fd, selectors.EVENT_READ)
    seen = b""
    end = time.monotonic() + WAIT
    while time.monotonic() < end and sel.select(timeout=end - time.monotonic()):
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        seen += chunk
        for line in seen.decode().splitlines():
            if line.startswith(prefix):
                return line.strip()
    raise AssertionError(f"no line starting {prefix!r} within {WAIT} s: {seen!r}")


def _listening(port: int) -> set[str]:
    """Local addresses listening on `port` (IPv4, from /proc/net/tcp; state 0A = LISTEN)."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            local, state = row.split()[1], row.split()[3]
            address, hexport = local.rsplit(":", 1)
            if state == "0A" and int(hexport, 16) == port:
                found.add(address)
    return found


def _get(port: int, path: str) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.getheader("set-cookie") or ""
    finally:
        conn.close()


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads /proc/net/tcp")
def test_serve_listens_on_loopback_only_and_stops_on_ctrl_c(home: Path, project: Path) -> None:
    cmd = [sys.executable, "-c", "from cairn.cli import main; main()", "serve"]
    proc = subprocess.Popen(
        cmd,
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "CAIRN_HOME": str(home), "PYTHONUNBUFFERED": "1"},
    )
    try:
        url = urlsplit(_line(proc, "open ").removeprefix("open "))
        assert url.hostname == "127.0.0.1" and url.port
        assert _listening(url.port) == {"0100007F"}  # 127.0.0.1, nothing else
        assert _get(url.port, "/")[0] == 403  # no token, no page
        status, cookie = _get(url.port, f"/?{url.query}")
        assert status == 303 and cookie
        assert _get(url.port, f"/?{url.query}")[0] == 403  # the token works once
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=WAIT)
        assert proc.returncode == 0, err
        assert b"stopped" in err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
