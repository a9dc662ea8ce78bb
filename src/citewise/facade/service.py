"""What the HTTP and MCP servers may do for a caller: one place for scope and access.

Every read goes through a :class:`Caller`: knowledge bases it may not use, and documents
whose front-matter ``access:`` list does not name its principal, look exactly like ones that
do not exist (same code, same message), in listings, counts, citations and graph
neighbors. Searches, evidence and answers get ``SearchFilters(principal=...)`` so the
library applies the same rule inside every route before ranking.

Concurrency: one readers-writer lock (:class:`~citewise.facade.rwlock.RWLock`) per service.
Reads (search, evidence, answers, document, graph and KB reads) share it and run at once;
writes (storing an upload, delete, revert, KB create/change/delete) take it alone. An
upload is parsed before the write lock is taken (parse limits bound that work per file). A read
that uses the indexes also pins the KB's index state and graph
(:meth:`~citewise.index.manager.KBIndex.pinned`): when another process (``citewise add``)
changes the store meanwhile, the rebuild is built aside and swapped in, and the request
keeps reading the state it started with.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Any, BinaryIO

from citewise.analysis.conditions import ConditionSet
from citewise.answer.meaning import meaning_status
from citewise.answer.models import Answer
from citewise.core.access import RevisionView, may_read, revision_view
from citewise.core.records import AddReport, FileResult
from citewise.core.search import SearchFilters, SearchMode, SearchResult
from citewise.core.stored import (
    DocumentInfo,
    IngestOutcome,
    KBInfo,
    ResolvedCitation,
    VersionInfo,
)
from citewise.errors import (
    CitationNotFound,
    CitewiseError,
    DocumentNotFound,
    FileTooLarge,
    Forbidden,
    KBNotFound,
    NodeNotFound,
    NotFoundError,
    UnsupportedFormat,
    UsageError,
    VersionNotFound,
)
from citewise.evidence.models import EvidencePack, Profile
from citewise.facade import renumber
from citewise.facade.caller import Caller
from citewise.facade.history import SeenHistory, seen_history
from citewise.facade.rwlock import RWLock
from citewise.facade.sync_roots import sync_folder
from citewise.facade.sync_view import folder_names, scrub_report, scrubbed, visible_files
from citewise.facade.uploads import clean_stale, name_conflicts, safe_doc_path, staging
from citewise.graph.serialize import edge_json, point_json
from citewise.ingest.formats import supported_suffixes
from citewise.ingest.meta_yaml import parse_upload_fields
from citewise.jsonable import to_jsonable
from citewise.kb import Home, KnowledgeBase
from citewise.recall.rerank import health as rerank_health
from citewise.store.adhash import multiset_hash
from citewise.sync.folder import SyncReport, answer_principal, stale_answers
from citewise.sync.mirror import SyncPlan, apply_sync, plan_sync

_COPY_CHUNK = 64 * 1024
#: Metadata of a version with none stored: readable by nobody (fails closed).
_NOBODY: dict[str, list[str]] = {"access": []}


@dataclass(frozen=True, slots=True)
class Upload:
    """One uploaded file: its document path and a readable binary stream."""

    name: str
    stream: BinaryIO


@dataclass(frozen=True, slots=True)
class Scope:
    """Narrowing filters a caller may add (never the principal: that comes from the key)."""

    path_prefixes: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    metadata: tuple[tuple[str, str], ...] = ()
    #: Editions (recall/editions.py): None = default, True = current only, False = all.
    current_only: bool | None = None
    as_of: str | None = None  # ISO date, already checked


def _no_kb(name: str) -> KBNotFound:
    return KBNotFound(f"No knowledge base named {name!r}.", hint="List them with GET /kb.")


def _no_doc(kb: str, path: str) -> DocumentNotFound:
    return DocumentNotFound(f"No document {path!r} in knowledge base {kb!r}.")


def _no_citation(cid: str) -> CitationNotFound:
    return CitationNotFound(f"No citation {cid[:80]!r} in the knowledge bases you can read.")


def _as_new(result: FileResult, new_to_caller: bool) -> FileResult:
    """A written file's result as the caller sees it: ``added`` when it could read no
    earlier version of the path (as for a path that never existed)."""
    if new_to_caller and result.status in ("changed", "unchanged", "reverted"):
        return replace(result, status="added")
    return result


class Service:
    """Access-checked operations on one home, shared by all requests of a server."""

    def __init__(
        self,
        home: Home,
        *,
        max_upload_bytes: int | None = None,
        sync_roots: tuple[Path, ...] = (),
    ) -> None:
        self.home = home
        self.sync_roots = sync_roots
        self.max_upload_bytes = max_upload_bytes or home.settings.ingest.max_file_bytes
        self.lock = RWLock()
        self._version_meta: dict[tuple[str, str, int], dict[str, Any]] = {}
        clean_stale(home.settings.home)  # staging folders of a server that was killed

    @contextmanager
    def reading(self, caller: Caller, name: str) -> Iterator[KnowledgeBase]:
        """The shared lock, plus one pinned index state and graph of the KB for the whole
        read (access is checked first, so a hidden KB is never touched)."""
        with self.lock.read():
            kb = self.kb(caller, name)
            with self.home.index(kb.name).pinned():
                yield kb

    # -- knowledge bases ------------------------------------------------------------
    def kb(self, caller: Caller, name: str) -> KnowledgeBase:
        if not caller.may_use(name):
            raise _no_kb(name)
        try:
            return self.home.kb(name)
        except KBNotFound:
            raise _no_kb(name) from None

    def visible_documents(self, caller: Caller, kb: KnowledgeBase) -> list[DocumentInfo]:
        return [d for d in kb.documents() if may_read(d.metadata, caller.principal)]

    def _view(self, caller: Caller, name: str) -> RevisionView:
        """Revision numbers as the caller sees them: changes to documents it may not read
        never move them (read under the lock, from the store's version history)."""
        return revision_view(self.home.store.version_access(name), caller.principal)

    def kb_info(self, caller: Caller, name: str) -> dict[str, Any]:
        with self.lock.read():
            kb = self.kb(caller, name)
            info = kb.info()
            docs = self.visible_documents(caller, kb)
            revision = self._view(caller, name).number(info.revision)
        data: dict[str, Any] = to_jsonable(
            replace(info, document_count=len(docs), revision=revision)
        )
        data["stats"] = {
            "documents": len(docs),
            "nodes": sum(d.node_count for d in docs),
            "chunks": sum(d.chunk_count for d in docs),
            "bytes": sum(d.size_bytes for d in docs),
        }
        return data

    def list_kbs(self, caller: Caller) -> list[dict[str, Any]]:
        with self.lock.read():
            names = [k.name for k in self.home.list_kbs() if caller.may_use(k.name)]
        return [self.kb_info(caller, n) for n in names]

    def create_kb(self, caller: Caller, name: str, description: str) -> KBInfo:
        if not caller.all_kbs:
            raise Forbidden("This key may not create knowledge bases.")
        with self.lock.write():
            return self.home.create_kb(name, description)

    def update_kb(self, caller: Caller, name: str, description: str) -> dict[str, Any]:
        if not caller.all_kbs:
            self.kb(caller, name)  # 404 before 403 for bases it cannot see
            raise Forbidden("This key may not change knowledge bases.")
        with self.lock.write():
            self.kb(caller, name)
            self.home.store.update_kb(name, description)
        return self.kb_info(caller, name)

    def delete_kb(self, caller: Caller, name: str, *, force: bool) -> None:
        with self.lock.write():
            self.kb(caller, name)
            if not caller.all_kbs:
                raise Forbidden("This key may not delete knowledge bases.")
            self.home.delete_kb(name, force=force)
            self.home._indexes.pop(name, None)

    # -- documents ------------------------------------------------------------------
    def documents(
        self,
        caller: Caller,
        name: str,
        *,
        query: str = "",
        prefix: str = "",
        tag: str = "",
        limit: int | None = None,
        offset: int = 0,
    ) -> dict[str, Any]:
        with self.lock.read():
            kb = self.kb(caller, name)
            docs = self.visible_documents(caller, kb)
            if prefix:
                docs = [d for d in docs if d.path.startswith(prefix)]
            if tag:
                docs = [
                    d
                    for d in docs
                    if tag.lower() in {str(t).lower() for t in d.metadata.get("tags") or ()}
                ]
            if query:
                q = query.lower()
                docs = [d for d in docs if q in d.path.lower() or q in d.title.lower()]
            total = len(docs)
            page = docs[offset : None if limit is None else offset + limit]
            page = [self._numbered(caller, kb, d) for d in page]
        return {"total": total, "offset": offset, "documents": to_jsonable(page)}

    def _numbered(self, caller: Caller, kb: KnowledgeBase, doc: DocumentInfo) -> DocumentInfo:
        """``doc`` (current, readable) with its version numbered as the caller sees it."""
        try:
            number = self._history(caller, kb, doc.path).number(doc.version_id)
        except DocumentNotFound:
            return doc  # not reached: a readable current document has a history
        return doc if number is None else replace(doc, version_id=number)

    def _readable_version(self, kb: KnowledgeBase, caller: Caller, path: str, vid: int) -> bool:
        """Access to a stored version from the metadata stored with it at ingest (front
        matter, sidecar and upload fields alike): its bytes are never read nor parsed again."""
        key = (kb.name, path, vid)
        if key not in self._version_meta:
            for number, meta in self.home.store.version_metadata(kb.name, path).items():
                self._version_meta[(kb.name, path, number)] = meta
        # A version without stored metadata (not one with content) is readable by nobody.
        return may_read(self._version_meta.get(key, _NOBODY), caller.principal)

    def _document(self, caller: Caller, kb: KnowledgeBase, path: str) -> DocumentInfo:
        try:
            doc = kb.document(path)
        except DocumentNotFound:
            raise _no_doc(kb.name, path) from None
        if not may_read(doc.metadata, caller.principal):
            raise _no_doc(kb.name, path)
        return doc

    def _history(self, caller: Caller, kb: KnowledgeBase, path: str) -> SeenHistory:
        """The history of ``path`` as the caller sees it (``facade.history``: its own
        version numbers, nothing pointing at versions it may not read), or DOC_NOT_FOUND
        when it shows nothing: such a history looks exactly like a path that never existed."""
        try:
            versions = kb.versions(path)[::-1]  # oldest first
        except DocumentNotFound:
            raise _no_doc(kb.name, path) from None
        readable = [
            v.action != "deleted" and self._readable_version(kb, caller, path, v.version_id)
            for v in versions
        ]
        seen = seen_history(versions, readable)
        if not seen.entries:
            raise _no_doc(kb.name, path)
        return seen

    def document(
        self, caller: Caller, name: str, path: str, *, nodes: bool = False
    ) -> dict[str, Any]:
        with self.lock.read():
            kb = self.kb(caller, name)
            doc = self._numbered(caller, kb, self._document(caller, kb, path))
            data: dict[str, Any] = to_jsonable(doc)
            if nodes:
                data["nodes"] = to_jsonable(kb.nodes(path))
        return data

    def versions(self, caller: Caller, name: str, path: str) -> list[VersionInfo]:
        with self.lock.read():
            kb = self.kb(caller, name)
            view = self._view(caller, name)
            return [
                replace(v, source="", revision=view.number(v.revision))
                for v in reversed(self._history(caller, kb, path).entries)
            ]

    def revert(self, caller: Caller, name: str, path: str, version_id: int) -> IngestOutcome:
        """Restore the caller's version ``version_id`` (its own numbering)."""
        with self.lock.read():
            kb, stored = self._revertible(caller, name, path, version_id)
            raw, _ = self.home.store.get_version_content(kb.name, path, stored)
        # The version's bytes never change: parse them before taking the write lock.
        parsed = kb.parse_version(path, stored, raw)
        with self.lock.write():
            kb, again = self._revertible(caller, name, path, version_id)  # checked again, alone
            if again != stored:
                raise VersionNotFound(
                    f"{path!r} changed while its version {version_id} was being read.",
                    hint="List the document's versions and try again.",
                )
            self._version_meta.clear()
            return self._seen(caller, kb, kb.revert(path, stored, parsed=parsed))

    def _revertible(
        self, caller: Caller, name: str, path: str, version_id: int
    ) -> tuple[KnowledgeBase, int]:
        """The KB and the store's version number behind the caller's ``version_id``."""
        kb = self.kb(caller, name)
        seen = self._history(caller, kb, path)
        stored = seen.store_id(version_id)
        if stored is None or seen.entries[version_id - 1].action == "deleted":
            raise VersionNotFound(
                f"{path!r} has no version {version_id} with content.",
                hint="List the document's versions to pick one (deletions have no content).",
            )
        return kb, stored

    def delete_document(self, caller: Caller, name: str, path: str) -> IngestOutcome:
        with self.lock.write():
            kb = self.kb(caller, name)
            self._document(caller, kb, path)
            return self._seen(caller, kb, kb.delete(path))

    def _seen(self, caller: Caller, kb: KnowledgeBase, outcome: IngestOutcome) -> IngestOutcome:
        """A write's outcome numbered as the caller sees the KB and the path."""
        number = self._history(caller, kb, outcome.path).number(outcome.version_id)
        return replace(
            outcome,
            version_id=outcome.version_id if number is None else number,
            revision=self._view(caller, kb.name).number(outcome.revision),
        )

    def sync(
        self, caller: Caller, name: str, folder: str, *, root: int = 0, dry_run: bool = False
    ) -> SyncReport:
        """Mirror a folder under a configured sync root (see :mod:`.sync_roots`). As for
        uploads, the folder is read and parsed outside the write lock (store reads take the
        shared side); only the commit and the index publish are exclusive. The report is
        the caller's view, with no server path (:mod:`.sync_view`)."""
        with self.lock.read():
            kb = self.kb(caller, name)
            if not caller.all_kbs:
                raise Forbidden("Only keys with access to all bases may sync folders.")
            target = sync_folder(self.sync_roots, folder, root)
        names = folder_names(self.sync_roots, root, target)
        with scrubbed(names):
            plan = plan_sync(kb.context, target, reading=self.lock.read, label=names[str(target)])
            if dry_run:
                report = plan.report()
            else:
                with self.lock.write():
                    report = apply_sync(kb.context, plan)
                    self._version_meta.clear()
        with self.lock.read():
            return scrub_report(self._sync_seen(caller, kb, report, plan), names)

    def _sync_seen(
        self, caller: Caller, kb: KnowledgeBase, report: SyncReport, plan: SyncPlan
    ) -> SyncReport:
        """Rows, counts, stale answers, revision number and hash as the caller sees them."""

        def live(path: str) -> list[int]:
            try:
                return [v.version_id for v in kb.versions(path) if v.action != "deleted"]
            except DocumentNotFound:
                return []

        def readable(path: str, vid: int) -> bool:
            return self._readable_version(kb, caller, path, vid)

        planned = {w.path: w.parsed.metadata for w in plan.writes} if report.dry_run else {}
        files = visible_files(report.files, live, readable, planned, caller.principal)
        seen = replace(report, files=files)
        if report.revision is None:
            return seen
        mine = stale_answers(kb.context, only=lambda s: answer_principal(s) == caller.principal)
        docs = self.visible_documents(caller, kb)
        return replace(
            seen,
            revision=self._view(caller, kb.name).number(report.revision),
            revision_hash=multiset_hash((d.path, d.content_sha256) for d in docs),
            stale_answers=tuple(mine),
        )

    def upload(
        self,
        caller: Caller,
        name: str,
        files: list[Upload],
        prefix: str = "",
        metadata: str | Mapping[str, Any] | None = None,
    ) -> AddReport:
        """Stage uploads in a private folder (size-limited while copying) and ingest them.

        ``metadata`` (JSON or YAML text, or a mapping): fields every file of the upload gets,
        as a sidecar would give them (checked first: malformed, nothing is written).

        A path that is not a current document for the caller is written as if it were new
        (its report says ``added``), so a write never reveals that a hidden document
        exists; the hidden versions stay in the history, readable only by their readers.
        """
        if not files:
            raise UsageError("No files were uploaded.", hint="Send one or more 'files' parts.")
        given = parse_upload_fields(metadata)
        base = safe_doc_path(prefix.strip("/")) + "/" if prefix.strip("/") else ""
        rels = [base + safe_doc_path(f.name) for f in files]
        with self.lock.read():
            kb = self.kb(caller, name)
            known = {r for r in rels if self._current_for(caller, kb, r)}
        early: list[FileResult] = []
        err: CitewiseError
        with staging(self.home.settings.home) as root:
            wanted = 0
            clashes = name_conflicts(rels)
            for i, (f, rel) in enumerate(zip(files, rels, strict=True)):
                if i in clashes:  # refused alone; the rest of the batch goes on
                    err = UsageError(
                        f"{rel}: clashes with {clashes[i]} in the same upload (the same "
                        "path twice, or one a folder of the other); neither was stored.",
                        hint="Upload them under names that are not one another's folders.",
                    )
                    early.append(FileResult(rel, "failed", code=err.code, message=str(err)))
                    continue
                suffix = PurePosixPath(rel).suffix.lower()
                if suffix not in supported_suffixes():
                    err = UnsupportedFormat(
                        f"{rel}: unsupported format {suffix or '(no suffix)'} (supported: "
                        f"{', '.join(sorted(supported_suffixes()))})."
                    )
                    early.append(FileResult(rel, "failed", code=err.code, message=str(err)))
                    continue
                try:
                    self._copy(f.stream, root / rel, rel)
                except FileTooLarge as exc:
                    early.append(FileResult(rel, "failed", code=exc.code, message=str(exc)))
                    continue
                wanted += 1
            if wanted:
                # Parsing is the slow part and touches no shared state: it runs outside
                # the write lock, so searches go on meanwhile; only the store write and
                # the index publish are exclusive.
                prepared = kb.prepare([root], metadata=given)
                with self.lock.write():
                    report = kb.commit(prepared)
                    self._version_meta.clear()
                    report = self._seen_report(caller, kb, report, known)
            else:
                report = AddReport(kb=kb.name, files=(), revision=None, revision_hash=None)
        scrub = str(root)
        cleaned = tuple(
            _as_new(r, r.path not in known)
            for r in (
                replace(r, message=r.message.replace(scrub, "upload")) if r.message else r
                for r in report.files
            )
        )
        return replace(report, files=tuple(early) + cleaned)

    def _seen_report(
        self, caller: Caller, kb: KnowledgeBase, report: AddReport, known: set[str]
    ) -> AddReport:
        """The new revision's number and hash as the caller sees the KB: its number among
        the caller's visible changes and the multiset hash of the documents it may read.
        A file that matched a hidden current document byte for byte wrote nothing, but is
        reported ``added`` (see :func:`_as_new`), so the report names the head revision as
        a new write the caller cannot read would (its number does not move)."""
        revision = report.revision
        if revision is None:
            if not any(f.status == "unchanged" and f.path not in known for f in report.files):
                return report
            revision = kb.info().revision
        docs = self.visible_documents(caller, kb)
        return replace(
            report,
            revision=self._view(caller, kb.name).number(revision),
            revision_hash=multiset_hash((d.path, d.content_sha256) for d in docs),
        )

    def _current_for(self, caller: Caller, kb: KnowledgeBase, path: str) -> bool:
        """Whether ``path`` is a current document in the caller's view of its history (a
        write to any other path reads to it as a new document)."""
        try:
            return self._history(caller, kb, path).entries[-1].action != "deleted"
        except DocumentNotFound:
            return False

    def _copy(self, stream: BinaryIO, dest: Path, rel: str) -> None:
        dest.parent.mkdir(parents=True, exist_ok=True)
        limit = self.max_upload_bytes
        size = 0
        with dest.open("wb") as out:
            while chunk := stream.read(_COPY_CHUNK):
                size += len(chunk)
                if size > limit:
                    out.close()
                    dest.unlink()
                    raise FileTooLarge(
                        f"{rel}: over the {limit:,}-byte upload limit.",
                        hint="Split the file, or start the server with a larger limit.",
                    )
                out.write(chunk)

    # -- questions ------------------------------------------------------------------
    def _filters(self, caller: Caller, scope: Scope | None) -> SearchFilters:
        s = scope or Scope()
        return SearchFilters(
            s.path_prefixes, s.tags, s.metadata, caller.principal, s.current_only, s.as_of
        )

    def search(
        self,
        caller: Caller,
        name: str,
        query: str,
        *,
        scope: Scope | None = None,
        top_k: int = 10,
        mode: SearchMode = "hybrid",
        conditions: Mapping[str, str] | None = None,
        lineage: Mapping[str, str] | None = None,
        keep: bool = False,
    ) -> SearchResult:
        with self.reading(caller, name) as kb:
            result = kb.search(
                query,
                filters=self._filters(caller, scope),
                top_k=top_k,
                mode=mode,
                conditions=conditions,
                lineage=lineage,
                keep=keep,
            )
            return renumber.search_result(result, self._numbering(caller, kb))

    def recall(self, caller: Caller, name: str, recall_id: str) -> dict[str, Any]:
        """A kept recall of this caller's (another principal's is not found)."""
        with self.reading(caller, name) as kb:
            return kb.recall(recall_id, principal=caller.principal)

    def evidence(
        self,
        caller: Caller,
        name: str,
        query: str,
        *,
        scope: Scope | None = None,
        profile: Profile | None = None,
        rse: bool = True,
    ) -> EvidencePack:
        with self.reading(caller, name) as kb:
            pack = kb.evidence(
                query, filters=self._filters(caller, scope), profile=profile, rse=rse
            )
            return renumber.evidence_pack(pack, self._numbering(caller, kb))

    def ask(
        self,
        caller: Caller,
        name: str,
        question: str,
        *,
        scope: Scope | None = None,
        verify_web: bool = False,
        conditions: Mapping[str, str] | None = None,
        lineage: Mapping[str, str] | None = None,
    ) -> Answer:
        web = None
        if verify_web:  # configured by the server's environment (docs/regulations.md)
            from citewise.facade.web_waits import unlocked_waits
            from citewise.web.settings import WebSettings, open_verifier

            verifier = open_verifier(WebSettings.from_env(os.environ), self.home.settings.home)
            web = unlocked_waits(verifier, self.lock)  # the lock is not held while waiting
        with self.reading(caller, name) as kb:
            answer = kb.ask(
                question,
                filters=self._filters(caller, scope),
                web=web,
                conditions=conditions or None,
                lineage=lineage or None,
            )
            return renumber.answer(answer, self._numbering(caller, kb))

    def conversation_turn(
        self,
        caller: Caller,
        name: str,
        cid: str | None,
        question: str | None,
        *,
        scope: Scope | None = None,
        conditions: Mapping[str, str] | None = None,
        lineage: Mapping[str, str] | None = None,
    ) -> tuple[dict[str, Any], Answer | None]:
        """Start a conversation (``cid`` None), then ask ``question`` as its next turn
        when given. Returns the conversation's JSON and the answer."""
        filters = self._filters(caller, scope)
        with self.reading(caller, name) as kb:
            asker = _FilteredAsker(kb, filters)
            chat = kb.conversation(cid, asker=asker, owner=caller.principal)
            answer = None
            if question is not None:
                answer = chat.ask(question, conditions=conditions, lineage=lineage)
                answer = renumber.answer(answer, self._numbering(caller, kb))
            else:
                chat.save()
            return chat.to_json(), answer

    def _numbering(self, caller: Caller, kb: KnowledgeBase) -> renumber.Numbering:
        """The caller's version numbers of readable versions (``facade.history``), one
        history read per path."""
        seen: dict[str, SeenHistory] = {}

        def number(path: str, store_id: int) -> int:
            if path not in seen:
                seen[path] = self._history(caller, kb, path)
            mine = seen[path].number(store_id)
            return store_id if mine is None else mine  # None: not readable, never shown

        return number

    def resolve(self, caller: Caller, citation_id: str) -> ResolvedCitation:
        """The citation as the caller sees it: its own revision and version numbers."""
        with self.lock.read():
            cited = self._readable_citation(caller, citation_id)
            kb = self.home.kb(cited.kb)
            view = self._view(caller, cited.kb)
            number = self._numbering(caller, kb)(cited.path, cited.version_id)
        seen = tuple(dict.fromkeys(view.number(r) for r in cited.revisions))
        return replace(cited, revisions=seen, version_id=number)

    def _readable_citation(self, caller: Caller, citation_id: str) -> ResolvedCitation:
        """The citation with the store's numbers (for reading its version), or not found
        when the caller may not read it. Call under the read lock."""
        try:
            cited = self.home.resolve(citation_id)
        except NotFoundError:
            raise _no_citation(citation_id) from None
        if not caller.may_use(cited.kb):
            raise _no_citation(citation_id)
        kb = self.home.kb(cited.kb)
        if not self._readable_version(kb, caller, cited.path, cited.version_id):
            raise _no_citation(citation_id)
        return cited

    def citation_page(self, caller: Caller, citation_id: str, part: int = 0) -> bytes:
        """PNG of the cited PDF page with the cited boxes highlighted (authorized as
        :meth:`resolve`); a citation without a page locator is a usage error."""
        with self.lock.read():
            cited = self._readable_citation(caller, citation_id)  # the store's version number
        loc = cited.extra.get("locator") or {}
        parts = loc.get("parts") or [loc]
        if cited.extra.get("format") != "pdf" or not 0 <= part < len(parts):
            raise UsageError(
                f"Citation {citation_id!r} has no PDF page (part {part}).",
                hint="Page images exist for PDF citations; use the locator's parts index.",
            )
        with self.lock.read():
            raw, _ = self.home.store.get_version_content(cited.kb, cited.path, cited.version_id)
        from citewise.ingest.pdf_render import render_page  # pypdfium2 + Pillow on demand

        chosen = parts[part]
        return render_page(raw, cited.path, int(chosen["page"]), chosen.get("boxes") or [])

    # -- graph ----------------------------------------------------------------------
    def graph(self, caller: Caller, name: str, node: str) -> dict[str, Any]:
        with self.lock.read():
            kb = self.kb(caller, name)
            g = self.home.index(kb.name).graph_for(caller.principal)
            readable = {d.path for d in self.visible_documents(caller, kb)}
        found = [p for p in g.find(node) if p.path in readable]
        if not found:
            raise NodeNotFound(
                f"No graph node matches {node!r}.",
                hint="Pass a document path, path#anchor, a section node id or a heading title.",
            )
        p = found[0]
        edges = [("in", e, g.points[str(e.source)]) for e in g.in_edges(p.key)] + [
            ("out", e, g.points[str(e.target)]) for e in g.out_edges(p.key)
        ]
        edges = [t for t in edges if t[2].path in readable and t[1].span.path in readable]
        edges.sort(key=lambda t: (t[0], -t[1].confidence, t[1].kind, t[2].path, t[2].line_start))
        return {
            "point": point_json(p),
            "in_degree": sum(1 for d, _, _ in edges if d == "in"),
            "out_degree": sum(1 for d, _, _ in edges if d == "out"),
            "edges": [edge_json(e, d, o) for d, e, o in edges],
            "also_matched": [point_json(q) for q in found[1:]],
        }

    # -- health ---------------------------------------------------------------------
    def _visible_vectors(self, caller: Caller, name: str) -> int:
        vectors = self.home.index(name).vectors
        if vectors is None:
            return 0
        return sum(
            1
            for c in self.home.store.iter_chunks(name)
            if c.chunk_id in vectors and may_read(c.metadata, caller.principal)
        )

    def models(self, caller: Caller) -> dict[str, Any]:
        out: list[dict[str, Any]] = []
        with self.lock.read():
            names = [k.name for k in self.home.list_kbs() if caller.may_use(k.name)]
            for n in names:
                index = self.home.index(n)
                last_error = ""
                try:
                    index.sync()
                except CitewiseError as exc:
                    last_error = f"{exc.code}: {exc.message}"
                dense = index.dense
                out.append(
                    {
                        "kb": n,
                        "encoder": self.home.settings.encoder,
                        "dense_enabled": self.home.settings.dense,
                        "status": dense.status,
                        "fingerprint": dense.fingerprint,
                        "model": dense.encoder,
                        "precision": dense.precision,
                        "precision_reason": dense.precision_reason,
                        "vectors": self._visible_vectors(caller, n),
                        "last_error": last_error
                        or (dense.reason if dense.status == "unavailable" else ""),
                        "reason": dense.reason,
                        "reranker": rerank_health(index.reranker),
                        "meaning_check": meaning_status(),
                    }
                )
        return {"models": out}


@dataclass(frozen=True, slots=True)
class _FilteredAsker:
    """Asks a conversation's turns under the caller's filters (authorization first)."""

    kb: KnowledgeBase
    filters: SearchFilters

    def ask(
        self,
        question: str,
        *,
        conditions: ConditionSet | None = None,
        lineage: Mapping[str, str] | None = None,
        rewrite: Mapping[str, Any] | None = None,
        caller_lineage: Mapping[str, str] | None = None,
    ) -> Answer:
        return self.kb.ask(
            question,
            filters=self.filters,
            conditions=conditions,
            lineage=lineage,
            rewrite=rewrite,
            caller_lineage=caller_lineage,
        )
