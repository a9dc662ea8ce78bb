"""Settings shared across stages. Plain dataclasses; loaded from defaults for now."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_HOME = ".citewise"
DEFAULT_KB = "default"


@dataclass(frozen=True, slots=True)
class ChunkConfig:
    """Chunk sizing in words. 120-220 words keeps a chunk inside a 256-token encoder window."""

    target_words: int = 160
    max_words: int = 220


@dataclass(frozen=True, slots=True)
class IngestConfig:
    max_file_bytes: int = 50 * 1024 * 1024
    chunks: ChunkConfig = field(default_factory=ChunkConfig)


@dataclass(frozen=True, slots=True)
class Settings:
    home: Path
    ingest: IngestConfig = field(default_factory=IngestConfig)
    #: The dense route; ``CITEWISE_DENSE=off`` turns it off (lexical and identifier remain).
    dense: bool = True
    #: Dense encoder: ``auto`` (each KB chooses once by content: mostly-CJK text gets
    #: ``use``, else ``minilm``; recorded in the KB's index directory), ``minilm`` (bundled,
    #: English) or ``use`` (multilingual) for every KB; ``CITEWISE_ENCODER`` sets it.
    #: ``CITEWISE_ENCODER_INT8=off`` keeps MiniLM in fp32 (see index/minilm.py).
    encoder: str = "auto"

    @classmethod
    def resolve(cls, home: str | Path | None = None) -> Settings:
        """``home`` argument, else ``$CITEWISE_HOME``, else ``./.citewise``."""
        chosen = home or os.environ.get("CITEWISE_HOME") or DEFAULT_HOME
        dense = os.environ.get("CITEWISE_DENSE", "on").lower() not in ("off", "0", "false", "no")
        encoder = os.environ.get("CITEWISE_ENCODER", "auto").strip().lower() or "auto"
        return cls(home=Path(chosen).expanduser().resolve(), dense=dense, encoder=encoder)
