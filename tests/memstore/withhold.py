"""Takedown and expiry marks on the toy backend (store/_withhold.py's contract)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

from citewise.core.rights import MARK
from citewise.errors import DocumentNotFound
from tests.memstore.state import MemTx


class MemWithhold(MemTx):
    def content_versions(self, kb: str) -> list[tuple[str, int, str, dict[str, Any]]]:
        with self.read() as s:
            s.require_kb(kb)
            out = []
            for v in s.versions.values():
                doc = s.docs[v.doc_id]
                meta = json.loads(v.metadata)
                if doc.kb == kb and v.action != "deleted" and MARK not in meta:
                    out.append((doc.path, v.number, v.created_at, meta))
        return out

    def mark_withheld(self, kb: str, path: str, mark: Mapping[str, Any]) -> list[int]:
        return self._mark(kb, path, mark, None)

    def mark_versions(
        self, kb: str, path: str, mark: Mapping[str, Any], versions: list[int]
    ) -> list[int]:
        return self._mark(kb, path, mark, set(versions))

    def _mark(
        self, kb: str, path: str, mark: Mapping[str, Any], only: set[int] | None
    ) -> list[int]:
        done: list[int] = []
        with self.write() as s:
            doc = s.doc(kb, path)
            rows = [v for v in s.versions.values() if v.doc_id == doc.doc_id]
            rows = [v for v in rows if v.action != "deleted"]
            if not rows:
                raise DocumentNotFound(f"No document {path!r} with stored content in {kb!r}.")
            for v in rows:
                meta = json.loads(v.metadata)
                if MARK in meta or (only is not None and v.number not in only):
                    continue
                meta[MARK] = dict(mark)
                text = json.dumps(meta, sort_keys=True, default=str)
                s.versions[v.vid] = dataclasses.replace(v, metadata=text)
                done.append(v.number)
            if done:
                s.marks += 1
        return sorted(done)

    def unmark_withheld(self, kb: str, path: str, kind: str) -> list[int]:
        done: list[int] = []
        with self.write() as s:
            doc = s.doc(kb, path)
            rows = [v for v in s.versions.values() if v.doc_id == doc.doc_id]
            for v in (v for v in rows if v.action != "deleted"):
                meta = json.loads(v.metadata)
                held = meta.get(MARK)
                if not isinstance(held, Mapping) or held.get("kind") != kind:
                    continue
                del meta[MARK]
                text = json.dumps(meta, sort_keys=True, default=str)
                s.versions[v.vid] = dataclasses.replace(v, metadata=text)
                done.append(v.number)
            if done:
                s.marks += 1
        return sorted(done)
