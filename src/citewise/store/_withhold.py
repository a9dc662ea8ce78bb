"""Takedown and expiry marks on stored versions, written once for both backends.

A withheld version keeps its bytes, text, nodes and hashes (the history and every
revision hash are unchanged); only its stored metadata gains the reserved mark
(``core/rights.py``), and the knowledge base's change counter is bumped in the same
transaction so every derived index re-reads the metadata (and the one access rule
withholds it) on its next read.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from contextlib import AbstractContextManager
from typing import Any

from citewise.core.rights import MARK
from citewise.errors import DocumentNotFound
from citewise.store import _convert as cv
from citewise.store._sql import run

#: One content version as the retention sweep reads it.
VersionRow = tuple[str, int, str, dict[str, Any]]  # path, version number, created_at, metadata


class SQLWithhold:
    """Over the backend's ``_read`` and ``_write`` (listed last among a backend's bases, so
    these stubs never hide its own)."""

    def _read(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def _write(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def content_versions(self, kb: str) -> list[VersionRow]:
        """Every content version of ``kb`` not withheld yet (deletion markers left out)."""
        with self._read() as c:
            rows = run(
                c,
                "SELECT d.path, v.version_no, v.created_at, v.metadata_json FROM version v "
                "JOIN document d ON d.doc_id = v.doc_id WHERE d.kb = ? AND v.action != 'deleted'",
                (kb,),
            ).fetchall()
        out: list[VersionRow] = []
        for r in rows:  # by column name: sqlite3.Row and psycopg's dict rows both allow it
            meta = json.loads(r["metadata_json"]) if r["metadata_json"] else {}
            if isinstance(meta, dict) and MARK not in meta:
                out.append((str(r["path"]), int(r["version_no"]), str(r["created_at"]), meta))
        return out

    def mark_withheld(self, kb: str, path: str, mark: Mapping[str, Any]) -> list[int]:
        """Add ``mark`` to every content version of ``path`` not withheld yet; the version
        numbers marked (empty: nothing left to withhold). Unknown path: DOC_NOT_FOUND."""
        return self._mark(kb, path, mark, None)

    def mark_versions(
        self, kb: str, path: str, mark: Mapping[str, Any], versions: list[int]
    ) -> list[int]:
        """:meth:`mark_withheld` limited to ``versions`` (the retention sweep's)."""
        return self._mark(kb, path, mark, set(versions))

    def unmark_withheld(self, kb: str, path: str, kind: str) -> list[int]:
        """Remove the mark of ``kind`` (``taken down``) from every version of ``path`` that
        carries it (a lifted takedown); the version numbers unmarked (empty: none had it).
        A front-matter ``takedown: true`` is part of the ingested version and stays.
        Unknown path: DOC_NOT_FOUND."""
        done: list[int] = []
        with self._write() as c:
            for vid, number, meta in self._rows(c, kb, path):
                held = meta.get(MARK)
                if not isinstance(held, Mapping) or held.get("kind") != kind:
                    continue
                del meta[MARK]
                run(c, "UPDATE version SET metadata_json = ? WHERE vid = ?", (cv.dumps(meta), vid))
                done.append(number)
            if done:
                _bump(c, kb)
        return sorted(done)

    def _rows(self, c: Any, kb: str, path: str) -> list[tuple[Any, int, dict[str, Any]]]:
        rows = run(
            c,
            "SELECT v.vid, v.version_no, v.metadata_json FROM version v JOIN document d "
            "ON d.doc_id = v.doc_id WHERE d.kb = ? AND d.path = ? AND v.action != 'deleted'",
            (kb, path),
        ).fetchall()
        if not rows:
            raise DocumentNotFound(
                f"No document {path!r} with stored content in knowledge base {kb!r}.",
                hint="List them with 'citewise docs list' (paths as shown there).",
            )
        return [
            (
                r["vid"],
                int(r["version_no"]),
                json.loads(r["metadata_json"]) if r["metadata_json"] else {},
            )
            for r in rows
        ]

    def _mark(
        self, kb: str, path: str, mark: Mapping[str, Any], only: set[int] | None
    ) -> list[int]:
        done: list[int] = []
        with self._write() as c:
            for vid, number, meta in self._rows(c, kb, path):
                if MARK in meta or (only is not None and number not in only):
                    continue
                meta[MARK] = dict(mark)
                run(c, "UPDATE version SET metadata_json = ? WHERE vid = ?", (cv.dumps(meta), vid))
                done.append(number)
            if done:
                _bump(c, kb)
        return sorted(done)


def _bump(c: Any, kb: str) -> None:
    """Move the KB's change counter, so indexes and caches read the metadata again."""
    if isinstance(c, sqlite3.Connection):
        c.execute(
            "INSERT INTO kb_generation(kb, n) VALUES (?, 1) "
            "ON CONFLICT(kb) DO UPDATE SET n = n + 1",
            (kb,),
        )
    else:
        c.execute("UPDATE kb SET generation = generation + 1 WHERE name = %s", (kb,))
