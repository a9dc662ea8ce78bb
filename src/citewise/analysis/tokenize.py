"""Tokenization for the lexical (BM25) route.

Everything here is a pure function of its input: the same text always gives the
same tokens; the only state kept between calls is a cache of results (PyStemmer's word
cache, and :func:`tokenize`'s memo of short texts).

A text becomes a bag of *index tokens* made of three kinds:

* **Words** — runs of letters/digits (not CJK), NFKC-normalised and lowercased,
  Lucene English stopwords removed, then stemmed with the Snowball English stemmer
  (PyStemmer ``"english"``).  Words shorter than two characters are dropped (the
  literal tokens below keep the meaningful short pieces such as ``(b)``).
* **Literals** — technical strings kept whole *in addition to* their word parts,
  so that a query for ``1.2.0`` does not also match ``1.0.2``:

  ==============================  ==========================
  text                            literal token
  ==============================  ==========================
  ``1.2.0`` / ``v1.2.0``          ``1.2.0`` (+ ``v1.2.0``)
  ``/api/v2/sync``                ``/api/v2/sync``
  ``host:8443``                   ``host:8443`` (``8443`` is a word)
  ``ISO 13485:2016``              ``iso 13485:2016`` + ``13485:2016``
  ``§ 1002.4(b)``                 ``§1002.4(b)`` + ``1002.4(b)`` + ``1002.4``
  ``HTTP 503``                    ``http 503``
  ``snake_case_id``, ``x-req-id``  ``snake_case_id``, ``x-req-id``
  ==============================  ==========================

* **CJK** — runs of Han / kana / Hangul characters become every single character
  plus every adjacent bigram (``排查指标`` → 排 查 指 标 排查 查指 指标).  No
  dictionary is needed, and bigrams carry most of the precision.

:func:`key_terms` and :func:`term_coverage` support the sufficiency check: they
count only evidence-bearing terms, so single CJK characters (which match almost
any Chinese text) do not count when the run they come from also yields bigrams.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import Stemmer

from citewise.analysis.zh_edition import without_edition
from citewise.analysis.zh_words import content_words as content_words_zh
from citewise.analysis.zh_words import word_bigrams

__all__ = [
    "LUCENE_ENGLISH_STOPWORDS",
    "Coverage",
    "cjk_tokens",
    "content_tokens",
    "dotted_tails",
    "is_cjk_char",
    "key_terms",
    "literal_tokens",
    "normalize",
    "stems",
    "term_coverage",
    "tokenize",
    "word_tokens",
]

#: Lucene's ``EnglishAnalyzer`` default stop set (33 words).
LUCENE_ENGLISH_STOPWORDS: frozenset[str] = frozenset(
    (  # noqa: SIM905 - one readable line beats 33
        "a an and are as at be but by for if in into is it no not of on or such "
        "that the their then there these they this to was will with"
    ).split()
)

# Han (incl. extension A and compatibility), Hiragana, Katakana, Hangul syllables.
_CJK_CLASS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_CJK_RUN = re.compile(f"[{_CJK_CLASS}]+")
_HAN_RUN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_WORD = re.compile(f"[^\\W_{_CJK_CLASS}]+")
_ASCII_WORD = re.compile("[a-z0-9]+")

# Literal patterns.  All but _ACRONYM_NUM run on the lowercased text.
_SUFFIX = r"(?:\([a-z0-9]{1,4}\))*"  # legal sub-paragraph suffixes: (b)(1)
_DOTTED = re.compile(r"(?<![\d.])\d+(?:\.\d+)+")
_DOTTED_SUFFIXED = re.compile(r"(?<![\d.])\d+(?:\.\d+)*(?:\([a-z0-9]{1,4}\))+")
_VERSION = re.compile(r"(?<![\w.])v\d+(?:\.\d+)+")
_COMPOUND = re.compile(r"(?<![\w/])[a-z0-9]+(?:[._:\-][a-z0-9]+)+" + _SUFFIX)
_PATH = re.compile(r"(?<![\w.])/[a-z0-9_.\-]*[a-z0-9](?:/[a-z0-9_.\-]*[a-z0-9])*/?")
_SECTION = re.compile(r"§+\s*(\d+(?:[.\-][a-z0-9]+)*" + _SUFFIX + ")")
_ACRONYM_NUM = re.compile(
    r"([A-Z][A-Z0-9]*[A-Z]) +(\d+(?:[.:\-/]\d+)*" + _SUFFIX + r")(?!\.?[A-Za-z0-9])"
)

_LOWER_PATTERNS = (_DOTTED, _DOTTED_SUFFIXED, _VERSION, _COMPOUND, _PATH)
#: What every match of :data:`_LOWER_PATTERNS` holds inside one whitespace-delimited
#: token: a digit before ``.`` or ``(`` (dotted numbers, versions, ``1002.4(b)``), a
#: separator between two ASCII letters or digits (compounds), or a ``/`` (paths).
_LITERAL_HINT = re.compile(r"\d[.(]|[a-z0-9][._:\-][a-z0-9]|/")
_STEMMER_LANG = "english"


@lru_cache(maxsize=1)
def _stemmer() -> Stemmer.Stemmer:
    return Stemmer.Stemmer(_STEMMER_LANG)


def is_cjk_char(ch: str) -> bool:
    """True if ``ch`` is a single Han, kana or Hangul character."""
    return len(ch) == 1 and _CJK_RUN.fullmatch(ch) is not None


def has_cjk(text: str) -> bool:
    """True if any character of ``text`` is Han, kana or Hangul (``is_cjk_char``)."""
    return not text.isascii() and _CJK_RUN.search(text) is not None


def normalize(text: str) -> str:
    """NFKC-normalise and lowercase (full-width ASCII becomes ASCII)."""
    return text.lower() if text.isascii() else unicodedata.normalize("NFKC", text).lower()


def word_tokens(text: str, *, stem: bool = True, stopwords: bool = True) -> list[str]:
    """Lowercased, stopword-filtered, stemmed non-CJK words of ``text`` (len ≥ 2)."""
    # The same words either way: on lowercase ASCII text, _WORD matches [a-z0-9] runs.
    ascii_ = text.isascii()
    found = _ASCII_WORD.findall(text.lower()) if ascii_ else _WORD.findall(normalize(text))
    if stopwords:
        words = [w for w in found if len(w) >= 2 and w not in LUCENE_ENGLISH_STOPWORDS]
    else:
        words = [w for w in found if len(w) >= 2]
    return stems(words) if stem else words


#: Words whose stems :func:`stems` keeps (a corpus's vocabulary is mostly far smaller);
#: past it the memo starts again.
STEM_MEMO = 500_000
_STEMS: dict[str, str] = {}


def stems(words: list[str]) -> list[str]:
    """The Snowball English stem of each word: memoised per process (tokenising a large
    corpus meets the same words again and again; a dictionary hit costs far less than the
    stemmer's own call)."""
    memo = _STEMS
    known = list(map(memo.get, words))  # each read is atomic: safe beside other threads
    if None not in known:
        return known  # type: ignore[return-value]
    missing = list(dict.fromkeys(w for w, s in zip(words, known, strict=True) if s is None))
    got = dict(zip(missing, _stemmer().stemWords(missing), strict=True))
    if len(memo) + len(got) > STEM_MEMO:
        memo.clear()
    memo.update(got)
    return [got[w] if s is None else s for w, s in zip(words, known, strict=True)]


def literal_tokens(text: str) -> list[str]:
    """Technical strings kept whole (versions, paths, ``host:port``, ``§ 1.2(b)``...).

    A span matched by several patterns yields each distinct literal once.
    """
    nfkc = text if text.isascii() else unicodedata.normalize("NFKC", text)
    low = nfkc.lower()
    # Fast path: every lowercase pattern matches inside one whitespace-delimited token
    # holding a _LITERAL_HINT (never alphanumeric alone), so only such tokens are scanned,
    # joined by spaces, which none of those patterns crosses or looks behind into: the
    # matches and their order are those of the whole text.
    hint = _LITERAL_HINT.search
    cand = " ".join([w for w in low.split() if not w.isalnum() and hint(w)])
    found: dict[tuple[int, str], None] = {}
    if cand:
        for pattern in _LOWER_PATTERNS:
            for m in pattern.finditer(cand):
                found[(m.start(), m.group(0))] = None
    if "§" in low:
        for m in _SECTION.finditer(low):
            found[(-1 - m.start(), "§" + re.sub(r"\s+", "", m.group(1)))] = None
    for m in _ACRONYM_NUM.finditer(nfkc):
        if m.start() and nfkc[m.start() - 1].isalnum():  # word boundary, checked here: faster
            continue
        found[(-1 - m.start(), f"{m.group(1).lower()} {m.group(2).lower()}")] = None
    return [tok for (_, tok) in found]


def cjk_tokens(text: str) -> list[str]:
    """Single characters plus adjacent bigrams of every CJK run in ``text``."""
    out: list[str] = []
    if text.isascii():
        return out
    for run in _CJK_RUN.findall(normalize(text)):
        out.extend(run)
        out.extend(run[i : i + 2] for i in range(len(run) - 1))
    return out


def content_tokens(text: str, *, stem: bool = True, stopwords: bool = True) -> list[str]:
    """Words then CJK unigrams+bigrams: the tokens that make up a text's length."""
    return word_tokens(text, stem=stem, stopwords=stopwords) + cjk_tokens(text)


def tokenize(
    text: str, *, stem: bool = True, stopwords: bool = True, literals: bool = True
) -> list[str]:
    """All index tokens of ``text``: :func:`content_tokens` then :func:`literal_tokens`.

    The order carries no meaning (BM25 treats the result as a bag); the options
    exist for measurement and should stay at their defaults in the product.
    Texts up to :data:`MEMO_CHARS` characters are memoised (a fresh list each call).
    """
    if len(text) <= MEMO_CHARS:
        return list(_memo_tokens(text, stem, stopwords, literals))
    return _tokens(text, stem, stopwords, literals)


#: An answer tokenizes the same sentences, units and headings in several stages (spans,
#: relevance, coverage, gates) and again for the next question on the same documents:
#: texts up to this many characters keep their tokens, the last :data:`MEMO_SIZE` of them
#: (a few MB). Longer texts (most chunks while indexing, each tokenized once) skip the
#: memo and its cost.
MEMO_CHARS = 1000
MEMO_SIZE = 8192


@lru_cache(maxsize=MEMO_SIZE)
def _memo_tokens(text: str, stem: bool, stopwords: bool, literals: bool) -> tuple[str, ...]:
    return tuple(_tokens(text, stem, stopwords, literals))


def _tokens(text: str, stem: bool, stopwords: bool, literals: bool) -> list[str]:
    tokens = content_tokens(text, stem=stem, stopwords=stopwords)
    if literals:
        tokens.extend(literal_tokens(text))
    return tokens


def dotted_tails(tokens: Iterable[str]) -> set[str]:
    """The names a qualified identifier also writes: ``response.iter_content`` names
    ``iter_content``, ``requests.session.send`` names ``session.send`` and ``send``.
    Documentation qualifies the names a question writes bare (the reverse of
    ``sufficiency.presence._member``)."""
    tails: set[str] = set()
    for tok in tokens:
        if "." not in tok or tok.startswith("§"):
            continue
        parts = tok.split(".")
        for i in range(1, len(parts)):
            tail = ".".join(parts[i:])
            if len(tail) >= 3 and tail[0].isalpha():
                tails.add(tail)
    return tails


#: Question and request words carry no evidence: "what", "how do I", "如何", "是什么".
QUESTION_WORDS_EN = frozenset(
    [
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "do",
        "does",
        "did",
        "can",
        "could",
        "should",
        "would",
        "i",
        "we",
        "you",
        "me",
        "my",
        "our",
        "please",
        "tell",
        "explain",
        "describe",
        "show",
        "give",
        "list",
    ]
)
QUESTION_WORDS_ZH = (
    "为什么",
    "是什么",
    "什么是",
    "怎么样",
    "如何",
    "怎么",
    "怎样",
    "什么",
    "哪些",
    "哪个",
    "是否",
    "请问",
    "多少",
    "吗",
    "呢",
    "吧",
)
QUESTION_STEMS = frozenset(word_tokens(" ".join(QUESTION_WORDS_EN), stopwords=False))


def query_tokens(query: str) -> list[str]:
    """BM25 tokens of a question: :func:`tokenize` without English question words, which
    would otherwise match every "What is ...?" heading (a statement query is unchanged)."""
    return [t for t in tokenize(query) if t not in QUESTION_STEMS]


def key_terms(query: str) -> list[str]:
    """Distinct evidence-bearing terms of ``query``, in first-seen order.

    These are the index tokens of the query minus English question words
    (:data:`QUESTION_WORDS_EN`) and, for Chinese, the bigrams *inside* the content words
    jieba finds (:func:`citewise.analysis.zh_words.content_words`: no function words,
    interrogatives such as 多长时间 or 第几条, asked categories, nor bigrams across a
    word boundary); a lone character counts only when the query has no longer word.
    Kana and Hangul runs give every bigram (a one-character run itself).

    Texts up to :data:`MEMO_CHARS` characters are memoised (a fresh list each call): the
    composer scores every unit against the same question, and a fact's subject recurs.
    """
    if len(query) <= MEMO_CHARS:
        return list(_memo_key_terms(query))
    return _key_terms(query)


@lru_cache(maxsize=MEMO_SIZE)
def _memo_key_terms(query: str) -> tuple[str, ...]:
    return tuple(_key_terms(query))


def _key_terms(query: str) -> list[str]:
    terms: dict[str, None] = {}
    query = without_edition(query)  # "1996年那一版" names the text to read, not its words
    for tok in word_tokens(query) + literal_tokens(query):
        if tok not in QUESTION_STEMS:
            terms[tok] = None
    text = normalize(query)
    if _HAN_RUN.search(text):  # Chinese: jieba's content words, bigrams inside each word
        for word in content_words_zh(text):
            terms.update(dict.fromkeys(word_bigrams(word)))
        text = _HAN_RUN.sub(" ", text)
    for run in _CJK_RUN.findall(text):  # kana and Hangul: every bigram, as the index
        if len(run) == 1:
            terms[run] = None
        for i in range(len(run) - 1):
            terms[run[i : i + 2]] = None
    return list(terms)


@dataclass(frozen=True, slots=True)
class Coverage:
    """How many of a query's key terms a text contains."""

    terms: tuple[str, ...]
    matched: tuple[str, ...]

    @property
    def missing(self) -> tuple[str, ...]:
        got = set(self.matched)
        return tuple(t for t in self.terms if t not in got)

    @property
    def ratio(self) -> float:
        """Fraction of key terms found (1.0 when the query has no key terms)."""
        return len(self.matched) / len(self.terms) if self.terms else 1.0


def term_coverage(query: str, texts: str | Iterable[str]) -> Coverage:
    """Which :func:`key_terms` of ``query`` occur in ``texts`` (one text or several)."""
    return terms_in(tuple(key_terms(query)), texts)


def terms_in(terms: tuple[str, ...], texts: str | Iterable[str]) -> Coverage:
    """Which of ``terms`` (a query's :func:`key_terms`, read once) occur in ``texts``."""
    if isinstance(texts, str):
        texts = [texts]
    # a literal token always holds a character besides letters and digits, so terms that
    # are all letters and digits are found among a long text's words alone (a short text's
    # tokens come from the memo at no cost)
    words_only = all(t.isalnum() for t in terms)
    present: set[str] = set()
    for text in texts:
        long_ = words_only and len(text) > MEMO_CHARS
        present.update(content_tokens(text) if long_ else tokenize(text))
    return Coverage(terms=terms, matched=tuple(t for t in terms if t in present))
