"""The facade's writes: knowledge bases, uploads (parsed outside the write lock),
reverts and deletes, each reported as the caller sees the result (a write never
reveals a hidden document)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Any, BinaryIO

from citewise.core.records import AddReport, FileResult
from citewise.core.stored import (
    IngestOutcome,
    KBInfo,
)
from citewise.errors import (
    CitewiseError,
    DocumentNotFound,
    FileTooLarge,
    Forbidden,
    UnsupportedFormat,
    UsageError,
    VersionNotFound,
)
from citewise.facade.caller import Caller
from citewise.facade.reads import Reads
from citewise.facade.roles import require
from citewise.facade.uploads import name_conflicts, safe_doc_path, staging
from citewise.ingest.formats import supported_suffixes
from citewise.ingest.meta_yaml import parse_upload_fields
from citewise.kb import KnowledgeBase
from citewise.store.adhash import multiset_hash

_COPY_CHUNK = 64 * 1024


@dataclass(frozen=True, slots=True)
class Upload:
    """One uploaded file: its document path and a readable binary stream."""

    name: str
    stream: BinaryIO


def _as_new(result: FileResult, new_to_caller: bool) -> FileResult:
    """A written file's result as the caller sees it: ``added`` when it could read no
    earlier version of the path (as for a path that never existed)."""
    if new_to_caller and result.status in ("changed", "unchanged", "reverted"):
        return replace(result, status="added")
    return result


class Writes(Reads):
    """Writes: KBs, uploads, reverts and deletes, reported in the caller's numbering."""

    def create_kb(self, caller: Caller, name: str, description: str) -> KBInfo:
        require(caller, "admin", "creating a knowledge base")
        if not caller.all_kbs:
            raise Forbidden("This key may not create knowledge bases.")
        with self.lock.write():
            return self.home.create_kb(name, description)

    def update_kb(self, caller: Caller, name: str, description: str) -> dict[str, Any]:
        if not caller.all_kbs or not caller.has_role("admin"):
            self.kb(caller, name)  # 404 before 403 for bases it cannot see
            require(caller, "admin", "changing a knowledge base")
            self.kb(caller, name)  # 404 before 403 for bases it cannot see
            raise Forbidden("This key may not change knowledge bases.")
        with self.lock.write():
            self.kb(caller, name)
            self.home.store.update_kb(name, description)
        return self.kb_info(caller, name)

    def delete_kb(self, caller: Caller, name: str, *, force: bool) -> None:
        with self.lock.write():
            self.kb(caller, name)
            require(caller, "admin", "deleting a knowledge base")
            if not caller.all_kbs:
                raise Forbidden("This key may not delete knowledge bases.")
            self.home.delete_kb(name, force=force)
            self.home._indexes.pop(name, None)

    def revert(self, caller: Caller, name: str, path: str, version_id: int) -> IngestOutcome:
        """Restore the caller's version ``version_id`` (its own numbering)."""
        with self.lock.read():
            kb, stored = self._revertible(caller, name, path, version_id)
            require(caller, "editor", "reverting a document")
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
            require(caller, "editor", "deleting a document")
            return self._seen(caller, kb, kb.delete(path))

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
        self.kb(caller, name)  # 404 before 403 for bases it cannot see
        require(caller, "editor", "adding documents")
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
                    report = kb.commit(prepared, submitter=caller.principal)
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
