"""Topic selection (pure): which terms of a set of documents deserve a note.

Candidates come from four kinds of text (see :data:`~citewise.notes.models.TopicKind`):

- **defined**: the subject of a definition sentence ("X is a ...", "X是指...");
- **heading**: a section title that two or more documents use, that one document uses
  for a section opening with a sentence that names it (openings.py), or whose term two
  documents use and one discusses (:func:`discussed_heading`);
- **graph**: a knowledge-graph point that two or more edges point to;
- **named**: a name written as inline code in the prose of two or more documents, or of
  one document when it has the shape of an API name (:data:`_API_NAME`);
- **zh_word**: a Chinese noun (jieba's dictionary, analysis/zh_words.py) that three or
  more documents use.

Scaffolding rule (one rule, every source of candidates): from ten documents on, a term
mentioned by more than half of them names a part of every document ("Installation",
"总则", "Example") rather than a topic, and is left out unless a document defines it.
Salience rule (the same for every language): a term chosen only because documents use it
(a code name, a Chinese noun) must be discussed somewhere, i.e. mentioned by at least
:data:`MIN_PEAK` pieces of one document; a bare lowercase word written as code (`name`,
`str`) is a value or keyword there, not a name of something, unless a document defines it
or a heading names it. Candidates are ranked by how many kinds of evidence select them,
then by that peak, then by the number of documents mentioning them; the ``limit`` best
are kept. A topic's id is its normalised
key made URL-safe (stable across rebuilds while the term stays).
"""

from __future__ import annotations

import hashlib
import keyword
import mimetypes
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from citewise.analysis import zh_words
from citewise.notes.extract import Piece, display_title, topic_key
from citewise.notes.mentions import MentionIndex
from citewise.notes.models import Topic, TopicKind
from citewise.notes.openings import section_openings

#: Documents from which the scaffolding rule applies, and its share.
SCAFFOLD_MIN_DOCS = 10
SCAFFOLD_SHARE = 0.5
#: Documents a heading, named term or graph point must appear in (and a Chinese word).
MIN_DOCS = 2
MIN_ZH_DOCS = 3
#: Pieces of one document that must mention a term that only usage selects.
MIN_PEAK = 3
#: A bare lowercase word (see the module docstring).
_BARE_WORD = re.compile(r"^[a-z]+$")
#: An API name: dotted (``click.option``, ``request.url_for``, ``r.status_code``) or
#: snake_case (``flag_value``, ``allow_redirects``). Written as code in one document it names
#: an attribute, function or parameter of the library that document explains; the
#: salience rule (discussed by :data:`MIN_PEAK` pieces of one document) still applies, and a
#: note still needs two documents or a definition (compile.py). Chosen on click, starlette
#: and requests (reference pages write each API name as code in one page only).
_API_NAME = re.compile(r"^[a-z_]\w*(?:\.[a-z_]\w*)+$|^[a-z][a-z0-9]*_\w+$")


def api_name(key: str) -> bool:
    """Whether ``key`` is an API name (:data:`_API_NAME`) and not a source file's name: a
    dotted name whose extension is a registered source-code type (``hello.py``, ``main.py``:
    text/x-*) names an example file of the page, not something the library offers."""
    if not _API_NAME.match(key):
        return False
    kind = mimetypes.guess_type(key, strict=False)[0] or ""
    return not kind.startswith("text/x-")


#: Topics kept per view before compiling (a note must still earn its place: compile.py).
DEFAULT_LIMIT = 400
_HAN = re.compile(r"[\u4e00-\u9fff]")


#: Which kind's spelling titles a topic: a definition's or a heading's wording reads
#: better than a code name's (``Harbor`` over ``HARBOR_``).
KIND_ORDER: tuple[TopicKind, ...] = ("defined", "heading", "graph", "named", "zh_word")


@dataclass
class _Candidate:
    kinds: set[TopicKind] = field(default_factory=set)
    titles: dict[TopicKind, Counter[str]] = field(default_factory=dict)
    docs: set[str] = field(default_factory=set)

    def title(self) -> str:
        for kind in KIND_ORDER:
            if kind in self.titles:
                return self.titles[kind].most_common(1)[0][0]
        return ""


def topic_id(key: str) -> str:
    """A stable, URL-safe id: the key's words joined by ``-`` plus a short hash of the key
    (two keys that slug alike stay apart)."""
    slug = re.sub(r"[^\w\u4e00-\u9fff]+", "-", key).strip("-")[:48] or "topic"
    return f"{slug}-{hashlib.sha256(key.encode('utf-8')).hexdigest()[:6]}"


def _well_formed(key: str) -> bool:
    if _HAN.search(key):
        return len(key) >= 2
    return len(key) >= 3 and any(c.isalpha() for c in key) and len(key.split()) <= 5


def _add(found: dict[str, _Candidate], title: str, kind: TopicKind, path: str) -> None:
    key = topic_key(title)
    if not _well_formed(key):
        return
    c = found.setdefault(key, _Candidate())
    c.kinds.add(kind)
    c.titles.setdefault(kind, Counter())[display_title(title)] += 1
    c.docs.add(path)


@lru_cache(maxsize=65536)
def _zh_nouns(text: str) -> frozenset[str]:
    """The Chinese nouns of two characters or more in ``text`` (memoised: every view and
    every rebuild of one process reads the same pieces)."""
    return frozenset(
        {
            w
            for w in zh_words.content_words(text)
            if len(w) >= 2 and zh_words.word_tag(w).startswith(("n", "j"))
        }
    )


def candidates(pieces: Sequence[Piece], graph_titles: Mapping[str, int]) -> dict[str, _Candidate]:
    """Every candidate term by key, with the kinds that select it and where it was seen
    (before the document-count rules)."""
    found: dict[str, _Candidate] = {}
    for p in pieces:
        if p.defines:
            _add(found, p.defines, "defined", p.path)
        if p.kind == "heading":
            _add(found, p.text, "heading", p.path)
        for name in p.names:
            _add(found, name, "named", p.path)
        if p.kind != "code" and _HAN.search(p.text):
            for word in _zh_nouns(p.text):
                _add(found, word, "zh_word", p.path)
    for title, degree in graph_titles.items():
        if degree >= MIN_DOCS:
            _add(found, title, "graph", "")
    return found


def _kept_kinds(
    key: str, c: _Candidate, opened: bool = False, parameter: bool = False
) -> set[TopicKind]:
    """The kinds whose document-count rule ``c`` passes (a heading whose section opens by
    naming it passes in one document: ``opened``; so does an API name, :data:`_API_NAME`,
    and a parameter name, :func:`keyword_arguments`)."""
    n = len(c.docs - {""})
    kept: set[TopicKind] = set()
    for kind in c.kinds:
        need = MIN_ZH_DOCS if kind == "zh_word" else MIN_DOCS
        one_doc = (kind == "heading" and opened) or (
            kind == "named" and (parameter or api_name(key))
        )
        if kind in ("defined", "graph") or n >= need or one_doc:
            kept.add(kind)
    return kept


#: A keyword argument in a call of a code example: ``get(url, timeout=3.05)``,
#: ``Option("--n", default=1)`` (not ``==``, not a top-level assignment).
_KEYWORD_ARGUMENT = re.compile(r"[(,]\s*([a-z_][a-z0-9_]*)\s*=(?!=)")


def keyword_arguments(pieces: Sequence[Piece]) -> frozenset[str]:
    """Parameter rule: the bare lowercase words the documents' code examples pass as
    keyword arguments. Such a word written as code in prose names a parameter of the
    library the documents explain (`timeout`, `stream`, `verify`), not a value or keyword,
    so the bare-word rule does not apply to it (the salience rule still does). Chosen on
    requests and click; starlette, typer and laws-zh are left-out checks."""
    found: set[str] = set()
    for p in pieces:
        # An interactive-session line (">>> ") is code even where the parser read the
        # block it stands in as prose (a doctest quoted inside an indented block).
        if p.kind == "code" or p.text.startswith(">>> "):
            found.update(m.group(1) for m in _KEYWORD_ARGUMENT.finditer(p.text))
    return frozenset(found)


def subject_headings(
    pieces: Sequence[Piece], skip: Callable[[str], bool] | None = None
) -> frozenset[str]:
    """Keys of headings that may name a subject: used once in their document (a heading a
    document repeats names a kind of section: "Added", "Fixed" under every release of a
    changelog) and not an instruction (``skip``: "Run it", "Put them together")."""
    per_doc = Counter((p.path, topic_key(p.text)) for p in pieces if p.kind == "heading")
    return frozenset(
        key
        for (path, key), n in per_doc.items()
        if n == 1
        and not any(
            skip is not None and skip(p.text)
            for p in pieces
            if p.kind == "heading" and p.path == path and topic_key(p.text) == key
        )
    )


#: A capitalised name: ``Session``, ``Response`` (not ``HTTP``, not ``Hello world``).
_CLASS_NAME = re.compile(r"^[A-Z][a-z0-9]+$")


def class_name(c: _Candidate) -> bool:
    """Class-name rule: a bare word that documents write as code with a capital initial
    (``Session``, ``Response``) names a class of the library, not a value, unless it is a
    reserved word of Python (``True``, ``None``: the standard library's keyword list).
    Chosen on requests; click, starlette, typer and laws-zh are left-out checks."""
    return any(_CLASS_NAME.match(t) and not keyword.iskeyword(t) for t in c.titles.get("named", ()))


def discussed_heading(docs: int, peak: int) -> bool:
    """Heading-use rule: a section title that one document uses is a topic when documents
    use its term (mentioned by :data:`MIN_DOCS` documents) and the document it titles
    discusses it (``peak``: mentioned by :data:`MIN_PEAK` pieces there): the salience rule
    that usage-selected terms pass, applied to a heading ("Groups" titles one page of a CLI
    library's docs, four other pages use groups; "Proxies" titles a section of an HTTP
    library's advanced guide, the quickstart uses them too). Chosen on click and requests
    (the two docs corpora under 50 notes); starlette, typer and laws-zh are left-out
    checks."""
    return docs >= MIN_DOCS and peak >= MIN_PEAK


def select_topics(
    pieces: Sequence[Piece],
    index: MentionIndex,
    graph_titles: Mapping[str, int],
    *,
    limit: int = DEFAULT_LIMIT,
    openings: Mapping[str, Sequence[int]] | None = None,
    skip: Callable[[str], bool] | None = None,
) -> list[Topic]:
    """The salient topics of ``pieces`` (see the module docstring), best first.
    ``openings``: :func:`~citewise.notes.openings.section_openings` of ``pieces`` (read
    here when not given); ``skip``: headings that read as an instruction ("Run it", "Add
    Typer"), which the heading-use rule leaves out."""
    documents = len({p.path for p in pieces})
    subjects = subject_headings(pieces, skip)
    parameters = keyword_arguments(pieces)
    opened = section_openings(pieces) if openings is None else openings
    ranked: list[tuple[int, int, int, str, Topic]] = []
    for key, c in candidates(pieces, graph_titles).items():
        kinds = _kept_kinds(key, c, key in opened, key in parameters)
        if not kinds and "heading" not in c.kinds:
            continue
        per_doc = Counter(pieces[i].path for i in index.find(key))
        docs, peak = len(per_doc), max(per_doc.values(), default=0)
        own = max((per_doc[d] for d in c.docs if d), default=0)  # in its own document
        if not kinds and key in subjects and discussed_heading(docs, own):
            kinds = {"heading"}
        if not kinds:
            continue
        scaffold = documents >= SCAFFOLD_MIN_DOCS and docs > documents * SCAFFOLD_SHARE
        if docs == 0 or (scaffold and "defined" not in kinds):
            continue
        bare = _BARE_WORD.match(key) and key not in parameters and not class_name(c)
        if kinds <= {"named", "zh_word"} and (peak < MIN_PEAK or bare):
            continue
        order = tuple(k for k in KIND_ORDER if k in kinds)
        topic = Topic(id=topic_id(key), title=c.title(), key=key, kinds=order, documents=docs)
        ranked.append((-len(kinds), -min(peak, 10), -docs, key, topic))
    ranked.sort(key=lambda r: r[:4])
    return [r[4] for r in ranked[:limit]]
