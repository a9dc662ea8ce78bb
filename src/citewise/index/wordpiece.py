"""A dependency-free BERT (uncased) WordPiece tokenizer.

It reads the ``vocab.txt`` shipped with the model package and reproduces the
behaviour of the standard uncased BERT pipeline: text cleaning, spacing around
CJK ideographs, lower-casing with accent stripping, punctuation splitting, then
greedy longest-match-first WordPiece with the ``##`` continuation prefix.
The agreement with the reference tokenizer is checked by ``bench/dense_scifact.py``
(``--check-tokenizer``) on the whole SciFact corpus.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

_MAX_CHARS_PER_WORD = 100


def _is_whitespace(ch: str) -> bool:
    if ch in (" ", "\t", "\n", "\r"):
        return True
    return unicodedata.category(ch) == "Zs"


def _is_control(ch: str) -> bool:
    if ch in ("\t", "\n", "\r"):
        return False
    return unicodedata.category(ch).startswith("C")


def _is_punctuation(ch: str) -> bool:
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(cp: int) -> bool:
    return (
        0x4E00 <= cp <= 0x9FFF
        or 0x3400 <= cp <= 0x4DBF
        or 0x20000 <= cp <= 0x2A6DF
        or 0x2A700 <= cp <= 0x2B73F
        or 0x2B740 <= cp <= 0x2B81F
        or 0x2B820 <= cp <= 0x2CEAF
        or 0xF900 <= cp <= 0xFAFF
        or 0x2F800 <= cp <= 0x2FA1F
    )


class WordPieceTokenizer:
    """Uncased BERT tokenizer over a ``vocab.txt`` (one token per line, id = line number)."""

    def __init__(self, vocab_path: Path) -> None:
        tokens = vocab_path.read_text(encoding="utf-8").split("\n")
        if tokens and tokens[-1] == "":
            tokens.pop()
        self.vocab: dict[str, int] = {tok: i for i, tok in enumerate(tokens)}
        for special in ("[PAD]", "[UNK]", "[CLS]", "[SEP]"):
            if special not in self.vocab:
                raise ValueError(f"{vocab_path}: special token {special} missing")
        self.pad_id = self.vocab["[PAD]"]
        self.unk_id = self.vocab["[UNK]"]
        self.cls_id = self.vocab["[CLS]"]
        self.sep_id = self.vocab["[SEP]"]
        self._word_cache: dict[str, list[int]] = {}

    def _normalize(self, text: str) -> str:
        out: list[str] = []
        for ch in text:
            cp = ord(ch)
            if cp == 0 or cp == 0xFFFD or _is_control(ch):
                continue
            if _is_whitespace(ch):
                out.append(" ")
            elif _is_cjk(cp):
                out.append(f" {ch} ")
            else:
                out.append(ch)
        lowered = "".join(out).lower()
        decomposed = unicodedata.normalize("NFD", lowered)
        return "".join(c for c in decomposed if unicodedata.category(c) != "Mn")

    def _split_punct(self, word: str) -> list[str]:
        pieces: list[str] = []
        current: list[str] = []
        for ch in word:
            if _is_punctuation(ch):
                if current:
                    pieces.append("".join(current))
                    current = []
                pieces.append(ch)
            else:
                current.append(ch)
        if current:
            pieces.append("".join(current))
        return pieces

    def _wordpiece(self, word: str) -> list[int]:
        cached = self._word_cache.get(word)
        if cached is not None:
            return cached
        ids: list[int] = []
        if len(word) > _MAX_CHARS_PER_WORD:
            ids = [self.unk_id]
        else:
            start = 0
            while start < len(word):
                end = len(word)
                found = -1
                while start < end:
                    piece = word[start:end] if start == 0 else "##" + word[start:end]
                    tok_id = self.vocab.get(piece)
                    if tok_id is not None:
                        found = tok_id
                        break
                    end -= 1
                if found < 0:
                    ids = [self.unk_id]
                    break
                ids.append(found)
                start = end
        if len(self._word_cache) < 500_000:
            self._word_cache[word] = ids
        return ids

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text`` without the ``[CLS]``/``[SEP]`` specials and without truncation."""
        ids: list[int] = []
        for word in self._normalize(text).split():
            for piece in self._split_punct(word):
                ids.extend(self._wordpiece(piece))
        return ids
