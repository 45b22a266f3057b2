"""The app's locks: a one-time token, a session cookie, the Host header and CSRF.

- `cairn serve` prints a URL holding a one-time token. The first request that brings it gets
  a session cookie (HttpOnly, SameSite=Strict) and is sent on without the token; the token is
  then spent, so a URL seen later (a shell history, a screen share) opens nothing.
- Every other request needs the cookie: no token, no page (403), static files included.
- The Host header must name the loopback address and port the server listens on, so a page
  of another site that rebinds its DNS name to 127.0.0.1 is refused (DNS rebinding).
- Every request that may change something (any method but GET and HEAD) must carry the
  session's CSRF token, as the `csrf` form field or the `X-CSRF-Token` header (htmx sends
  the header from `hx-headers`); an `Origin` header, when sent, must be the server's own.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode

from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

SAFE_METHODS = ("GET", "HEAD")
MAX_BODY = 64 << 10  # a form of this app is a few hundred bytes
HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        b"frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
    ),
    (b"x-frame-options", b"DENY"),
    # same-origin, not no-referrer: under no-referrer a browser sends `Origin: null` with a
    # plain form post, and the Origin check would refuse the app's own forms without JavaScript.
    (b"referrer-policy", b"same-origin"),
    (b"x-content-type-options", b"nosniff"),
    (b"cache-control", b"no-store"),
]
CSRF_FIELD = "csrf"
CSRF_HEADER = "x-csrf-token"


@dataclass
class Keys:
    """The secrets of one running server: the one-time token, the session and CSRF tokens."""

    port: int
    token: str | None = field(default_factory=lambda: secrets.token_urlsafe(32))
    session: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(32))

    @property
    def cookie(self) -> str:
        """The cookie's name: one per port, so two servers do not log each other out."""
        return f"cairn_{self.port}"

    @property
    def hosts(self) -> frozenset[str]:
        """The Host header values this server answers to."""
        return frozenset({f"127.0.0.1:{self.port}", f"localhost:{self.port}"})

    @property
    def origins(self) -> frozenset[str]:
        """The Origin header values of this server's own pages."""
        return frozenset(f"http://{h}" for h in self.hosts)

    def url(self) -> str:
        """The URL to open once: the server with the one-time token."""
        return f"http://127.0.0.1:{self.port}/?token={self.token}"

    def spend(self, given: str) -> bool:
        """True once, for the right token; the token is spent then."""
        if self.token is None or not same(given, self.token):
            return False
        self.token = None
        return True

    def has_session(self, request: Request) -> bool:
        """The request carries this server's session cookie."""
        got = request.cookies.get(self.cookie, "")
        return bool(got) and same(got, self.session)


def same(given: str, secret: str) -> bool:
    """Compare in constant time; any text may be given (compare_digest takes ASCII str only)."""
    return secrets.compare_digest(given.encode("utf-8", "replace"), secret.encode("utf-8"))


def refuse(status: int, why: str) -> Response:
    """A refusal as plain text: nothing is rendered for a request that is refused."""
    return PlainTextResponse(f"cairn: {why}\n", status_code=status)


class Guard:
    """ASGI middleware holding the locks above; what it refuses never reaches a route."""

    def __init__(self, app: ASGIApp, keys: Keys) -> None:
        self.app = app
        self.keys = keys

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            if scope["type"] == "lifespan":
                await self.app(scope, receive, send)
            return
        request = Request(scope, receive)
        response = await self.check(request)
        if response is not None:
            await response(scope, receive, send)
            return
        body = scope.pop("cairn.body", None)
        if body is not None:
            receive = _replay(body, receive)
        await self.app(scope, receive, _with_headers(send))

    async def check(self, request: Request) -> Response | None:
        """The refusal for this request, or None to let it through."""
        keys = self.keys
        if request.headers.get("host", "") not in keys.hosts:
            return refuse(421, "wrong Host header; open the URL `cairn serve` printed")
        given = request.query_params.get("token")
        if given is not None and request.method in SAFE_METHODS:
            if not keys.spend(given):
                return refuse(403, "this token is wrong or was used already; restart cairn serve")
            kept = urlencode([(k, v) for k, v in parse_qsl(request.url.query) if k != "token"])
            response = RedirectResponse(request.url.path + (f"?{kept}" if kept else ""), 303)
            response.set_cookie(
                keys.cookie, keys.session, httponly=True, samesite="strict", path="/"
            )
            return response
        if not keys.has_session(request):
            return refuse(403, "no token, no page: open the URL `cairn serve` printed")
        if request.method in SAFE_METHODS:
            return None
        try:
            size = int(request.headers.get("content-length", "0"))
        except ValueError:
            size = MAX_BODY + 1
        if size > MAX_BODY or "chunked" in request.headers.get("transfer-encoding", ""):
            return refuse(413, "request too large")
        origin = request.headers.get("origin")
        if origin is not None and origin not in keys.origins:
            return refuse(403, "a request from another site was refused")
        token = request.headers.get(CSRF_HEADER)
        if token is None and request.headers.get("content-type", "").startswith(
            "application/x-www-form-urlencoded"
        ):
            # The body read here is handed to the route again (`_replay`).
            body = await request.body()
            token = dict(parse_qsl(body.decode("utf-8", "replace"))).get(CSRF_FIELD)
            request.scope["cairn.body"] = body
        if not token or not same(token, keys.csrf):
            return refuse(403, "missing or wrong CSRF token; reload the page and try again")
        return None


def _replay(body: bytes, receive: Receive) -> Receive:
    """A `receive` that gives the body already read first, then the client's own messages."""
    sent = False

    async def again() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return again


def _with_headers(send: Send) -> Send:
    """A `send` that adds the security headers to every response of the app."""

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            message["headers"] = [*message.get("headers", []), *HEADERS]
        await send(message)

    return sending
