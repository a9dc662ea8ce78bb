"""Which server-side folders ``POST /kb/{kb}/sync`` may mirror.

A server never syncs an arbitrary path a caller names: the operator lists sync roots when
starting it (``citewise serve --sync-root DIR``, repeatable). A request names a folder
*relative to one root* (``{"root": 0, "folder": "team/docs"}`` or just ``"folder"`` for
the first root); the resolved folder (symlinks followed) must stay inside that root, so
``..`` and symlinks cannot reach out. With no roots configured the route answers 403.
Only keys with access to all bases (``--kbs '*'``) may sync, because a sync deletes
documents, including ones the caller's principal could not read.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from citewise.errors import Forbidden, NotFoundError, UsageError


def sync_folder(roots: tuple[Path, ...], folder: str, root: int = 0) -> Path:
    """The folder ``folder`` under sync root number ``root``, resolved and checked."""
    if not roots:
        raise Forbidden(
            "Server-side sync is off.",
            hint="Start the server with --sync-root DIR to allow syncing folders under DIR.",
        )
    if not 0 <= root < len(roots):
        raise UsageError(f"No sync root {root}.", hint=f"Use 0 to {len(roots) - 1}.")
    rel = PurePosixPath(folder or ".")
    if rel.is_absolute() or ".." in rel.parts or "\x00" in folder:
        raise UsageError(
            f"Bad sync folder {folder[:80]!r}.",
            hint="Name a folder relative to the sync root, like team/docs.",
        )
    base = roots[root].resolve()
    target = (base / rel).resolve()
    if target != base and base not in target.parents:
        raise Forbidden("That folder is outside the server's sync root.")
    if not target.is_dir():
        raise NotFoundError(f"No folder {folder!r} under sync root {root}.")
    return target
