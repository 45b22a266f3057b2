"""The app's locks: token, cookie, Host header, CSRF, Origin; nothing refused changes anything."""

from __future__ import annotations

from starlette.testclient import TestClient

from cairn.api import Cairn
from cairn.web import create_app
from tests.web.conftest import BASE, App


def _dump(ws: Cairn) -> list[str]:
    return list(ws.store.conn.iterdump())


def test_no_token_no_page(ws: Cairn) -> None:
    app = App(ws)
    for path in ("/", "/review", "/lessons", "/stats", "/progress", "/static/htmx.min.js"):
        got = app.client.get(path)
        assert got.status_code == 403 and "no token, no page" in got.text


def test_a_wrong_token_is_refused(ws: Cairn) -> None:
    app = App(ws)
    got = app.client.get("/?token=wrong")
    assert got.status_code == 403
    assert app.keys.token is not None  # the right one still works after a wrong guess
    assert app.client.get(f"/?token={app.keys.token}").status_code == 200


def test_the_token_works_once_and_becomes_a_cookie(ws: Cairn) -> None:
    app = App(ws)
    token = app.keys.token
    first = app.client.get(f"/?token={token}", follow_redirects=False)
    assert first.status_code == 303 and first.headers["location"] == "/"
    cookie = first.headers["set-cookie"]
    assert "httponly" in cookie.lower() and "samesite=strict" in cookie.lower()
    assert app.client.get("/").status_code == 200  # the cookie opens every page now
    stranger = TestClient(create_app(ws, app.keys), base_url=BASE)
    assert stranger.get(f"/?token={token}").status_code == 403  # spent
    assert stranger.get("/").status_code == 403


def test_a_wrong_host_is_refused_even_with_the_cookie(app: App) -> None:
    got = app.client.get("/", headers={"host": "evil.example:8765"})
    assert got.status_code == 421
    got = app.client.get("/", headers={"host": "127.0.0.1:9999"})
    assert got.status_code == 421


def test_localhost_is_the_same_server(app: App) -> None:
    assert app.client.get("/", headers={"host": "localhost:8765"}).status_code == 200


def test_a_post_without_csrf_changes_nothing(app: App) -> None:
    ref = app.ws.remember("We deploy with Render").ref
    before = _dump(app.ws)
    for data in ({}, {"csrf": "wrong"}):
        got = app.client.post(f"/m/{ref}/forget", data=data)
        assert got.status_code == 403 and "CSRF" in got.text
    got = app.client.post(f"/m/{ref}/pin", headers={"x-csrf-token": "wrong"})
    assert got.status_code == 403
    assert _dump(app.ws) == before


def test_the_csrf_header_is_accepted_as_htmx_sends_it(app: App) -> None:
    ref = app.ws.remember("We deploy with Render").ref
    got = app.client.post(f"/m/{ref}/pin", headers={"x-csrf-token": app.keys.csrf})
    assert got.status_code == 200
    assert app.ws.store.get_memory(ref).pinned


def test_a_post_from_another_origin_is_refused(app: App) -> None:
    ref = app.ws.remember("We deploy with Render").ref
    got = app.post(f"/m/{ref}/forget", headers={"origin": "http://evil.example"})
    assert got.status_code == 403
    assert app.ws.store.get_memory(ref).status == "active"


def test_a_post_with_a_null_origin_is_refused(app: App) -> None:
    ref = app.ws.remember("We deploy with Render").ref
    assert app.post(f"/m/{ref}/forget", headers={"origin": "null"}).status_code == 403
    assert app.post(f"/m/{ref}/forget", headers={"origin": BASE}).status_code == 200


def test_a_post_without_the_cookie_changes_nothing(ws: Cairn) -> None:
    app = App(ws)  # never logged in, but knows the CSRF token
    ref = ws.remember("We deploy with Render").ref
    before = _dump(ws)
    assert app.post(f"/m/{ref}/forget").status_code == 403
    assert _dump(ws) == before


def test_an_oversized_post_is_refused(app: App) -> None:
    ref = app.ws.remember("We deploy with Render").ref
    got = app.post(f"/m/{ref}/edit", {"text": "x" * 70_000, "revision": "1"})
    assert got.status_code == 413


def test_pages_carry_the_security_headers(app: App) -> None:
    got = app.client.get("/")
    assert "frame-ancestors 'none'" in got.headers["content-security-policy"]
    assert got.headers["referrer-policy"] == "same-origin"
    assert got.headers["x-frame-options"] == "DENY"


def test_reading_pages_changes_nothing(app: App) -> None:
    ref = app.ws.remember("We deploy with Render", tags=["ops"]).ref
    before = _dump(app.ws)
    for path in (
        "/",
        f"/m/{ref}",
        "/review",
        "/lessons?call=shell&value=git+push",
        "/stats",
        "/progress",
        "/?tag=ops",
    ):
        assert app.client.get(path).status_code == 200, path
    assert _dump(app.ws) == before


def test_tokens_that_are_not_ascii_are_refused_not_crashed(ws: Cairn) -> None:
    app = App(ws)
    assert app.client.get("/?token=%C3%A9t%C3%A9").status_code == 403
    app.login()
    ref = ws.remember("We deploy with Render").ref
    got = app.client.post(f"/m/{ref}/pin", data={"csrf": "été"})
    assert got.status_code == 403
    raw = f"{app.keys.cookie}=été".encode("latin-1")
    assert app.client.get("/", headers={"cookie": raw}).status_code == 403  # type: ignore[dict-item]
