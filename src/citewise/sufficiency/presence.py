"""Subject presence: which of a question's words the cited evidence must contain.

A question names its subject with a few *distinctive* words (a header, a library, a
protocol, an option, a model number) and surrounds them with generic ones ("send", "use",
"several", "default"). Evidence that lacks a generic word can still answer; evidence
that lacks a distinctive word answers a neighbouring question. So every term of the
question is weighed (:func:`profile_terms`):

* **identifiers** (tokens with a digit, ``snake_case`` / dotted / hyphenated names,
  ``model 5`` / ``v2`` phrases) are always required, literally;
* **names** (capitalised words after the first, acronyms, CamelCase) are required
  unless the knowledge base mentions them everywhere (the product's own name);
* other **words** are required when they are neither common English (by the ``wordfreq``
  word list, Zipf >= :data:`GENERIC_ZIPF`) nor common in the knowledge base (held by at
  least :data:`KB_COMMON_SHARE` of its chunks): that is, when they are rare somewhere.
  A fairly common word no chunk holds (below :data:`ABSENT_ZIPF`), or an "-ly" adverb
  no chunk holds, is required softly: its absence makes the answer partial.

:func:`judge` then compares the required terms with the evidence: a missing identifier
or labelled number, a name or word the knowledge base never holds, or all required terms
missing make the evidence insufficient; some missing names or words (that the knowledge
base holds elsewhere) make the answer partial. Reasons name the question's own words,
and say "the documents do not mention" only of words no chunk of the knowledge base
holds.

CJK text has no word boundaries to weigh; its bigrams are left to the coverage ratio.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from citewise.analysis.scope import kind_of_path
from citewise.analysis.tokenize import QUESTION_STEMS, is_cjk_char, tokenize
from citewise.analysis.zh_words import word_of
from citewise.sufficiency.closed_compounds import open_form, written_open
from citewise.sufficiency.judgement import judge, label_found, last_part
from citewise.sufficiency.models import Judgement, QuestionTerm, TermKind, TermProfile
from citewise.sufficiency.spelling import respell

if TYPE_CHECKING:
    from citewise.analysis.question import Question
    from citewise.index.lexical import Population
    from citewise.index.manager import KBIndex


#: Words at least this frequent in English (Zipf scale: 5 = once per 100,000 words) are
#: generic: "send", "several", "response". Rarer words can name a subject.
GENERIC_ZIPF = 4.2
#: A word the knowledge base never holds, up to this frequency ("abroad"), is named as
#: not found (a partial answer): a condition the documents never speak of is not dropped
#: silently. Function words ("after", "long") are not.
ABSENT_ZIPF = 5.5
#: A term held by at least this share of the knowledge base's chunks is its common
#: vocabulary (the product's name, its core nouns): never required on its own.
KB_COMMON_SHARE = 0.1
KB_COMMON_MIN = 10
#: Question words that never name a subject, however rare they are in English: fillers,
#: and the verbs of how-to questions about software ("configure", "install"), which the
#: answer may show as code or a step without the word itself.
FILLER = frozenset(
    tokenize(
        "e.g. etc. i.e. via instead whether possible programmatically kind configure configuration "
        "install enable disable setup customize customise specify implement register invoke "
        "initialize initialise instantiate retrieve modify override define "
        # what is left of a contraction ("couldn't", "shouldn't"): a negation, no subject
        "couldn shouldn wouldn didn doesn isn aren wasn weren hasn haven hadn mustn needn"
    )
)

#: "model 5", "version 2", "v3", "type B2", "API v1": a label and its number.
_LABELLED = re.compile(
    r"\b(model|version|ver|v|type|series|mark|mk|gen|generation|release|revision|rev|"
    r"edition|plan|tier|level|phase|grade|api|python|tls|ssl|oauth)"
    r"\s?[-#/]?\s?(\d+(?:\.\d+)*)(?![\w.]*\d)",
    re.IGNORECASE,
)
#: Words that point at a passage rather than name a subject ("what does clause 2.3 say").
REFERENCE_WORDS = frozenset(
    [
        "claus",
        "section",
        "articl",
        "paragraph",
        "rule",
        "say",
        "state",
        "mean",
        "requir",
        "document",
        "page",
    ]
)


#: "for example for verbosity", "such as ~/Documents", "instead of --no-accept": the words
#: after are an example of the subject, or what the question turns away from.
_EXAMPLE = re.compile(
    r"\b(?:such as|for example|for instance|e\.g\.|instead of|rather than)\s+([^,;?]+)", re.I
)
#: A follow-up check a how-to asks for ("… and verify the upgrade"): the verb names a part
#: of the answer (the how-to profile's verification part, answer/coverage.py), not its
#: subject, so documents that phrase the check otherwise ("Check that …") are no reason to
#: refuse; the part's own check says when it is missing.
_CHECK_VERB = re.compile(r"\b(?:and|then)\s+(verify|validate|confirm|check|test)\b", re.I)
#: A question, not a statement: a question mark, or a question or request word first.
#: A statement ("Albendazole is used to treat filariasis.") is a claim to check: a word of
#: it no document holds makes the answer partial, never a refusal on its own.
_QUESTION = re.compile(
    r"[?？]\s*$|^\s*(?:what|which|who|whom|whose|when|where|why|how|is|are|was|were|do|does|"
    r"did|can|could|should|would|will|may|list|show|explain|describe|tell)\b|[吗呢么]|什么|如何|"
    r"怎么|为什么|哪|多少|是否",
    re.IGNORECASE,
)
_LITERAL_CHARS = re.compile(r"[._:\-/]")
_SURFACE = re.compile(r"[^\s?!,;()\"'“”‘’`]+")
_HAN_RUN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


@lru_cache(maxsize=1)
def _zipf() -> Callable[..., float]:
    from wordfreq import zipf_frequency

    return zipf_frequency


def english_zipf(word: str) -> float:
    """How common ``word`` is in English (Zipf scale, 0 for unknown words)."""
    # The "small" list holds every word at Zipf 3 and above: enough for a 4.2 cut, and it
    # loads in a tenth of the time of the full one.
    return float(_zipf()(word.lower(), "en", wordlist="small")) if word.isascii() else 0.0


def is_question(text: str) -> bool:
    """A question or request, not a statement (a claim to check)."""
    return bool(_QUESTION.search(text))


def surface_words(question: Question) -> dict[str, str]:
    """Index token -> the question word it came from (first occurrence wins; a Chinese
    bigram names the word jieba segments it from, never the whole unspaced question)."""
    out: dict[str, str] = dict(word_of(question.text))  # Chinese: each bigram's jieba word
    # a Chinese run is no word: the text between its runs ("1996", "G-3") is read alone
    spaced = _HAN_RUN.sub(" ", question.text) if out else question.text
    for m in _SURFACE.finditer(spaced):
        word = m.group(0).strip(".:?")
        word = re.sub(r"(?:'s|’s)$", "", word)
        for tok in tokenize(word):
            out.setdefault(tok, word)
    return out


def labels_in(question: Question) -> tuple[str, ...]:
    """Labelled numbers of ``question``, normalised to ``"<label> <number>"``."""
    found = []
    for m in _LABELLED.finditer(question.text):
        label = m.group(1).lower()
        label = {"ver": "version", "v": "version", "mk": "mark", "rev": "revision"}.get(
            label, label
        )
        found.append(f"{label} {m.group(2)}")
    return tuple(dict.fromkeys(found))


def _kind(key: str, named: set[str]) -> TermKind:
    if any(ch.isdigit() for ch in key) or _LITERAL_CHARS.search(key):
        return "identifier"
    return "name" if key in named else "word"


def profile_terms(
    question: Question,
    subject: Iterable[str],
    df: Callable[[str], int],
    chunks: int,
    named_in: Iterable[str] | None = None,
    phrase: Callable[[str, str], bool] | None = None,
) -> TermProfile:
    """Weigh the ``subject`` terms of ``question`` (see the module docstring).

    ``df`` gives a term's chunk count in the knowledge base, which has ``chunks`` chunks.
    ``named_in`` are the question's named terms when already analysed (else read here).
    ``phrase(first, second)``: whether the knowledge base writes the two words together
    (a closed compound written open, :mod:`citewise.sufficiency.closed_compounds`).
    """
    text = question.text
    surface = surface_words(question)
    named = set(question.named_terms if named_in is None else named_in)
    statement = not _QUESTION.search(text)
    examples = {t for m in _EXAMPLE.finditer(text) for t in tokenize(m.group(1))}
    checks = {t for m in _CHECK_VERB.finditer(text) for t in tokenize(m.group(1))}
    keys = [
        k
        for k in dict.fromkeys([*subject, *named])
        if k not in QUESTION_STEMS and k not in REFERENCE_WORDS
    ]
    parts = {p for k in keys if _LITERAL_CHARS.search(k) for p in tokenize(k, literals=False)}
    common = max(KB_COMMON_MIN, KB_COMMON_SHARE * chunks)
    around = _Around(surface, named, statement, examples, checks, parts, common, df, phrase)
    terms = [_weigh_term(key, around) for key in keys]
    return TermProfile(tuple(terms), labels_in(question), chunks)


@dataclass(frozen=True, slots=True)
class _Around:
    """What :func:`profile_terms` reads once for all of a question's terms: the question's
    own spellings, its named terms, whether it is a statement, the words it gives as
    examples or as things to check, the pieces of identifiers it names whole, the
    knowledge base's common-vocabulary bar, and its counts."""

    surface: dict[str, str]
    named: set[str]
    statement: bool
    examples: set[str]
    checks: set[str]
    parts: set[str]
    common: float
    df: Callable[[str], int]
    phrase: Callable[[str, str], bool] | None


def _weigh_term(key: str, around: _Around) -> QuestionTerm:
    """One subject term weighed: its kind, its count under the documents' spelling, whether
    the answer must hold it, and whether its absence only makes the answer partial."""
    if any(is_cjk_char(ch) for ch in key):
        return QuestionTerm(key, key, "word", around.df(key), False)
    kind = _kind(key, around.named)
    word = around.surface.get(key, key)
    asked, key, n = _counted(key, word, kind, around.df)
    if n == 0 and _spelt_apart(word, around):  # "work-in-process" as "Work in-process"
        n = min((around.df(t) for t in tokenize(word.replace("-", " "), literals=False)), default=0)
    required, soft = _required(key, word, kind, n, around.common, around.parts)
    soft = _softened(QuestionTerm(key, word, kind, n, required, soft, False, asked), around)
    return QuestionTerm(key, word, kind, n, required or soft, soft, n >= around.common, asked)


#: Words joined by hyphens ("work-in-process", "end-to-end"): a surface variant of the
#: same words written with spaces or other hyphens, counted by its words when no chunk
#: holds the joined form.
_HYPHENATED = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)+")


def _spelt_apart(word: str, around: _Around) -> bool:
    """Whether the knowledge base writes the hyphenated ``word`` with its words apart or
    hyphenated otherwise ("Work in-process" for "work-in-process"), in one chunk, in
    order (the phrase finder of :func:`weigh`; case aside)."""
    if around.phrase is None or not _HYPHENATED.fullmatch(word):
        return False
    first, *rest = word.split("-")
    return around.phrase(re.escape(first), r"[\s-]+".join(re.escape(p) for p in rest))


def _counted(key: str, word: str, kind: TermKind, df: Callable[[str], int]) -> tuple[str, str, int]:
    """(the question's spelling when read as a slip else "", the key, its chunk count): a
    dotted identifier no chunk holds is counted by its last part ("typer.Abort": "Abort");
    a name or word no chunk holds, read as a typing slip of a word the documents hold
    when :func:`respell` finds one."""
    n = df(key)
    last = last_part(QuestionTerm(key, word, kind, 0, True))
    if n == 0 and last:
        n = min(df(t) for t in tokenize(last, literals=False))
    asked = ""
    if n == 0 and kind != "identifier":
        meant = respell(word, key, df, english_zipf)
        if meant is not None:
            asked, key, n = key, meant, df(meant)
    return asked, key, n


def _required(
    key: str, word: str, kind: TermKind, n: int, common: float, parts: set[str]
) -> tuple[bool, bool]:
    """(required, soft) by the term's kind: an identifier unless a bare count; never a piece
    of a named identifier or a filler; a name unless common in the knowledge base; a word
    when rare both in English and in the knowledge base (softly when no chunk holds a
    fairly common word or an "-ly" adverb)."""
    if kind == "identifier":
        return not key.replace(",", "").isdigit(), False  # "2", "000": counts, not ids
    if key in parts or key in FILLER:
        return False, False  # a piece of an identifier the question names whole
    if kind == "name":
        return n < common, False
    zipf = english_zipf(word)
    required = n < common and zipf < GENERIC_ZIPF
    return required, n == 0 and (GENERIC_ZIPF <= zipf < ABSENT_ZIPF or _adverb(word))


def _softened(term: QuestionTerm, around: _Around) -> bool:
    """Whether a required term is only softly required: an example, a thing to verify, a
    closed compound the knowledge base writes open, or any term of a statement to check."""
    key, n, required, soft = term.key, term.df, term.required, term.soft
    if key in around.examples and required:
        soft = True  # "such as ~/Documents": an example, not the subject
    if key in around.checks and term.kind == "word" and required:
        soft = True  # "and verify the upgrade": a part of the answer, not its subject
    closed = n == 0 and term.kind == "word" and required and not term.asked
    if closed and around.phrase is not None:  # "keypress": "Key Press"
        soft = soft or open_form(term.surface, around.df, around.phrase) is not None
    if around.statement and n == 0 and required:
        soft = True  # a claim to check, not a question about a subject: see below
    return soft


def _adverb(word: str) -> bool:
    """An English "-ly" adverb ("erroneously", "analogously"): it says how, never what the
    question is about, so the documents' other wording of it is no reason to refuse."""
    return word.isascii() and word.islower() and len(word) > 5 and word.endswith("ly")


def missing_surface(question: Question, stems: Iterable[str]) -> list[str]:
    """The question's own words for index tokens ``stems`` (for readable reasons)."""
    surface = surface_words(question)
    return list(dict.fromkeys(surface.get(s, s) for s in stems))


def weigh(question: Question, index: KBIndex, principal: str | None = None) -> TermProfile:
    """:func:`profile_terms` of the analysed question's subject against a knowledge base's
    lexical index, counted over what ``principal`` may read (a hidden document must not
    change any verdict or reason)."""
    lexical = index.lexical
    population = index.population(principal)
    subject, named = question.intent.subject_terms, question.named_terms
    # scope words ("spreadsheet", "edition") are context, the kinds of file it holds
    scoped = question.scope.held(file_kinds(index)).keys
    if scoped:  # matched against each unit's context, never demanded from the documents
        subject = tuple(k for k in subject if k not in scoped)
        named = tuple(k for k in named if k not in scoped)
    phrase = _phrase_finder(index, population)
    if population is None:  # the caller reads everything: the global statistics
        return profile_terms(
            question, subject, lexical.document_frequency, len(lexical), named, phrase
        )
    count = population.n
    return profile_terms(
        question, subject, lambda t: lexical.document_frequency(t, population), count, named, phrase
    )


def file_kinds(index: KBIndex) -> frozenset[str]:
    """The file kinds (:data:`citewise.analysis.scope.FILE_KINDS`) of the knowledge base's
    current documents, read once per index state."""
    chunks = index.chunks
    return index.memo(
        "scope-file-kinds", lambda: frozenset(kind_of_path(c.path) for c in chunks.values())
    )


#: Chunks read to find two words written together (the best BM25 matches for both).
PHRASE_CHUNKS = 10


def _phrase_finder(index: KBIndex, population: Population | None) -> Callable[[str, str], bool]:
    """``phrase(first, second)`` over the chunks the caller may read: the best
    :data:`PHRASE_CHUNKS` lexical matches of the two words, read for them side by side."""
    lexical = index.lexical

    def phrase(first: str, second: str) -> bool:
        tokens = tokenize(f"{first} {second}", literals=False)
        allowed = population.mask if population is not None else None
        hits = lexical.search_tokens(tokens, PHRASE_CHUNKS, allowed, population)
        texts = index.chunk_texts([h.chunk_id for h in hits if h.score > 0])
        return any(
            written_open(index.chunks[cid].breadcrumb, first, second)
            or written_open(text, first, second)
            for cid, text in texts.items()
        )

    return phrase


__all__ = [
    "ABSENT_ZIPF",
    "FILLER",
    "GENERIC_ZIPF",
    "REFERENCE_WORDS",
    "Judgement",
    "QuestionTerm",
    "TermProfile",
    "english_zipf",
    "is_question",
    "judge",
    "label_found",
    "labels_in",
    "missing_surface",
    "profile_terms",
    "surface_words",
    "weigh",
]
