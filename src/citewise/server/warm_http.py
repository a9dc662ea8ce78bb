"""The HTTP layer's part of the warm-up (issue 35): the server's first request.

The first POST a fresh app handles costs tens of milliseconds of one-time set-up in the
web framework (request body parsing and validation paths, built on first use), paid by
whichever caller comes first. :func:`first_request` sends that request to the app itself,
in process (no socket): an ask with an empty question, which every route refuses (400)
before reading anything, so it records nothing and answers nobody. It runs as the last
step of :class:`citewise.facade.warmup.Warmup`.
"""

from __future__ import annotations

import asyncio

import httpx
from starlette.types import ASGIApp

from citewise.facade.warmup import StepStatus

#: Host of the in-process request: a loopback name, which the host guard always accepts.
LOCAL_BASE = "http://127.0.0.1"


def first_request(app: ASGIApp, kb: str) -> tuple[StepStatus, str]:
    """POST an empty question to ``/kb/{kb}/ask`` through ``app``; ok when the app answered
    with a status (400 without keys; 401 when keys are required, which warms less)."""

    async def send() -> int:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=LOCAL_BASE) as client:
            reply = await client.post(f"/kb/{kb}/ask", json={"question": " "})
            return reply.status_code

    status = asyncio.run(send())
    return "ok", f"HTTP {status} (an empty question, refused before any work)"
