"""Writes of the toy in-memory backend: knowledge bases, batches, ingest, delete."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
from collections.abc import Mapping, Sequence

from citewise.core.records import ParsedDocument, stable_id
from citewise.core.stored import IngestAction, IngestOutcome, KBInfo, NoteRecord, RevisionInfo
from citewise.errors import (
    DocumentNotFound,
    KBExists,
    KBInUse,
    KBIsDefault,
    UsageError,
    VersionNotFound,
)
from citewise.store import adhash, checks
from citewise.store._notes import check_records, next_revision_ok
from citewise.store._vectors import check_vectors
from tests.memstore.ledger import MemLedger, append_to
from tests.memstore.reads import MemReads
from tests.memstore.state import DEFAULT_KB, Content, Doc, State, Version, now
from tests.memstore.withhold import MemWithhold


class MemStore(MemReads, MemWithhold):
    """``MemStore()``: an empty home with the default knowledge base, and its ledger."""

    def __init__(self) -> None:
        super().__init__()
        self.ledger = MemLedger(self)
        self._vectors: dict[tuple[str, str], bytes] = {}
        self._notes: dict[tuple[str, str, str], list[NoteRecord]] = {}

    # -- derived dense vectors -------------------------------------------------------
    def get_vectors(self, fingerprint: str, keys: Sequence[str]) -> dict[str, bytes]:
        with self.read():
            return {
                k: self._vectors[fingerprint, k] for k in keys if (fingerprint, k) in self._vectors
            }

    def put_vectors(self, fingerprint: str, vectors: Mapping[str, bytes]) -> None:
        rows = check_vectors(fingerprint, vectors)
        with self.write():
            for key, data in rows:
                self._vectors.setdefault((fingerprint, key), data)

    # -- topic notes (derived) ---------------------------------------------------------
    def save_notes(self, kb: str, records: Sequence[NoteRecord]) -> None:
        check_records(records)
        with self.write() as s:
            s.require_kb(kb)
            added: dict[tuple[str, str, str], list[NoteRecord]] = {}
            for r in records:
                key = (kb, r.view, r.topic)
                have = added.get(key, self._notes.get(key, []))
                next_revision_ok(have[-1].revision if have else None, r)
                added[key] = [
                    *have,
                    dataclasses.replace(r, kb=kb, body=json.loads(json.dumps(r.body))),
                ]
            self._notes.update(added)

    def note_heads(self, kb: str, view: str) -> list[NoteRecord]:
        with self.read():
            return sorted(
                (revs[-1] for (k, v, _), revs in self._notes.items() if k == kb and v == view),
                key=lambda r: r.topic,
            )

    def note_history(self, kb: str, view: str, topic: str) -> list[NoteRecord]:
        with self.read():
            return list(self._notes.get((kb, view, topic), []))

    # -- knowledge bases -----------------------------------------------------------
    def create_kb(self, name: str, description: str = "") -> KBInfo:
        checks.check_kb_name(name)
        with self.write() as s:
            if name in s.kbs:
                raise KBExists(f"Knowledge base {name!r} already exists.")
            s.kbs[name] = (description, now())
        return self.get_kb(name)

    def update_kb(self, name: str, description: str) -> KBInfo:
        with self.write() as s:
            s.require_kb(name)
            s.kbs[name] = (description, s.kbs[name][1])
        return self.get_kb(name)

    def delete_kb(self, name: str, *, force: bool = False) -> None:
        checks.check_kb_name(name)
        if name == DEFAULT_KB:
            raise KBIsDefault("The default knowledge base cannot be deleted.")
        with self.write() as s:
            s.require_kb(name)
            held = len(s.current(name))
            if held and not force:
                raise KBInUse(f"Knowledge base {name!r} still holds {held} document(s).")
            gone = {d for d, doc in s.docs.items() if doc.kb == name}
            del s.kbs[name]
            s.revisions = {k: r for k, r in s.revisions.items() if k[0] != name}
            s.docs = {d: doc for d, doc in s.docs.items() if d not in gone}
            s.contents = {i: c for i, c in s.contents.items() if c.doc_id not in gone}
            s.versions = {i: v for i, v in s.versions.items() if v.doc_id not in gone}
            s.batches.pop(name, None)
            self._notes = {k: v for k, v in self._notes.items() if k[0] != name}
            append_to(s, "kb_delete", {"kb": name, "documents": held}, kb=name)

    # -- batches and revisions -------------------------------------------------------
    def group(self) -> contextlib.AbstractContextManager[None]:
        """Each change commits at once here (group commit is the SQLite backend's)."""
        return contextlib.nullcontext()

    def begin_batch(self, kb: str) -> None:
        with self.write() as s:
            s.require_kb(kb)
            if kb in s.batches:
                raise UsageError(f"A batch is already open for {kb!r}.")
            for key, r in s.revisions.items():  # seal what a cut-short batch left open
                if key[0] == kb and not r.sealed:
                    s.revisions[key] = dataclasses.replace(r, sealed=True)
            s.batches[kb] = None

    def end_batch(self, kb: str) -> RevisionInfo | None:
        with self.write() as s:
            s.require_kb(kb)
            rev = s.batches.pop(kb, None)
            if rev is None or (kb, rev) not in s.revisions:
                return None
            s.revisions[kb, rev] = dataclasses.replace(s.revisions[kb, rev], sealed=True)
            return s.revisions[kb, rev]

    @staticmethod
    def _open_revision(s: State, kb: str) -> int:
        head = s.head_rev(kb)
        wanted = s.batches.get(kb)
        if wanted is not None and head is not None and head.revision == wanted and not head.sealed:
            return wanted
        for key, r in s.revisions.items():
            if key[0] == kb and not r.sealed:
                s.revisions[key] = dataclasses.replace(r, sealed=True)
        number = 1 if head is None else head.revision + 1
        parent = adhash.EMPTY_HASH if head is None else head.hash
        count = 0 if head is None else head.document_count
        s.revisions[kb, number] = RevisionInfo(kb, number, parent, count, now(), False)
        if kb in s.batches:
            s.batches[kb] = number
        append_to(s, "revision", {"kb": kb, "revision": number, "parent_hash": parent}, kb=kb)
        return number

    @staticmethod
    def _finish(s: State, kb: str, rev: int, hash_hex: str, delta: int) -> None:
        r = s.revisions[kb, rev]
        count = r.document_count + delta
        sealed = r.sealed or kb not in s.batches  # a change outside a batch is its own revision
        s.revisions[kb, rev] = dataclasses.replace(
            r, hash=hash_hex, document_count=count, sealed=sealed
        )

    # -- ingest ----------------------------------------------------------------------
    def ingest_document(
        self,
        kb: str,
        path: str,
        raw: bytes,
        parsed: ParsedDocument,
        *,
        source: str = "",
        restored_from: int | None = None,
    ) -> IngestOutcome:
        checks.check_doc_path(path)
        checks.check_parsed(parsed)
        sha, raw_sha = parsed.content_sha256, hashlib.sha256(raw).hexdigest()
        doc_id = stable_id("d", kb, path)
        with self.write() as s:
            s.require_kb(kb)
            doc = s.docs.get(doc_id)
            head = None if doc is None else s.versions[doc.head]
            live = head is not None and head.action != "deleted"
            if restored_from is not None:
                old = s.version(doc_id, restored_from)
                if old is None or old.action == "deleted":
                    raise VersionNotFound(f"{path!r} has no version {restored_from} to restore.")
            meta = json.dumps(parsed.metadata, sort_keys=True, default=str)
            if (
                head is not None
                and live
                and head.content_sha == sha
                and head.raw_sha == raw_sha
                and json.dumps(
                    {k: v for k, v in json.loads(head.metadata).items() if k != "withheld"},
                    sort_keys=True,
                    default=str,
                )
                == meta
                and head.title == parsed.title
            ):
                assert head.content is not None
                c = s.contents[head.content]
                rev_now = s.head_rev(kb)
                number = 0 if rev_now is None else rev_now.revision
                return IngestOutcome(
                    "unchanged", doc_id, path, head.number, number, len(c.nodes), len(c.chunks)
                )
            action: IngestAction = (
                "reverted" if restored_from is not None else "changed" if live else "added"
            )
            rev = self._open_revision(s, kb)
            content = next(
                (i for i, c in s.contents.items() if c.doc_id == doc_id and c.sha == sha), None
            )
            if content is None:
                content = s.new_id()
                s.contents[content] = Content(doc_id, sha, parsed.text, parsed.nodes, parsed.chunks)
            hash_hex, delta = s.revisions[kb, rev].hash, 1
            if head is not None and live:
                s.versions[head.vid] = dataclasses.replace(head, rev_removed=rev)
                hash_hex, delta = adhash.remove(hash_hex, path, head.content_sha), 0
            number = 1 if head is None else head.number + 1
            vid = s.new_id()
            s.versions[vid] = Version(
                vid,
                doc_id,
                number,
                action,
                content,
                sha,
                raw,
                raw_sha,
                parsed.format,
                parsed.title,
                meta,
                source,
                restored_from,
                rev,
                None,
                now(),
            )
            s.docs[doc_id] = Doc(doc_id, kb, path, vid)
            hash_hex = adhash.add(hash_hex, path, sha)
            self._finish(s, kb, rev, hash_hex, delta)
            event = {
                "kb": kb,
                "path": path,
                "doc_id": doc_id,
                "action": action,
                "version": number,
                "content_sha256": sha,
                "raw_sha256": raw_sha,
                "metadata_sha256": hashlib.sha256(
                    json.dumps(
                        parsed.metadata, ensure_ascii=False, sort_keys=True, default=str
                    ).encode("utf-8")
                ).hexdigest(),
                "size_bytes": len(raw),
                "revision": rev,
                "revision_hash": hash_hex,
                "restored_from": restored_from,
            }
            append_to(s, "revert" if action == "reverted" else "ingest", event, kb=kb)
        return IngestOutcome(
            action, doc_id, path, number, rev, len(parsed.nodes), len(parsed.chunks)
        )

    def delete_document(self, kb: str, path: str) -> IngestOutcome:
        doc_id = stable_id("d", kb, path)
        with self.write() as s:
            s.require_kb(kb)
            doc = s.docs.get(doc_id)
            head = None if doc is None else s.versions[doc.head]
            if head is None or head.action == "deleted":
                raise DocumentNotFound(f"No current document {path!r} in knowledge base {kb!r}.")
            rev = self._open_revision(s, kb)
            s.versions[head.vid] = dataclasses.replace(head, rev_removed=rev)
            vid = s.new_id()
            s.versions[vid] = Version(
                vid,
                doc_id,
                head.number + 1,
                "deleted",
                None,
                "",
                None,
                "",
                "",
                "",
                "{}",
                "",
                None,
                rev,
                rev,
                now(),
            )
            s.docs[doc_id] = dataclasses.replace(s.docs[doc_id], head=vid)
            hash_hex = adhash.remove(s.revisions[kb, rev].hash, path, head.content_sha)
            self._finish(s, kb, rev, hash_hex, -1)
            event = {
                "kb": kb,
                "path": path,
                "doc_id": doc_id,
                "version": head.number + 1,
                "removed_content_sha256": head.content_sha,
                "revision": rev,
                "revision_hash": hash_hex,
            }
            append_to(s, "delete", event, kb=kb)
        return IngestOutcome("deleted", doc_id, path, head.number + 1, rev, 0, 0)
