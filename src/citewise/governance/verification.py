"""Verification routing per policy (issue 38): the policy's ``verification`` key decides
when an answer is checked against the second source (the web, docs/regulations.md).

- ``off`` (default): only when the caller asks (``--verify-web``, ``"verify_web"``);
- ``regulatory``: also every **regulatory question**: one that names a regulation
  (``12 CFR 1002``, ``ISO 13485:2016``: ``ingest/regulation.py``'s ``regulation_ids``)
  or whose answer cites a regulation edition (a citation carrying ``regulation``);
- ``always``: every answer.

The routing is recorded in the answer (trace and public JSON, ``verification_route``):
the policy, whether it routed this answer and why, and whether verification ran. When it
routes an answer but the web is not configured, the answer is still given and says
``state: unverified`` with the reason, so a regulatory answer never looks verified, nor
silently unverified. (A malformed policy fails the ask with ``BAD_POLICY``
before this, as the conflict rules read it too.)
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citewise.answer.models import Answer
from citewise.errors import BadPolicy, CitewiseError
from citewise.governance.policy import load_policy
from citewise.ingest.regulation import regulation_ids

if TYPE_CHECKING:
    from citewise.web.verify import WebVerifier


def _why(mode: str, answer: Answer) -> str | None:
    """Why the policy routes ``answer`` to verification; None when it does not."""
    if mode == "always":
        return "policy: always"
    named = [r for r, _ in regulation_ids(str(answer.trace.get("question", "")))]
    if named:
        return f"regulatory question: names {', '.join(named[:3])}"
    if any(c.regulation is not None for c in answer.citations):
        return "regulatory question: answered from a regulation edition"
    return None


def route(
    home: Path, kb: str, answer: Answer, web: WebVerifier | None
) -> tuple[WebVerifier | None, dict[str, Any] | None]:
    """The verifier to run on ``answer`` (the caller's, or one the policy opens) and the
    routing record (None under ``off``: nothing to record)."""
    try:
        mode = load_policy(home, kb).verification
    except BadPolicy:
        return web, None
    if mode == "off":
        return web, None
    why = _why(mode, answer)
    out: dict[str, Any] = {"policy": mode, "routed": why is not None, "why": why}
    if why is None or web is not None:
        return web, out | {"ran": web is not None}
    from citewise.web.settings import WebSettings, open_verifier

    try:
        opened = open_verifier(WebSettings.from_env(os.environ), home)
    except CitewiseError as exc:
        reason = f"{exc.message} {exc.hint}".strip() if exc.hint else exc.message
        return None, out | {"ran": False, "state": "unverified", "reason": reason}
    return opened, out | {"ran": True}
