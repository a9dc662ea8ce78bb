"""Follow a folder (``citewise sync DIR --watch``): one sync per settled batch of changes.

Uses ``watchfiles`` (a maintained, Rust-backed watcher) for the events and its debounce
(changes are grouped until the folder has been quiet for ``debounce_ms``). Each settled
batch runs a full :func:`~citewise.sync.mirror.run_sync`, so the current revision mirrors
the folder whatever the events said, and a batch is one revision. Files still being
written are read until stable (``read_stable``), else reported failed and picked up by the
next batch. Hidden paths (and the home, if it lies inside the folder) are ignored, so the
store's own writes never trigger a sync; a folder's ``.citewise.yaml`` (metadata) is not.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from citewise.ingest.meta_yaml import FOLDER_FILE
from citewise.sync.folder import SyncReport, sync_root
from citewise.sync.mirror import run_sync

if TYPE_CHECKING:
    from citewise.context import StageContext

DEBOUNCE_MS = 800


def _relevant(root: Path, home: Path) -> Callable[[object, str], bool]:
    roots = {root, root.resolve()}
    homes = {home, home.resolve()}

    def keep(_change: object, path: str) -> bool:
        p = Path(path)
        if any(p == h or h in p.parents for h in homes):
            return False
        for r in roots:
            if r in p.parents:
                rel = p.relative_to(r)
                # a folder's metadata file is hidden but changes its files' metadata
                parts = rel.parts[:-1] if rel.name == FOLDER_FILE else rel.parts
                return not any(part.startswith(".") for part in parts)
        return False

    return keep


def watch_folder(
    kb: StageContext,
    folder: str | Path,
    on_report: Callable[[SyncReport], None],
    *,
    stop: threading.Event | None = None,
    debounce_ms: int = DEBOUNCE_MS,
    run: Callable[[StageContext, Path], SyncReport] = run_sync,
) -> None:
    """Sync ``folder`` now, then after every settled batch of changes, until ``stop`` is set
    (or Ctrl-C). ``on_report`` gets every report that changed something (and the first).
    ``run`` is the sync of one batch (the facade passes the gated one of its policy)."""
    from watchfiles import watch

    root = sync_root(folder)
    on_report(run(kb, root))
    keep = _relevant(root, kb.settings.home)
    for _changes in watch(
        root,
        watch_filter=keep,
        debounce=debounce_ms,
        step=50,
        stop_event=stop,
        raise_interrupt=False,
        rust_timeout=500,
        yield_on_timeout=False,
    ):
        report = run(kb, root)
        if report.changed_anything or not report.ok:
            on_report(report)
