"""Lookups the recall stage needs from the SQLite backend: change generation, clause paths."""

from __future__ import annotations

from citewise.core.stored import ClauseMatch
from citewise.store._reads import SQLiteReads


class SQLiteLookup(SQLiteReads):
    def generation(self, kb: str) -> str:
        """Changes whenever the KB's current document set changes (any add, change, delete):
        its birth time and the stored counter every version row bumps (one row read)."""
        with self._read() as c:
            row = c.execute(
                "SELECT k.created_at, coalesce(g.n, 0) FROM kb k "
                "LEFT JOIN kb_generation g ON g.kb = k.name WHERE k.name = ?",
                (kb,),
            ).fetchone()
            if row is None:
                self._require_kb(c, kb)  # raises KBNotFound
        return f"{row[0]}:{row[1]}"

    def find_clauses(self, kb: str, clause_paths: list[str]) -> list[ClauseMatch]:
        """Current nodes whose clause path is one of ``clause_paths``, with overlapping chunks."""
        if not clause_paths:
            return []
        marks = ",".join("?" * len(clause_paths))
        with self._read() as c:
            self._require_kb(c, kb)
            rows = c.execute(
                "SELECT n.clause_path, n.node_id, n.kind, ch.chunk_id, d.path FROM document d "
                "JOIN version v ON v.vid = d.head_vid "
                "JOIN node n ON n.content_id = v.content_id "
                "JOIN chunk ch ON ch.content_id = n.content_id "
                "AND ch.char_start < n.char_end AND ch.char_end > n.char_start "
                f"WHERE d.kb = ? AND v.action != 'deleted' AND n.clause_path IN ({marks}) "
                "ORDER BY d.path, n.ordinal, ch.ordinal",
                (kb, *clause_paths),
            ).fetchall()
        return [ClauseMatch(r[0], r[1], r[2], r[3], r[4]) for r in rows]
