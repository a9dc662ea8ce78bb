"""Which dense encoder a knowledge base uses when the setting is ``auto``.

MiniLM is English-only (CMRC 2018 zh vector nDCG@10 0.23 against 0.83 for the multilingual
USE; docs/benchmarks.md), so a KB whose text is mostly CJK gets the multilingual encoder.
The choice is made once, from the KB's content at its first sync with chunks, and recorded
in the KB's index directory (``encoder.json``): later additions do not flip it, so vectors
are never mixed. ``CITEWISE_ENCODER=minilm`` or ``use`` overrides it; deleting the file
makes the next sync choose again.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from citewise.analysis.tokenize import is_cjk_char

CHOICE_FILE = "encoder.json"
#: Share of non-space characters that are CJK above which the multilingual encoder is chosen.
CJK_MAJORITY = 0.5
#: Characters read to decide (a sample is enough; the decision is about the bulk).
SAMPLE_CHARS = 200_000


@dataclass(frozen=True, slots=True)
class EncoderChoice:
    encoder: str  # "minilm" | "use"
    cjk_share: float
    chunks: int


def cjk_share(texts: Iterable[str], limit: int = SAMPLE_CHARS) -> float:
    """Share of CJK characters among the first ``limit`` non-space characters."""
    seen = cjk = 0
    for text in texts:
        for ch in text:
            if ch.isspace():
                continue
            seen += 1
            cjk += is_cjk_char(ch)
            if seen >= limit:
                return cjk / seen
    return cjk / seen if seen else 0.0


def choose_encoder(texts: list[str]) -> EncoderChoice:
    """``use`` for mostly-CJK content, else ``minilm``. Texts are read in a fixed order
    spread over the whole list, so the same content gives the same choice."""
    step = max(1, len(texts) // 400)
    share = cjk_share(texts[::step])
    return EncoderChoice("use" if share > CJK_MAJORITY else "minilm", round(share, 4), len(texts))


def read_choice(directory: Path) -> EncoderChoice | None:
    try:
        raw = json.loads((directory / CHOICE_FILE).read_text("utf-8"))
        if raw.get("encoder") not in ("minilm", "use"):
            return None
        return EncoderChoice(str(raw["encoder"]), float(raw["cjk_share"]), int(raw["chunks"]))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def write_choice(directory: Path, choice: EncoderChoice) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    tmp = directory / f".{CHOICE_FILE}.{os.getpid()}"
    tmp.write_text(json.dumps(asdict(choice)), "utf-8")
    os.replace(tmp, directory / CHOICE_FILE)
