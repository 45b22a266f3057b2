"""The stdio transport: the SDK's, with a line that is not a JSON-RPC message answered with
JSON-RPC's error instead of dropped, and the trigger list followed while the server runs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.shared.message import SessionMessage
from mcp_types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError
from pydantic import ValidationError

from cairn.io.store.protocol import Store


async def serve_stdio(server: MCPServer[Any], follow: Callable[[], Store] | None = None) -> None:
    """`server.run("stdio")`, but a line that is not a JSON-RPC message gets its answer.

    The SDK's stdio transport drops such a line without a word; JSON-RPC 2.0 answers it with
    an error whose id is null: -32700 (Parse error) for text that is not JSON, -32600
    (Invalid Request) for JSON that is not a request, notification or response.

    `follow` opens a store whose trigger changes are followed while the server runs
    (`cairn.io.triggerlist.follow`: a task in this loop, ended with the server).
    """
    from mcp.server.stdio import stdio_server

    from cairn.io.triggerlist.follow import follow as following

    lowlevel = server._lowlevel_server  # the SDK's own `run_stdio_async` does the same
    async with stdio_server() as (read_stream, write_stream), anyio.create_task_group() as tg:
        if follow is not None:
            tg.start_soon(following, follow)
        await lowlevel.run(
            _Answering(read_stream, write_stream),
            write_stream,
            lowlevel.create_initialization_options(),
        )
        tg.cancel_scope.cancel()


class _Answering:
    """A transport's read stream that answers the lines it could not read, and skips them."""

    def __init__(self, inner: Any, write: Any) -> None:
        self._inner = inner
        self._write = write

    @property
    def last_context(self) -> Any:
        """The sender's context of the last item (the SDK restores it for handlers)."""
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        """The next message; a line that was not one is answered with its error first."""
        while True:
            item = await self._inner.receive()
            if not isinstance(item, Exception):
                return item
            await self._write.send(SessionMessage(_unreadable(item)))

    def __aiter__(self) -> _Answering:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        """Close the stream underneath."""
        await self._inner.aclose()

    async def __aenter__(self) -> _Answering:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def _unreadable(error: Exception) -> JSONRPCError:
    """The JSON-RPC error answering a line the transport could not read as a message."""
    kinds = {e.get("type") for e in error.errors()} if isinstance(error, ValidationError) else set()
    if "json_invalid" in kinds or not isinstance(error, ValidationError):
        data = ErrorData(code=PARSE_ERROR, message="Parse error: the line is not JSON")
    else:
        data = ErrorData(
            code=INVALID_REQUEST,
            message="Invalid Request: not a JSON-RPC 2.0 request, notification or response",
        )
    return JSONRPCError(jsonrpc="2.0", id=None, error=data)
