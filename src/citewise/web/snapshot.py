"""Web snapshots: a fetched page kept whole, in its own scope, and read into clauses.

A :class:`WebSnapshot` holds the URL asked for, the final URL, fetch time, status, content
type, the sha256 of the body and the extracted text; :func:`clause_candidates` reads the
page with the ingest parsers (same clause-path notation as the knowledge base) into clause
path -> text. Snapshots live under ``<home>/web/snapshots/`` (:class:`SnapshotStore`),
content-addressed by the body's sha256: apart from every knowledge base, never indexed,
never searched, and enough to replay a verification offline. A search snippet is never
evidence: it counts only when the fetched text contains it (:func:`snippet_confirmed`).
A snapshot whose address is taken down, or that expired by retention, is withheld: the
store refuses its text with SNAPSHOT_WITHHELD (``web/withheld.py``; issue 38).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from citewise.config import IngestConfig
from citewise.errors import (
    CitewiseError,
    CorruptContent,
    NotFoundError,
    SnapshotWithheld,
    UsageError,
)
from citewise.ingest.parse import parse_document
from citewise.web.compare import contains
from citewise.web.fetcher import FetchedPage
from citewise.web.withheld import address_key, load_marks, mark_of, save_marks

_SHA = re.compile(r"[0-9a-f]{64}")
_SUFFIX = {"text/plain": ".txt", "text/xml": ".xml", "application/xml": ".xml"}


@dataclass(frozen=True, slots=True)
class WebSnapshot:
    url: str
    final_url: str
    fetched_at: str
    status: int
    content_type: str
    sha256: str
    title: str
    text: str
    clauses: dict[str, str] = field(default_factory=dict)
    scope: str = "web"

    def to_json(self) -> dict[str, object]:
        return asdict(self)

    @property
    def ref(self) -> dict[str, str]:
        """What a citation keeps of its web evidence."""
        return {"url": self.url, "final_url": self.final_url, "sha256": self.sha256,
                "fetched_at": self.fetched_at}  # fmt: skip


def snapshot_of(page: FetchedPage) -> WebSnapshot:
    """Parse a fetched page into a snapshot (text and clause candidates)."""
    sha = hashlib.sha256(page.body).hexdigest()
    name = "page" + _SUFFIX.get(page.content_type, ".html")
    try:
        doc = parse_document(page.body, name=name, kb="web", doc_path=name, config=IngestConfig())
    except CitewiseError:
        return WebSnapshot(page.url, page.final_url, page.fetched_at, page.status,
                           page.content_type, sha, "", "")  # fmt: skip
    blocks = [n for n in doc.nodes if n.kind not in ("document", "section")]
    text = "\n".join(n.search_text for n in blocks) or doc.nodes[0].search_text
    return WebSnapshot(
        page.url,
        page.final_url,
        page.fetched_at,
        page.status,
        page.content_type,
        sha,
        doc.title or "",
        text,
        clause_candidates(
            [(n.clause_path, n.search_text) for n in doc.nodes if n.kind != "document"]
        ),
    )


def clause_candidates(nodes: list[tuple[str | None, str]]) -> dict[str, str]:
    """Clause path -> its text: the blocks with that path and its sub-paragraphs, in order.
    A heading or section node counts only for its own path when no block has it."""
    out: dict[str, list[str]] = {}
    for path, text in nodes:
        if not path:
            continue
        parts = [path]
        while "(" in parts[-1]:
            parts.append(parts[-1][: parts[-1].rindex("(")])
        for p in parts:
            out.setdefault(p, []).append(text)
    return {p: _dedupe(texts) for p, texts in out.items()}


def _dedupe(texts: list[str]) -> str:
    """Drop a text that another one (a section holding its paragraphs) already contains."""
    kept = [t for t in texts if not any(t != o and t in o for o in texts)]
    return "\n".join(dict.fromkeys(kept))


def snippet_confirmed(snippet: str, snapshot: WebSnapshot) -> bool:
    """A search snippet counts only when the fetched text contains it (normalised)."""
    return bool(snippet.strip()) and contains(snapshot.text, snippet.strip(" .…"))


class SnapshotStore:
    """Snapshots on disk, content-addressed: ``<sha>.json`` (the snapshot) and
    ``<sha>.body`` (the bytes fetched), written atomically."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _paths(self, sha: str) -> tuple[Path, Path]:
        if _SHA.fullmatch(sha) is None:  # names come from records, which may be tampered
            raise UsageError(f"{sha[:80]!r} is not a snapshot hash (64 hex digits).")
        folder = self.root / sha[:2]
        return folder / f"{sha}.json", folder / f"{sha}.body"

    def put(self, snapshot: WebSnapshot, body: bytes) -> None:
        """Keep a fetched page. The same bytes fetched again after their retention expired
        are a fresh fetch: the metadata takes the new fetch time and the expiry is lifted
        (retention counts from the latest fetch; a takedown of the address stays)."""
        meta, raw = self._paths(snapshot.sha256)
        meta.parent.mkdir(parents=True, exist_ok=True)
        renewed = self._renew_expired(snapshot.sha256)
        for path, data in ((raw, body), (meta, json.dumps(snapshot.to_json()).encode())):
            if path.exists() and not (renewed and path == meta):
                continue
            tmp = path.with_suffix(path.suffix + f".{os.getpid()}.tmp")
            tmp.write_bytes(data)
            tmp.replace(path)

    def body(self, sha: str) -> bytes:
        _, raw = self._paths(sha)
        if not raw.exists():
            raise NotFoundError(
                f"No web snapshot {sha} under {self.root}.",
                hint="Snapshots are kept with the home; restore the web/ folder to replay.",
            )
        self.check_not_withheld(sha)
        data = raw.read_bytes()
        if hashlib.sha256(data).hexdigest() != sha:
            raise CorruptContent(f"The web snapshot {sha} no longer matches its hash.")
        return data

    def get(self, sha: str) -> WebSnapshot:
        self.body(sha)  # exists, intact and not withheld
        return self._meta(sha)

    def _meta(self, sha: str) -> WebSnapshot:
        meta, _ = self._paths(sha)
        return WebSnapshot(**json.loads(meta.read_text(encoding="utf-8")))

    # -- withholding (issue 38; web/withheld.py, governance/web_withhold.py) -------------
    def check_not_withheld(self, sha: str) -> None:
        """SNAPSHOT_WITHHELD when the snapshot's address is taken down or it expired."""
        marks = load_marks(self.root)
        meta, _ = self._paths(sha)
        url = final = ""
        if meta.exists():
            snap = self._meta(sha)
            url, final = snap.url, snap.final_url
        mark = mark_of(marks, sha, url, final)
        if mark is not None:
            raise SnapshotWithheld(sha, str(mark.get("kind")), str(mark.get("reason")))

    def address_mark(self, url: str) -> dict[str, object] | None:
        """The takedown mark of ``url``'s address, or None."""
        return load_marks(self.root)["addresses"].get(address_key(url))

    def refs(self) -> list[dict[str, str]]:
        """The reference (url, final_url, sha256, fetched_at) of every kept snapshot."""
        out = []
        for meta in sorted(self.root.glob("??/*.json")):
            if _SHA.fullmatch(meta.stem):
                out.append(self._meta(meta.stem).ref)
        return out

    def _renew_expired(self, sha: str) -> bool:
        marks = load_marks(self.root)
        if marks["snapshots"].pop(sha, None) is None:
            return False
        save_marks(self.root, marks)
        return True
