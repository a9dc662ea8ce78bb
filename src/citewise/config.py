"""Settings shared across stages. Plain dataclasses; loaded from defaults for now."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from citewise.errors import UsageError
from citewise.switches import check_switches, env_switch

DEFAULT_HOME = ".citewise"
DEFAULT_KB = "default"


@dataclass(frozen=True, slots=True)
class ChunkConfig:
    """Chunk sizing in words. 120-220 words keeps a chunk inside a 256-token encoder window."""

    target_words: int = 160
    max_words: int = 220


@dataclass(frozen=True, slots=True)
class ParseLimits:
    """Per-file parse bounds; a file beyond one fails alone with PARSE_LIMIT.

    ``max_depth``: element / block nesting (HTML open blocks and lists, XML elements,
    Markdown block level). ``max_nodes``: nodes of one document. ``max_seconds``: wall
    time of one file's parse. ``max_text_ratio``: the nodes' texts together (nested nodes
    repeat their children's text) may be at most this many times the file. Each can be
    set with the environment variable named in :data:`LIMIT_ENV` (the error message names
    it too). ``ocr_seconds_per_page``: wall time Tesseract may spend on one scanned PDF
    page; OCR time is counted against this per-page allowance instead of ``max_seconds``,
    so a scanned document of many pages ingests while each page stays bounded.

    ZIP packages (DOCX, XLSX, PPTX, EPUB, ODT; ``ingest/zipbudget.py``): at most
    ``max_zip_members`` members, each expanding to at most ``max_zip_member_bytes`` and
    all together to ``max_zip_total_bytes`` (checked from the central directory and again
    while decompressing), and no member over 1 MiB expanding more than ``max_zip_ratio``
    times its compressed size. ``max_sheet_cells``: cells of one XLSX or ODS sheet, merged and
    hyperlinked ranges (ODS: repeated cells) counted by their area, or of one DOCX
    table, spans counted.
    ``max_spine_items``: EPUB spine entries.
    ``max_parse_memory_mb``: the address space of the child process that parses a package
    expanding past ``ingest/package_guard.py``'s in-process size.

    PDF pages, rendering and OCR: ``max_pages`` caps a PDF's page count (checked before
    any per-page work); ``max_render_pixels`` caps the pixels of one rendered page (the
    web page image and OCR render at a scale lowered to fit it); ``ocr_seconds_per_file``
    caps the OCR time of one file (each page's allowance is the smaller of
    ``ocr_seconds_per_page`` and what is left of it), so a file's parse takes at most
    ``max_seconds`` plus ``ocr_seconds_per_file``.
    """

    max_depth: int = 100
    max_nodes: int = 100_000
    max_seconds: float = 60.0
    max_text_ratio: int = 32
    ocr_seconds_per_page: float = 120.0
    max_zip_members: int = 10_000
    max_zip_member_bytes: int = 128 * 1024 * 1024
    max_zip_total_bytes: int = 256 * 1024 * 1024
    max_zip_ratio: int = 200
    max_sheet_cells: int = 1_000_000
    max_spine_items: int = 10_000
    max_parse_memory_mb: int = 2048

    # PDF pages, rendering and OCR
    max_pages: int = 10_000
    max_render_pixels: int = 25_000_000
    ocr_seconds_per_file: float = 900.0


#: Setting -> environment variable that raises it.
LIMIT_ENV = {
    "max_depth": "CITEWISE_PARSE_MAX_DEPTH",
    "max_nodes": "CITEWISE_PARSE_MAX_NODES",
    "max_seconds": "CITEWISE_PARSE_MAX_SECONDS",
    "max_text_ratio": "CITEWISE_PARSE_MAX_TEXT_RATIO",
    "ocr_seconds_per_page": "CITEWISE_PARSE_OCR_SECONDS_PER_PAGE",
    "max_zip_members": "CITEWISE_PARSE_MAX_ZIP_MEMBERS",
    "max_zip_member_bytes": "CITEWISE_PARSE_MAX_ZIP_MEMBER_BYTES",
    "max_zip_total_bytes": "CITEWISE_PARSE_MAX_ZIP_TOTAL_BYTES",
    "max_zip_ratio": "CITEWISE_PARSE_MAX_ZIP_RATIO",
    "max_sheet_cells": "CITEWISE_PARSE_MAX_SHEET_CELLS",
    "max_spine_items": "CITEWISE_PARSE_MAX_SPINE_ITEMS",
    "max_parse_memory_mb": "CITEWISE_PARSE_MAX_MEMORY_MB",
    # PDF pages, rendering and OCR
    "max_pages": "CITEWISE_PARSE_MAX_PAGES",
    "max_render_pixels": "CITEWISE_PARSE_MAX_RENDER_PIXELS",
    "ocr_seconds_per_file": "CITEWISE_PARSE_OCR_SECONDS_PER_FILE",
}


_FLOAT_LIMITS = ("max_seconds", "ocr_seconds_per_page", "ocr_seconds_per_file")


def limits_from_env(env: Mapping[str, str]) -> ParseLimits:
    """:class:`ParseLimits` with any ``CITEWISE_PARSE_*`` overrides applied (bad values are
    a usage error naming the variable)."""
    values: dict[str, float] = {}
    for key, var in LIMIT_ENV.items():
        raw = env.get(var, "").strip()
        if not raw:
            continue
        try:
            value = float(raw) if key in _FLOAT_LIMITS else int(raw)
        except ValueError:
            value = 0
        if value <= 0:
            raise UsageError(f"{var}={raw!r} is not a positive number.", hint=f"Unset {var}.")
        values[key] = value
    return replace(ParseLimits(), **values)  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class IngestConfig:
    max_file_bytes: int = 50 * 1024 * 1024
    #: Group commit: files stored per transaction (one fsync each), and the raw bytes
    #: after which a group closes early (parsed files wait in memory until it commits).
    #: Chosen by measurement (bench/ingest.py, docs/benchmarks.md).
    group_files: int = 32
    group_bytes: int = 16 * 1024 * 1024
    chunks: ChunkConfig = field(default_factory=ChunkConfig)
    limits: ParseLimits = field(default_factory=ParseLimits)


@dataclass(frozen=True, slots=True)
class RerankConfig:
    """The rerank stage (recall/rerank.py); off unless ``CITEWISE_RERANK`` names a backend.

    ``backend``: ``off``, ``onnx`` (a cross-encoder exported to ONNX: ``location`` is a
    directory with ``model.onnx`` and a WordPiece ``vocab.txt``) or ``http`` (``location``
    is the URL of a ``/rerank`` endpoint of a self-hosted inference server). ``top_n``
    candidates of the fused pool are rescored; ones under ``threshold`` (when set) are
    dropped; past ``budget_ms`` the fused order stands and the route says so.
    """

    backend: str = "off"
    location: str = ""
    model: str = ""  # the ``model`` field an HTTP server may want ("" leaves it out)
    #: The request's list field: ``documents`` (Cohere, Jina, vLLM, Infinity) or ``texts``
    #: (text-embeddings-inference); ``CITEWISE_RERANK_FIELD``.
    field: str = "documents"
    top_n: int = 50
    threshold: float | None = None
    budget_ms: float = 2000.0
    #: Environment variable holding the HTTP endpoint's bearer key (never logged or traced).
    key_env: str = "CITEWISE_RERANK_API_KEY"


#: ``CITEWISE_RERANK`` values: ``off`` (default), ``onnx:<model dir>``, or an http(s) URL.
RERANK_ENV = "CITEWISE_RERANK"


def rerank_from_env(env: Mapping[str, str]) -> RerankConfig:
    """:class:`RerankConfig` from ``CITEWISE_RERANK`` and ``CITEWISE_RERANK_{TOP_N,
    THRESHOLD,BUDGET_MS,MODEL}`` (a bad value is a usage error naming the variable)."""
    raw = env.get(RERANK_ENV, "").strip()
    if raw.lower() in ("", "off", "0", "false", "no", "none"):
        backend, location = "off", ""
    elif raw.lower().startswith(("http://", "https://")):
        backend, location = "http", raw
    elif raw.lower().startswith("onnx:") and raw[5:].strip():
        backend, location = "onnx", raw[5:].strip()
    else:
        raise UsageError(
            f"{RERANK_ENV}={raw!r} names no reranker.",
            hint=f"Set {RERANK_ENV} to off, onnx:<model directory> or an http(s) /rerank URL.",
        )

    def number(var: str, default: float, *, positive: bool = True) -> float:
        text = env.get(var, "").strip()
        if not text:
            return default
        try:
            value = float(text)
        except ValueError:
            value = float("nan")
        if value != value or (positive and value <= 0):
            raise UsageError(f"{var}={text!r} is not a valid number.", hint=f"Unset {var}.")
        return value

    threshold_raw = env.get("CITEWISE_RERANK_THRESHOLD", "").strip()
    list_field = env.get("CITEWISE_RERANK_FIELD", "documents").strip().lower() or "documents"
    if list_field not in ("documents", "texts"):
        raise UsageError(
            f"CITEWISE_RERANK_FIELD={list_field!r} is neither documents nor texts.",
            hint="Use texts for text-embeddings-inference, documents for the others.",
        )
    return RerankConfig(
        backend=backend,
        location=location,
        model=env.get("CITEWISE_RERANK_MODEL", "").strip(),
        field=list_field,
        top_n=int(number("CITEWISE_RERANK_TOP_N", 50)),
        threshold=(
            number("CITEWISE_RERANK_THRESHOLD", 0.0, positive=False) if threshold_raw else None
        ),
        budget_ms=number("CITEWISE_RERANK_BUDGET_MS", 2000.0),
    )


@dataclass(frozen=True, slots=True)
class Settings:
    home: Path
    ingest: IngestConfig = field(default_factory=IngestConfig)
    #: The dense route; ``CITEWISE_DENSE=off`` turns it off (lexical and identifier remain).
    dense: bool = True
    #: Dense encoder: ``auto`` (each KB chooses once by content: mostly-CJK text gets
    #: ``use``, else ``minilm``; recorded in the KB's index directory), ``minilm`` (bundled,
    #: English) or ``use`` (multilingual) for every KB; ``CITEWISE_ENCODER`` sets it.
    #: MiniLM runs in int8 where the CPU supports it; ``CITEWISE_ENCODER_INT8=off`` keeps fp32
    #: (see index/minilm.py).
    encoder: str = "auto"
    #: The rerank stage; off by default (the one cross-encoder shipping offline lowered SciFact
    #: nDCG@10; docs/benchmarks.md, "Rerank stage").
    rerank: RerankConfig = field(default_factory=RerankConfig)

    @classmethod
    def resolve(cls, home: str | Path | None = None) -> Settings:
        """``home`` argument, else ``$CITEWISE_HOME``, else ``./.citewise``."""
        chosen = home or os.environ.get("CITEWISE_HOME") or DEFAULT_HOME
        check_switches()
        dense = env_switch("CITEWISE_DENSE", True)
        encoder = os.environ.get("CITEWISE_ENCODER", "auto").strip().lower() or "auto"
        return cls(
            home=Path(chosen).expanduser().resolve(),
            ingest=IngestConfig(limits=limits_from_env(os.environ)),
            dense=dense,
            encoder=encoder,
            rerank=rerank_from_env(os.environ),
        )
