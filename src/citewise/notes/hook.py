"""Keeping notes current after a commit (``add``, ``sync``, ``delete``, ``revert``).

``CITEWISE_NOTES`` says when: ``auto`` (default) rebuilds the notes of a knowledge base
that has notes (built once by ``citewise notes build``), so a base that never asked for
notes pays nothing at ingest; ``on`` builds them after every commit; ``off`` never
(``notes build`` still does). The commit is the truth: a rebuild that fails is logged and
the next commit or ``notes build`` tries again.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping

from citewise.context import StageContext
from citewise.errors import CitewiseError, UsageError
from citewise.notes.rebuild import PUBLIC, RebuildReport, rebuild_notes

NOTES_ENV = "CITEWISE_NOTES"
MODES = ("auto", "on", "off")
log = logging.getLogger("citewise.notes")


def notes_mode(env: Mapping[str, str] | None = None) -> str:
    """``CITEWISE_NOTES`` (see the module docstring); UsageError for another value."""
    raw = (os.environ if env is None else env).get(NOTES_ENV, "").strip().lower() or "auto"
    if raw not in MODES:
        raise UsageError(
            f"{NOTES_ENV}={raw!r} is not one of {', '.join(MODES)}.",
            hint=f"Set {NOTES_ENV} to auto (keep built notes current), on or off.",
        )
    return raw


def after_commit(ctx: StageContext) -> RebuildReport | None:
    """Rebuild ``ctx``'s notes when the mode says so (None when it did not run)."""
    mode = notes_mode()
    if mode == "off" or (mode == "auto" and not ctx.store.note_heads(ctx.name, PUBLIC)):
        return None
    try:
        return rebuild_notes(ctx)
    except (CitewiseError, OSError) as exc:
        log.warning("Notes of %s were not rebuilt: %s", ctx.name, exc)
        return None
