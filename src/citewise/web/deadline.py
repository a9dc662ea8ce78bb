"""One wall-clock deadline for a whole HTTP exchange, enforced on every socket operation.

httpcore's timeouts are per operation: a server that sends one byte a second never lets a
read time out, through the status line, the headers and the body alike. A
:class:`DeadlineBackend` hands out streams whose every connect, TLS handshake, read and
write waits at most the time left before one deadline, and fails at once past it; so a
trickling server is cut at the deadline (plus at most one operation's slack), however it
spreads its bytes. Used by the page fetcher (:mod:`.fetcher`) and the search engine client
(:mod:`.search`).
"""

from __future__ import annotations

import math
import ssl
import time
from collections.abc import Callable, Iterable
from typing import Any

import httpcore


class DeadlineStream(httpcore.NetworkStream):
    """A network stream whose operations share one deadline (``clock`` seconds)."""

    def __init__(
        self, inner: httpcore.NetworkStream, deadline: float, clock: Callable[[], float]
    ) -> None:
        self._inner, self._deadline, self._clock = inner, deadline, clock

    def _left(self, timeout: float | None, kind: type[httpcore.TimeoutException]) -> float | None:
        left = self._deadline - self._clock()
        if left <= 0:
            raise kind("the exchange's deadline passed")
        if left == math.inf:  # no deadline: the operation's own timeout, if any
            return timeout
        return left if timeout is None else min(timeout, left)

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, self._left(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, self._left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        left = self._left(timeout, httpcore.ConnectTimeout)
        inner = self._inner.start_tls(ssl_context, server_hostname, left)
        return DeadlineStream(inner, self._deadline, self._clock)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class DeadlineBackend(httpcore.SyncBackend):
    """httpcore's blocking backend, its streams bound by ``deadline`` (``time.monotonic``
    seconds, the clock of every socket timeout)."""

    def __init__(self, deadline: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.deadline, self.clock = deadline, clock

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        left = self.deadline - self.clock()
        if left <= 0:
            raise httpcore.ConnectTimeout("the exchange's deadline passed")
        wait = timeout if left == math.inf else left if timeout is None else min(timeout, left)
        stream = super().connect_tcp(host, port, wait, local_address, socket_options)
        return DeadlineStream(stream, self.deadline, self.clock)
