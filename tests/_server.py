"""A real citewise HTTP server on 127.0.0.1 (uvicorn in a thread) for the server tests."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def running_server(
    home_dir: Path,
    *,
    max_upload_bytes: int | None = None,
    dense: bool = False,
    host: str = "127.0.0.1",
    store: str | None = None,
    **app_options: Any,
) -> Iterator[str]:
    """Serve ``home_dir`` on a free port of ``host``; yields the loopback base URL.

    The dense route is off unless asked for (the setting is read once, when the home opens).
    ``store``: the home's store location (default its own ``citewise.db``).
    ``app_options`` go to ``create_app`` (e.g. ``allowed_hosts``, ``max_json_bytes``).
    """
    from citewise.kb import Home
    from citewise.server.app import create_app

    saved = os.environ.get("CITEWISE_DENSE")
    os.environ["CITEWISE_DENSE"] = "on" if dense else "off"
    try:
        home = Home.open(home_dir, store=store)
    finally:
        if saved is None:
            del os.environ["CITEWISE_DENSE"]
        else:
            os.environ["CITEWISE_DENSE"] = saved
    if host != "127.0.0.1":
        app_options["bound_host"] = host
    app = create_app(home, max_upload_bytes=max_upload_bytes, **app_options)
    try:
        with serving(app, host=host) as url:
            yield url
    finally:
        home.close()


@contextmanager
def serving(app: Any, *, host: str = "127.0.0.1", log_level: str = "warning") -> Iterator[str]:
    """Serve an ASGI ``app`` on a free port of ``host`` until the block ends; yields the
    loopback URL (the server also listens on ``host``'s other addresses when it is 0.0.0.0)."""
    import uvicorn

    port = free_port()
    config = uvicorn.Config(app, host=host, port=port, log_level=log_level)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/health", timeout=1).status_code == 200:
                break
        except httpx.TransportError:
            time.sleep(0.05)
    else:  # pragma: no cover
        raise RuntimeError("server did not start")
    try:
        yield url
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def key_client(url: str, key: str) -> httpx.Client:
    """An HTTP client of a running server that sends ``key`` as its API key."""
    return httpx.Client(base_url=url, timeout=120, headers={"X-API-Key": key})


def upload_markdown(c: httpx.Client, files: dict[str, str], kb: str = "default") -> httpx.Response:
    """Upload ``{name: text}`` as Markdown files to ``kb`` in one request."""
    parts = [("files", (name, text.encode(), "text/markdown")) for name, text in files.items()]
    return c.post(f"/kb/{kb}/documents", files=parts)


def lexical_finds(c: httpx.Client, token: str, kb: str = "default") -> bool:
    """Whether a lexical search of ``kb`` for ``token`` returns an excerpt holding it."""
    hits = c.post(f"/kb/{kb}/search", json={"query": token, "mode": "lexical"}).json()["hits"]
    return any(token in h["excerpt"] for h in hits)
