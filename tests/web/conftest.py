"""The app under Starlette's test client: a workspace in tmp folders, a logged-in client."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from cairn.api import Cairn
from cairn.web import Keys, create_app

PORT = 8765
BASE = f"http://127.0.0.1:{PORT}"


def git_repo(folder: Path, branch: str = "main") -> Path:
    """A git repo with one commit on `branch`."""
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", "-b", branch, str(folder)], check=True)
    run = ["git", "-C", str(folder), "-c", "user.email=t@example.com", "-c", "user.name=T"]
    (folder / "app.py").write_text("def pay():\n    return retry(3)\n\n\ndef refund():\n    pass\n")
    subprocess.run([*run, "add", "app.py"], check=True)
    subprocess.run([*run, "commit", "-q", "-m", "start"], check=True)
    return folder


class App:
    """A test client of the app, and the keys of its server."""

    def __init__(self, ws: Cairn) -> None:
        self.ws = ws
        self.keys = Keys(PORT)
        self.client = TestClient(create_app(ws, self.keys), base_url=BASE)

    def login(self) -> App:
        assert self.keys.token is not None
        assert self.client.get(f"/?token={self.keys.token}").status_code == 200
        return self

    def post(self, path: str, data: dict[str, str] | None = None, **kw: object):  # type: ignore[no-untyped-def]
        """A form post as the page sends it (with the CSRF field)."""
        return self.client.post(path, data={"csrf": self.keys.csrf, **(data or {})}, **kw)  # type: ignore[arg-type]

    def undo_of(self, html: str) -> str:
        """The Undo form's action in a page's toast."""
        found = re.search(r'action="(/undo/[^"]+)"', html)
        assert found, "no Undo toast on the page"
        return found.group(1)


@pytest.fixture
def app(ws: Cairn) -> Iterator[App]:
    made = App(ws).login()
    yield made
    made.client.close()
