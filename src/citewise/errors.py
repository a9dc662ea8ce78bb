"""The one exception hierarchy of citewise.

Every error carries a stable machine-readable ``code`` (used by the CLI's exit
status and, later, the HTTP error envelope) and a message that says what went
wrong *and what to do about it*.
"""

from __future__ import annotations


class CitewiseError(Exception):
    """Base class. ``code`` is stable; ``exit_code`` is what the CLI returns."""

    code: str = "CITEWISE_ERROR"
    exit_code: int = 1
    http_status: int = 500

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        self.message = message
        self.hint = hint
        super().__init__(message if hint is None else f"{message} {hint}")

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": str(self)}


class UsageError(CitewiseError):
    """The caller asked for something malformed (bad option, bad id format)."""

    code = "BAD_REQUEST"
    exit_code = 2
    http_status = 400


class NotFoundError(CitewiseError):
    code = "NOT_FOUND"
    exit_code = 3
    http_status = 404


class KBNotFound(NotFoundError):
    code = "BASE_NOT_FOUND"


class DocumentNotFound(NotFoundError):
    code = "DOC_NOT_FOUND"


class VersionNotFound(NotFoundError):
    code = "VERSION_NOT_FOUND"


class NoteNotFound(NotFoundError):
    code = "NOTE_NOT_FOUND"


class CitationNotFound(NotFoundError):
    code = "CITATION_NOT_FOUND"


class ConflictError(CitewiseError):
    """A guard refused a change; nothing was written."""

    code = "CONFLICT"
    exit_code = 4
    http_status = 409


class KBInUse(ConflictError):
    code = "BASE_IN_USE"


class KBIsDefault(ConflictError):
    code = "BASE_IS_DEFAULT"


class KBExists(ConflictError):
    code = "BASE_EXISTS"


class IngestError(CitewiseError):
    """One file could not be ingested. Batches report it and continue."""

    code = "INGEST_FAILED"
    exit_code = 5
    http_status = 422


class UnsupportedFormat(IngestError):
    code = "UNSUPPORTED_FORMAT"
    http_status = 415


class FileTooLarge(IngestError):
    code = "FILE_TOO_LARGE"
    http_status = 413


class EmptyFile(IngestError):
    code = "EMPTY_FILE"


class DecodeFailed(IngestError):
    code = "NOT_TEXT"


class FrontMatterError(IngestError):
    code = "BAD_FRONT_MATTER"


class BadMetadata(FrontMatterError):
    """A sidecar (``NAME.ext.meta.yaml``), a folder's ``.citewise.yaml`` or an upload's
    metadata fields are malformed: the files they govern are not ingested."""

    code = "BAD_METADATA"
    http_status = 400


class ParseLimitExceeded(IngestError):
    """One file went past a parse limit (nesting depth, node count or parse time).

    The message names the file, the limit and the setting (and environment variable)
    that raises it; nothing of the file is stored."""

    code = "PARSE_LIMIT"
    http_status = 422


class UnreadableFile(IngestError):
    code = "UNREADABLE_FILE"


class BrokenFile(IngestError):
    """The file is damaged or not of the format its name says (e.g. a truncated PDF)."""

    code = "BROKEN_FILE"


class Encrypted(IngestError):
    """An encrypted document that does not open without a password."""

    code = "ENCRYPTED"


class NeedsOCR(IngestError):
    """No text layer at all (scanned pages) and no OCR engine to read them."""

    code = "NEEDS_OCR"


class DependencyMissing(IngestError):
    """The file's format needs a program that is not installed (legacy .doc/.xls/.ppt
    are read through LibreOffice); the message names the package to install."""

    code = "DEPENDENCY_MISSING"


class OutsideRoot(IngestError):
    code = "OUTSIDE_ROOT"


class NotRegularFile(IngestError):
    """A name in a folder that is a FIFO, socket, device or folder, not a file: skipped,
    never opened for reading (a sync must not block on a pipe)."""

    code = "NOT_REGULAR_FILE"


class ChangedDuringSync(ConflictError):
    """The stored document changed while a sync was reading the folder; nothing of the
    file was written and the next sync takes it."""

    code = "CHANGED_DURING_SYNC"


class CorruptContent(CitewiseError):
    """Stored text no longer matches its recorded hash; it is never returned silently."""

    code = "CORRUPT_CONTENT"
    exit_code = 6
    http_status = 500


class StoreError(CitewiseError):
    code = "STORE_ERROR"
    exit_code = 7
    http_status = 500


# -- interfaces (HTTP API, MCP), LLM routes, XML ingest -----------------------------
class NodeNotFound(NotFoundError):
    code = "NODE_NOT_FOUND"


class Unauthorized(CitewiseError):
    code = "UNAUTHORIZED"
    exit_code = 2
    http_status = 401


class Forbidden(CitewiseError):
    code = "FORBIDDEN"
    exit_code = 2
    http_status = 403


class RouteNotActive(ConflictError):
    code = "LLM_ROUTE_NOT_ACTIVE"


class RouteNotFound(CitewiseError):
    code = "LLM_ROUTE_NOT_FOUND"
    exit_code = 3
    http_status = 404


class SecretsError(CitewiseError):
    code = "LLM_SECRETS"
    exit_code = 2
    http_status = 500


class XmlRejected(IngestError):
    """The XML declares a DTD or entities; it is refused before any expansion."""


class LockMisuse(CitewiseError):
    """A thread holding the shared (read) side of a lock asked for the exclusive side."""

    code = "LOCK_MISUSE"
    exit_code = 1
    http_status = 500


# -- request guards of the HTTP server (server/guards.py) ---------------------------
class HostNotAllowed(UsageError):
    """The ``Host`` header names no address this server answers to (DNS rebinding)."""

    code = "HOST_NOT_ALLOWED"


class KeyInURL(UsageError):
    """An API key was sent in the query string; keys go in a header."""

    code = "KEY_IN_URL"


class LoopbackOnly(Forbidden):
    """No API keys are configured and the client is not on this machine."""

    code = "LOOPBACK_ONLY"


class CrossOrigin(Forbidden):
    """A state-changing request from another site's page (CSRF)."""

    code = "CROSS_ORIGIN"


class RequestTooLarge(UsageError):
    """A JSON request body is over its cap (uploads have their own, larger limit)."""

    code = "REQUEST_TOO_LARGE"
    http_status = 413


# -- the second source: web search and the SSRF-safe fetcher (citewise/web/) -----------
class WebError(CitewiseError):
    """Base of the web verification errors; a citation's state records them (degraded)."""

    code = "WEB_ERROR"
    exit_code = 8
    http_status = 502


class UrlRefused(WebError):
    """A URL the fetcher will not request (scheme, credentials, malformed host)."""

    code = "URL_REFUSED"
    http_status = 400


class AddressBlocked(UrlRefused):
    """The host is, or resolves to, an address the fetcher never connects to."""

    code = "ADDRESS_BLOCKED"


class FetchFailed(WebError):
    """The request was made but the page could not be read within the caps."""

    code = "FETCH_FAILED"


class SnapshotWithheld(WebError):
    """A web snapshot taken down (its address) or expired by retention (issue 38): its
    text is not served; its url, sha256 and fetch time remain."""

    code = "SNAPSHOT_WITHHELD"
    exit_code = 3
    http_status = 410

    def __init__(self, what: str, kind: str, reason: str) -> None:
        self.what, self.kind, self.reason = what, kind, reason  # a snapshot hash or a URL
        super().__init__(
            f"withheld: web snapshot {what} is {kind}: {reason}.",
            hint="Its text is withheld; its address, hash and fetch time remain.",
        )


class FetchTimeout(FetchFailed):
    code = "FETCH_TIMEOUT"


class FetchTooLarge(FetchFailed):
    code = "FETCH_TOO_LARGE"


class ContentTypeRefused(FetchFailed):
    code = "CONTENT_TYPE_REFUSED"


class TooManyRedirects(FetchFailed):
    code = "TOO_MANY_REDIRECTS"


class SearchUnavailable(WebError):
    """The configured search engine did not answer with usable JSON."""

    code = "SEARCH_UNAVAILABLE"


class WebNotConfigured(UsageError):
    """Web verification was asked for but no search engine is configured."""

    code = "WEB_NOT_CONFIGURED"


# -- the rerank stage (recall/rerank.py) ---------------------------------------------
class RerankFailed(CitewiseError):
    """A configured reranker could not score the pool (HTTP error, malformed reply, model
    failure). Recall catches it: the fused order stands and the rerank route says why."""

    code = "RERANK_FAILED"
    http_status = 502


class RerankTimedOut(RerankFailed):
    """The reranker did not finish within its time budget; the fused order stands."""

    code = "RERANK_TIMED_OUT"


# -- pinned revisions, backup and restore (issue 38) ----------------------------------------
class RevisionNotFound(NotFoundError):
    """A pinned revision that the knowledge base does not have (or not yet)."""

    code = "REVISION_NOT_FOUND"


class BackupInvalid(CitewiseError):
    """A backup archive that is malformed or does not match its manifest; nothing restored."""

    code = "BACKUP_INVALID"
    exit_code = 6
    http_status = 422


class RestoreTargetNotEmpty(ConflictError):
    """A restore into a home or store that already holds data; nothing was written."""

    code = "RESTORE_TARGET_NOT_EMPTY"


# -- governance: the per-KB policy and the review queue (citewise/governance/) ----------
class BadPolicy(UsageError):
    """A knowledge base's ``policy.yaml`` is malformed: the message names the key."""

    code = "BAD_POLICY"


class CandidateNotFound(NotFoundError):
    """No pending candidate or quarantined file has that id (or path)."""

    code = "CANDIDATE_NOT_FOUND"


class Withheld(CitewiseError):
    """A citation whose version is taken down or expired (issue 38): the answer names the
    document and the reason, never its text."""

    code = "WITHHELD"
    exit_code = 3
    http_status = 410

    def __init__(self, kb: str, path: str, version_id: int, kind: str, reason: str) -> None:
        self.kb, self.path, self.version_id = kb, path, version_id
        self.kind, self.reason = kind, reason
        super().__init__(
            f"withheld: {kind}: {path} (version {version_id}): {reason}.",
            hint="Its text is withheld from every read; its history and hashes remain.",
        )


class ConflictNotFound(NotFoundError):
    """No recorded conflict has that id (governance/conflicts.py)."""

    code = "CONFLICT_NOT_FOUND"
