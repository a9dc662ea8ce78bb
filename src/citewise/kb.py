"""The library facade: a home directory of knowledge bases, and one KB's operations.

>>> home = Home.open("./.citewise")          # doctest: +SKIP
>>> kb = home.kb("default")                  # doctest: +SKIP
>>> report = kb.add(["docs/"])               # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import secrets
import shutil
import signal
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citewise.analysis.conditions import (
    ConditionSet,
    condition_order,
    conditions_in,
    from_pairs,
)
from citewise.analysis.language import language_of, parse_lang
from citewise.answer.models import Answer
from citewise.answer.pipeline import ask
from citewise.answer.ranking import version_dense_inputs
from citewise.answer.wording import worded
from citewise.audit.lineage import check_lineage
from citewise.audit.record import reader_of, record_answer, record_evidence, record_search
from citewise.config import DEFAULT_KB, Settings
from citewise.context import StageContext
from citewise.conversation import Conversation
from citewise.core.records import AddReport, FileResult, FileStatus, Node, ParsedDocument
from citewise.core.rights import withholding
from citewise.core.search import SearchFilters, SearchMode, SearchResult
from citewise.core.stored import (
    DocumentInfo,
    IngestOutcome,
    KBInfo,
    ResolvedCitation,
    RevisionInfo,
    VersionInfo,
)
from citewise.errors import CitewiseError, FileTooLarge, UnreadableFile, UsageError, Withheld
from citewise.evidence.assemble import assemble
from citewise.evidence.models import EvidencePack, Profile
from citewise.governance import conflicts as conflict_queue
from citewise.governance.conflicts import Recorded, load_rules
from citewise.governance.conflicts import record as record_conflicts
from citewise.governance.gate import Gate, gated_sync, open_gate
from citewise.governance.policy import load_policy
from citewise.governance.redaction import redacted_paths
from citewise.governance.review import Reviewer
from citewise.governance.verification import route as route_verification
from citewise.governance.web_withhold import expire_snapshots
from citewise.governance.withhold import RetentionSweeps
from citewise.index.manager import LOADERS, KBIndex
from citewise.index.pinned_revision import PinnedIndexes
from citewise.ingest.parse import parse_document
from citewise.ingest.safe_open import read_inside
from citewise.ingest.walker import SourceFile, WalkProblem, walk
from citewise.notes.hook import after_commit
from citewise.notes.models import Note
from citewise.notes.read import NoteReader
from citewise.notes.rebuild import RebuildReport, rebuild_notes
from citewise.recall.rerank import load_reranker
from citewise.recall.search import RecallSettings, search
from citewise.store.factory import DB_NAME, open_store
from citewise.store.protocol import Store
from citewise.sufficiency.resolutions import pack_with_conflicts
from citewise.sync.folder import StaleAnswer, SyncReport, source_of
from citewise.sync.mirror import SyncProgress, missing_from, run_sync, stale_answers

if TYPE_CHECKING:
    from citewise.web.verify import WebVerifier

#: Called after each file with (result, files_done, files_total).
ProgressFn = Callable[[FileResult, int, int], None]

#: Test hook: ``CITEWISE_CRASH_AT=<point>`` SIGKILLs the process at that point (crash tests).
CRASH_ENV = "CITEWISE_CRASH_AT"


def crash_point(name: str) -> None:
    """Die at once (SIGKILL, no clean-up) when ``$CITEWISE_CRASH_AT`` names this point."""
    if os.environ.get(CRASH_ENV) == name:
        os.kill(os.getpid(), signal.SIGKILL)


class Home:
    """A home directory holding named knowledge bases in one store."""

    def __init__(self, settings: Settings, store: Store) -> None:
        self.settings = settings
        self.store = store
        self._indexes: dict[str, KBIndex] = {}
        self._indexes_lock = threading.Lock()
        #: Indexes of earlier revisions for pinned reads (built on use, bounded; issue 38).
        self.pinned = PinnedIndexes()
        #: Retention expiry, swept when a KB is opened (governance/withhold.py; issue 38).
        self.retention = RetentionSweeps(also=(expire_snapshots,))  # and web snapshots

    def index(self, kb: str) -> KBIndex:
        """The derived search indexes of ``kb`` (kept in step with the store on use).

        One :class:`KBIndex` per KB even when threads ask at once (two would both write
        the same index directory)."""
        got = self._indexes.get(kb)
        if got is not None:
            return got
        with self._indexes_lock:
            return self._new_index(kb)

    def _new_index(self, kb: str) -> KBIndex:
        if kb not in self._indexes:
            enc = self.settings.encoder
            loader = LOADERS.get("minilm" if enc == "auto" else enc)
            if loader is None:
                raise UsageError(
                    f"Unknown encoder {enc!r}.",
                    hint=f"Choose one of: auto, {', '.join(LOADERS)}.",
                )
            # One index directory per forced encoder ("@" cannot occur in a KB name); auto
            # and minilm keep the plain name so existing indexes stay valid.
            name = kb if enc in ("auto", "minilm") else f"{kb}@{enc}"
            directory = self.settings.home / "index" / name
            self._indexes[kb] = KBIndex(
                self.store,
                kb,
                directory,
                dense=self.settings.dense,
                loader=loader,
                multilingual=LOADERS["use"] if enc == "auto" else None,
            )
            index = self._indexes[kb]
            index.rerank_config = self.settings.rerank
            index.reranker = load_reranker(self.settings.rerank)
            index.unit_texts = version_dense_inputs
        return self._indexes[kb]

    @classmethod
    def open(
        cls, home: str | Path | None = None, *, store: Store | str | Path | None = None
    ) -> Home:
        """The home at ``home`` (see :meth:`Settings.resolve`). ``store`` is an open store or a
        location for :func:`~citewise.store.factory.open_store`; by default the home's own
        ``citewise.db``. The home closes its store."""
        settings = Settings.resolve(home)
        settings.home.mkdir(parents=True, exist_ok=True)
        if store is None:
            store = settings.home / DB_NAME
        return cls(settings, open_store(store) if isinstance(store, str | Path) else store)

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Home:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def kb(self, name: str = DEFAULT_KB) -> KnowledgeBase:
        self.store.get_kb(name)  # raises KBNotFound with a hint
        self.retention.run(self.store, self.settings.home, name)
        return KnowledgeBase(self, name)

    def context(
        self, kb: str, settings: Settings | None = None, revision: int | None = None
    ) -> StageContext:
        """The stage context of ``kb``. With ``settings``: on a home of its own over the same
        store, so a fresh index under those settings (replay re-runs an answer with the
        settings it was given); with ``revision``, pinned to that revision."""
        home = self if settings is None else Home(settings, self.store)
        return home.kb(kb)._at(revision)

    def create_kb(self, name: str, description: str = "") -> KBInfo:
        return self.store.create_kb(name, description)

    def list_kbs(self) -> list[KBInfo]:
        return self.store.list_kbs()

    def delete_kb(self, name: str, *, force: bool = False) -> None:
        self.store.delete_kb(name, force=force)
        self.pinned.forget(name)
        self.retention.forget(name)
        # Its policy and held changes go too: a new base of that name starts open and empty.
        shutil.rmtree(self.settings.home / "kbs" / name, ignore_errors=True)

    def resolve(self, citation_id: str) -> ResolvedCitation:
        """The citation's exact text, or WITHHELD (its path and reason, never its text)
        when its version is taken down or expired."""
        cited = self.store.resolve(citation_id)
        self.kb(cited.kb)  # the day's retention sweep first
        meta = self.store.version_metadata(cited.kb, cited.path).get(cited.version_id, {})
        held = withholding(meta)
        if held is not None:
            raise Withheld(cited.kb, cited.path, cited.version_id, held.kind, held.reason)
        return cited

    def verify(self) -> list[str]:
        """Integrity problems in the whole home (empty when healthy)."""
        return self.store.integrity_check()


@dataclass(frozen=True, slots=True)
class PreparedFile:
    """A file read and parsed for :meth:`KnowledgeBase.commit`, or why it cannot be."""

    rel_path: str
    failure: FileResult | None
    raw: bytes | None = None
    parsed: ParsedDocument | None = None
    source: str = ""


class KnowledgeBase:
    """One named knowledge base inside a :class:`Home`."""

    def __init__(self, home: Home, name: str) -> None:
        self.home = home
        self.name = name
        #: What the stages this facade drives may see (they never see the facade).
        self.context = StageContext(
            name,
            home.store,
            home.settings,
            functools.partial(home.index, name),
            conflict_rules=functools.partial(load_rules, home.settings.home, name),
            redaction=functools.partial(redacted_paths, home.settings.home, name),
        )

    @property
    def store(self) -> Store:
        return self.home.store

    def _at(self, revision: int | None) -> StageContext:
        """The stage context pinned to ``revision`` (the documents as they were then, read
        through a revision view and its own index; issue 38), or the head's for None.
        :class:`~citewise.errors.RevisionNotFound` names the valid range."""
        if revision is None:
            return self.context
        index = self.home.pinned.get(self.home.index(self.name), revision)
        return StageContext(
            self.name,
            index.store,
            self.home.settings,
            lambda: index,
            revision=revision,
            conflict_rules=self.context.conflict_rules,
            redaction=self.context.redaction,
        )

    # -- ingest -------------------------------------------------------------
    def add(
        self,
        paths: Iterable[str | Path],
        progress: ProgressFn | None = None,
        *,
        index: bool = True,
    ) -> AddReport:
        """Ingest files and folders, one revision per batch; files are stored in groups
        (group commit: each file whole or absent, see :meth:`Store.group`).

        ``index=False`` stores only: this process's indexes are not brought up to date
        now (a bulk loader into a shared store need not hold them; any process, this one
        included, catches up on its next search, by the store's generation).

        Files are read and parsed one at a time (memory stays that of one group). Never
        deletes: documents that came from an added folder and are gone from it are listed
        in ``missing`` (:meth:`sync` removes them)."""
        paths = list(paths)
        found = self._walk(paths)
        report = self._store_batch(
            (self._prepare_one(item) for item in found), len(found), progress, index=index
        )
        seen = {f.rel_path for f in found}
        folders = [Path(source_of(Path(p))) for p in paths if Path(p).is_dir()]
        missing = sorted({m for root in folders for m in missing_from(self.context, root, seen)})
        return replace(report, missing=tuple(missing))

    def sync(
        self,
        folder: str | Path,
        *,
        dry_run: bool = False,
        progress: SyncProgress | None = None,
    ) -> SyncReport:
        """Make the current revision mirror ``folder``: new files added, changed files
        versioned, documents that came from the folder and are gone from it deleted (their
        history stays and old citations still resolve), all in one revision. Documents
        added from anywhere else are never deleted. ``dry_run`` writes nothing."""
        if not dry_run and load_policy(self.home.settings.home, self.name).gated:
            return gated_sync(self.context, folder, progress=progress)  # policy.yaml holds
        return run_sync(self.context, folder, dry_run=dry_run, progress=progress)

    def stale_answers(self) -> list[StaleAnswer]:
        """Saved answers whose citations now point to changed or deleted text."""
        return stale_answers(self.context)

    def prepare(
        self, paths: Iterable[str | Path], *, metadata: Mapping[str, Any] | None = None
    ) -> list[PreparedFile]:
        """Read and parse every file (no store access): the slow, CPU-bound half of
        :meth:`add`, which a server runs outside its write lock. :meth:`commit` stores it.

        ``metadata`` (validated fields with their provenance, e.g. an upload's) is given to
        every file in place of what sidecar and folder files would give it."""
        return [self._prepare_one(item, metadata) for item in self._walk(paths)]

    def commit(
        self,
        prepared: Sequence[PreparedFile],
        progress: ProgressFn | None = None,
        *,
        submitter: str | None = None,
        origin: str = "upload",
    ) -> AddReport:
        """Store prepared files as one batch (one revision) and publish the indexes.
        ``submitter`` and ``origin``: what a held candidate records (policy.yaml)."""
        return self._store_batch(
            iter(prepared), len(prepared), progress, submitter=submitter, origin=origin
        )

    def _walk(self, paths: Iterable[str | Path]) -> list[SourceFile | WalkProblem]:
        found: list[SourceFile | WalkProblem] = []
        for p in paths:
            found.extend(walk(Path(p)))
        return found

    def _store_batch(
        self,
        prepared: Iterator[PreparedFile],
        total: int,
        progress: ProgressFn | None,
        *,
        index: bool = True,
        submitter: str | None = None,
        origin: str = "add",
    ) -> AddReport:
        results: list[FileResult] = []
        cfg = self.home.settings.ingest
        # The publication gate (policy.yaml): None when nothing is held back.
        gate = open_gate(self.context, origin=origin, submitter=submitter)
        self.store.begin_batch(self.name)
        try:
            # Group commit: files are read and parsed outside the transaction, then a
            # group of them is stored in one (each file whole or absent; see Store.group).
            for group in file_groups(prepared, cfg.group_files, cfg.group_bytes):
                stored: list[FileResult] = []
                # A group of one is the file's own transaction, as without group commit.
                with self.store.group() if len(group) > 1 else contextlib.nullcontext():
                    for item in group:
                        stored.append(self._store_one(item, gate))
                        crash_point(f"stored:{len(results) + len(stored)}")
                for result in stored:
                    results.append(result)
                    if progress is not None:
                        progress(result, len(results), total)
        except BaseException:
            if gate is not None:
                gate.abort()
            raise
        finally:
            revision = self.store.end_batch(self.name)
        if gate is not None:
            gate.close()  # files the candidate and writes its ledger events
        if revision is not None and index:
            self.home.index(self.name).sync()  # index and embed the new revision now
            after_commit(self.context)  # topic notes whose sources changed (notes/hook.py)
        return AddReport(
            kb=self.name,
            files=tuple(results),
            revision=revision.revision if revision else None,
            revision_hash=revision.hash if revision else None,
        )

    def _prepare_one(
        self, item: SourceFile | WalkProblem, metadata: Mapping[str, Any] | None = None
    ) -> PreparedFile:
        """One walked file read and parsed, or the reason it was not."""
        if isinstance(item, WalkProblem):
            status: FileStatus = "failed" if item.fatal else "skipped"
            return PreparedFile(
                item.rel_path,
                FileResult(item.rel_path, status, code=item.code, message=item.message),
            )
        try:
            raw = self._read(item)
            parsed = parse_document(
                raw,
                name=item.rel_path,
                kb=self.name,
                doc_path=item.rel_path,
                config=self.home.settings.ingest,
                metadata=item.metadata if metadata is None else metadata,
            )
        except CitewiseError as exc:
            failed = FileResult(item.rel_path, "failed", code=exc.code, message=str(exc))
            return PreparedFile(item.rel_path, failed)
        return PreparedFile(item.rel_path, None, raw, parsed, source_of(item.abs_path))

    def _ingest_one(self, item: SourceFile | WalkProblem) -> FileResult:
        return self._store_one(self._prepare_one(item))

    def _store_one(self, item: PreparedFile, gate: Gate | None = None) -> FileResult:
        if item.failure is not None or item.parsed is None or item.raw is None:
            assert item.failure is not None
            return item.failure
        if gate is not None:
            held = gate.admit(item.rel_path, item.raw, item.parsed, item.source)
            if held is not None:  # held for review or in quarantine: nothing stored now
                return FileResult(item.rel_path, "skipped", code=held.code, message=held.message)
        try:
            outcome = self.store.ingest_document(
                self.name, item.rel_path, item.raw, item.parsed, source=item.source
            )
        except CitewiseError as exc:
            return FileResult(item.rel_path, "failed", code=exc.code, message=str(exc))
        result = _file_result(outcome)
        suspect = item.parsed.metadata.get("text_suspect")
        if suspect:  # added, but no extractor read some pages cleanly: say so (pdf_recheck)
            pages = ", ".join(str(s["page"]) for s in suspect)
            result = dataclasses.replace(
                result,
                code="TEXT_SUSPECT",
                message=f"{item.rel_path}: the text of pages {pages} looks mis-mapped "
                f"({suspect[0]['reason']}); search and answers over those pages may miss "
                "words. Run OCR on the file (e.g. ocrmypdf --force-ocr) and add the result.",
            )
        scanned = item.parsed.metadata.get("needs_ocr")
        if scanned:  # added, but some pages were not read: say so, never silently empty
            pages = ", ".join(str(p) for p in scanned)
            result = dataclasses.replace(
                result,
                code="NEEDS_OCR",
                message=f"{item.rel_path}: pages {pages} have no text layer and were not "
                "read (no OCR engine, or OCR found no text); install tesseract-ocr or run OCR "
                "on the file and add it again to cite them.",
            )
        return result

    def _read(self, item: SourceFile) -> bytes:
        limit = self.home.settings.ingest.max_file_bytes
        try:
            size = item.abs_path.stat().st_size
            if size > limit:
                raise FileTooLarge(
                    f"{item.rel_path}: {size:,} bytes is over the {limit:,}-byte limit.",
                    hint="Split the file, or raise ingest.max_file_bytes.",
                )
            # From a checked descriptor: a regular file inside the added folder, whatever
            # was swapped in since the walk (ingest/safe_open.py); a FIFO never blocks.
            return read_inside(item.root, item.abs_path, item.rel_path, limit)
        except OSError as exc:
            raise UnreadableFile(
                f"{item.rel_path}: cannot read ({exc.strerror or exc}).",
                hint="Check the file's permissions and that it still exists.",
            ) from exc

    # -- recall ---------------------------------------------------------------
    def conversation(
        self, cid: str | None = None, *, asker: Any = None, owner: str | None = None
    ) -> Conversation:
        """A new conversation on this knowledge base, or the stored one ``cid``: its
        ``ask`` rewrites each follow-up into a standalone question (docs/conversations.md).
        ``asker`` (default: this knowledge base) asks the turns, e.g. under a reader's
        filters; ``owner`` is the principal the conversation belongs to."""
        home = self.home.settings.home
        return Conversation.open(asker or self, self.name, home, cid, owner=owner)

    def search(
        self,
        query: str,
        *,
        filters: SearchFilters | None = None,
        top_k: int = 10,
        mode: SearchMode = "hybrid",
        settings: RecallSettings | None = None,
        conditions: Mapping[str, str] | None = None,
        lineage: Mapping[str, str] | None = None,
        keep: bool = False,
        revision: int | None = None,
    ) -> SearchResult:
        """Ranked chunks with exact citations; scope and access are applied before ranking.

        ``conditions`` (``{"platform": "linux"}``, with those the query states) put hits
        that state a matching condition first and leave out those that contradict it;
        ``lineage`` ids are recorded with the search; ``keep`` gives the result a
        ``recall_id`` under which its hits are recorded (read back with :meth:`recall`).
        """
        ids = check_lineage(lineage)
        if not query.strip():
            raise UsageError("The query is empty.", hint="Pass the question to search for.")
        if top_k < 1:
            raise UsageError(f"top_k must be at least 1, not {top_k}.")
        ctx = self._at(revision)
        result = search(
            ctx.index,
            query,
            filters=filters,
            top_k=top_k if conditions is None else min(3 * top_k, 1000),  # some left out
            mode=mode,
            settings=settings,
        )
        stated = ConditionSet()
        if conditions is not None:  # opt-in: a plain search ranks as it always did
            stated = conditions_in(query).over(from_pairs(conditions))
        if stated.conditions:
            texts = [" / ".join(h.heading_path) + "\n" + h.excerpt for h in result.hits]
            hits = [result.hits[i] for i in condition_order(texts, stated)]
            ranked = tuple(replace(h, rank=n) for n, h in enumerate(hits[:top_k], 1))
            result = replace(result, hits=ranked)
        rid = "r_" + secrets.token_hex(12) if keep else None
        if rid:
            result = replace(result, recall_id=rid)
        record_search(  # audit ledger
            ctx,
            query,
            result,
            filters,
            recall_id=rid,
            conditions=stated.to_json(),
            lineage=ids,
        )
        return result

    def recall(self, recall_id: str, *, principal: str | None = None) -> dict[str, Any]:
        """A kept search (``search(..., keep=True)``, MCP ``recall_knowledge``) as recorded:
        query, mode, conditions, hits with their excerpt hashes and scores, lineage. Only
        the principal that ran it may read it back (another's is not found)."""
        who = reader_of(SearchFilters(principal=principal))
        for entry in reversed(self.store.ledger.query_ledger(types=("search",), kb=self.name)):
            if entry.payload.get("recall_id") == recall_id and entry.principal == who:
                return entry.payload | {"lineage": entry.lineage, "principal": entry.principal}
        raise UsageError(
            f"No recall {recall_id[:40]!r} in knowledge base {self.name!r}.",
            hint="Use the recall_id a recall_knowledge result returned.",
        )

    def evidence(
        self,
        query: str,
        *,
        filters: SearchFilters | None = None,
        profile: Profile | None = None,
        rse: bool = True,
        revision: int | None = None,
    ) -> EvidencePack:
        """The hard-budgeted context pack for ``query``, with a stable replay id (from the
        documents as they were at ``revision`` when given)."""
        if not query.strip():
            raise UsageError(
                "The query is empty.", hint="Pass the question to gather evidence for."
            )
        ctx = self._at(revision)
        pack = assemble(ctx, query, filters=filters, profile=profile, rse=rse)
        pack = pack_with_conflicts(ctx, query, pack, filters)
        record_evidence(ctx, query, pack, filters)  # audit ledger
        return pack

    def write_summary(
        self, regulation: str, text: str, *, edition: str | None = None, author: str = "system"
    ) -> None:
        """Store a summary of a regulation (edition) apart from its text: it may help
        retrieval, and is never quoted or cited (recall/summaries.py)."""
        from citewise.recall.summaries import Summary, add, summaries_path

        add(
            summaries_path(self.home.index(self.name).dir),
            Summary(regulation, edition, text, author),
        )

    def ask(
        self,
        question: str,
        *,
        filters: SearchFilters | None = None,
        llm: str | None = None,
        web: WebVerifier | None = None,
        conditions: Mapping[str, str] | ConditionSet | None = None,
        lineage: Mapping[str, str] | None = None,
        rewrite: Mapping[str, Any] | None = None,
        caller_lineage: Mapping[str, str] | None = None,
        revision: int | None = None,
        lang: str | None = None,
    ) -> Answer:
        """One answer whose every sentence carries an exact citation, or an honest outcome.

        ``llm`` names an activated LLM route (docs/llm.md); None keeps the extractive path.
        ``web`` (opt-in; docs/regulations.md) checks each citation against a second source.
        ``conditions`` (``{"platform": "linux", "team": "blue"}``) join those the question
        states (which win); ``lineage`` ids (conversation, turn, task, parent) are recorded
        in the answer's ledger entry; ``rewrite`` (a conversation's follow-up rewrite) is
        recorded in its trace and ledger entry, as are ``caller_lineage``, the ids a caller
        sent that the server's own lineage ids overrode. ``lang`` (``en``, ``zh``; default:
        the question's own language) is the language of the words citewise writes itself:
        statuses, refusals, notes (answer/wording.py); the ledger saves the answer as shown.
        """
        if not question.strip():
            raise UsageError("The question is empty.", hint="Pass the question to answer.")
        reader = parse_lang(lang) if lang is not None else language_of(question)
        given = conditions if isinstance(conditions, ConditionSet) else None
        if conditions is not None and given is None:
            given = from_pairs(conditions)  # type: ignore[arg-type]
        ids = check_lineage(lineage)
        sent = check_lineage(caller_lineage)
        ctx = self._at(revision)
        if llm is None:
            answer = ask(
                ctx,
                question,
                filters=filters,
                conditions=given,
                lineage=ids,
                rewrite=rewrite,
                caller_lineage=sent,
            )
        else:
            # Opened before any work, so an unknown or never-activated route is refused.
            from citewise.llm.generate import open_route

            writer = open_route(self.home.settings.home, llm)
            answer = ask(
                ctx,
                question,
                filters=filters,
                llm=writer,
                conditions=given,
                lineage=ids,
                rewrite=rewrite,
                caller_lineage=sent,
            )
        web, routed = route_verification(self.home.settings.home, self.name, answer, web)
        if web is not None:
            from citewise.web.attach import record_verification, verify_answer
            from citewise.web.refs import MetadataEditions

            answer, run = verify_answer(answer, web, MetadataEditions(self.store, self.name))
        if routed is not None:  # the policy's verification routing (issue 38)
            answer = replace(answer, trace=answer.trace | {"verification_route": routed})
        if revision is not None:  # the trace says which revision answered
            trace = answer.trace.copy()
            trace["pinned_revision"] = revision
            answer = replace(answer, trace=trace)
        # worded after the replay id is fixed; saved as shown (replay words it the same way)
        answer = worded(answer, reader)
        answer_id = record_answer(ctx, answer, filters)  # saved whole, with its event
        record_conflicts(self.home.settings.home, self.name, answer.trace.get("conflicts", []))
        if web is not None:
            record_verification(self.store.ledger, self.name, answer_id, run)
        return answer

    # -- conflict review (issue 38; governance/conflicts.py) ----------------
    def conflicts(self) -> list[Recorded]:
        """Every conflict an answer met in this base, oldest first, with its decision."""
        return conflict_queue.listing(self.home.settings.home, self.name)

    def resolve_conflict(
        self,
        conflict_id: str,
        governs: str,
        *,
        until: date | None = None,
        note: str = "",
        principal: str | None = None,
        admin: bool = True,
    ) -> Recorded:
        """Record which side of ``conflict_id`` governs (``a``, ``b`` or a side's path),
        until ``until`` (inclusive) when given; a ``conflict_resolved`` ledger event names
        the resolver. Later answers meeting the pair cite the governing side only."""
        who = Reviewer(principal, admin=admin)
        return conflict_queue.decide(
            self.context, conflict_id, governs, who, until=until, note=note
        )

    # -- history ------------------------------------------------------------
    def versions(self, path: str) -> list[VersionInfo]:
        return self.store.list_versions(self.name, path)

    def revert(
        self, path: str, version_id: int, *, parsed: ParsedDocument | None = None
    ) -> IngestOutcome:
        """Restore ``version_id`` by re-adding its exact bytes; the revert is itself a version.

        ``parsed`` is that version's bytes already parsed (a server parses them before it
        takes its write lock; a version's bytes never change)."""
        self._require_readable(path, version_id)  # a withheld version is not republished
        raw, source = self.store.get_version_content(self.name, path, version_id)
        if parsed is None:
            parsed = self.parse_version(path, version_id, raw)
        self.store.begin_batch(self.name)
        try:
            return self.store.ingest_document(
                self.name, path, raw, parsed, source=source, restored_from=version_id
            )
        finally:
            self.store.end_batch(self.name)

    def parse_version(self, path: str, version_id: int, raw: bytes) -> ParsedDocument:
        """A stored version's bytes parsed again with the metadata stored with it (its
        sidecar or upload fields are not in the bytes): a revert restores both."""
        stored = self.store.version_metadata(self.name, path).get(version_id, {})
        config = self.home.settings.ingest
        return parse_document(
            raw, name=path, kb=self.name, doc_path=path, config=config, metadata=stored
        )

    def delete(self, path: str) -> IngestOutcome:
        """Remove a document from the current revision; its history stays resolvable.

        The store commit is the one source of truth: the lexical, dense, graph and scope
        caches are derived from it and republished together as one new state, so a crash
        after the commit leaves nothing to come back (the next sync drops the chunks).
        The user's source file is never touched."""
        self.store.begin_batch(self.name)
        try:
            outcome = self.store.delete_document(self.name, path)
        finally:
            self.store.end_batch(self.name)
        crash_point("after_delete_commit")
        # Committed: if this refresh fails, every later read re-syncs (and reports errors).
        with contextlib.suppress(CitewiseError, OSError):
            self.home.index(self.name).sync()
            after_commit(self.context)
        return outcome

    # -- topic notes (notes/) -------------------------------------------------
    def build_notes(self) -> RebuildReport:
        """Compile the topic notes and store the ones whose lines changed; from then on
        every add, sync and delete keeps them current (``CITEWISE_NOTES``, notes/hook.py)."""
        return rebuild_notes(self.context)

    def notes(self, *, principal: str | None = None) -> list[Note]:
        """The notes ``principal`` may see (only lines of documents it may read), by title."""
        found = NoteReader(self.context, principal).notes().values()
        return sorted(found, key=lambda n: (n.topic.title.casefold(), n.topic.id))

    def note(self, topic: str, *, principal: str | None = None) -> Note:
        """One note by topic id or title; NoteNotFound when ``principal`` sees none."""
        return NoteReader(self.context, principal).find(topic)

    # -- reads --------------------------------------------------------------
    def info(self) -> KBInfo:
        return self.store.get_kb(self.name)

    def documents(
        self, *, prefix: str = "", limit: int | None = None, offset: int = 0
    ) -> list[DocumentInfo]:
        return self.store.list_documents(self.name, prefix=prefix, limit=limit, offset=offset)

    def document(self, path: str) -> DocumentInfo:
        return self.store.get_document(self.name, path)

    def nodes(self, path: str, version_id: int | None = None) -> list[Node]:
        """The node tree of a document version (default: the current head)."""
        vid = self.document(path).version_id if version_id is None else version_id
        self._require_readable(path, vid)
        return self.store.nodes_of_version(self.name, path, vid)

    def _require_readable(self, path: str, version_id: int) -> None:
        """WITHHELD (path and reason) when that version is taken down or expired."""
        meta = self.store.version_metadata(self.name, path).get(version_id, {})
        held = withholding(meta)
        if held is not None:
            raise Withheld(self.name, path, version_id, held.kind, held.reason)

    def revisions(self) -> list[RevisionInfo]:
        return self.store.list_revisions(self.name)

    def stats(self) -> dict[str, int]:
        return self.store.stats(self.name)

    def resolve(self, citation_id: str) -> ResolvedCitation:
        return self.home.resolve(citation_id)


_STATUS: dict[str, FileStatus] = {
    "added": "added",
    "changed": "changed",
    "unchanged": "unchanged",
    "reverted": "reverted",
    "deleted": "changed",
}


def file_groups(
    items: Iterator[PreparedFile], files: int, max_bytes: int
) -> Iterator[list[PreparedFile]]:
    """``items`` in groups of up to ``files`` files, a group closing early once its raw
    bytes reach ``max_bytes`` (a large file is a group of its own)."""
    group: list[PreparedFile] = []
    size = 0
    for item in items:
        group.append(item)
        size += len(item.raw or b"")
        if len(group) >= max(1, files) or size >= max_bytes:
            yield group
            group, size = [], 0
    if group:
        yield group


def _file_result(outcome: IngestOutcome) -> FileResult:
    status = _STATUS[outcome.action]
    return FileResult(outcome.path, status, nodes=outcome.node_count, chunks=outcome.chunk_count)
