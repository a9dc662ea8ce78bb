"""A Chinese question that names a law reads that law only, in the edition it asks for
(issue 34).

Chinese statutes share their numbering: nearly every law has a 第十条, so "《国歌法》第十条
规定了什么" matched in every law is answered from the wrong one. And a law kept in several
dated editions (国务院组织法(1982-12-10).md beside 国务院组织法(2024-03-11).md) carries no
regulation metadata, so every edition stood as current.

* :func:`law_name` - a document's law name from its title: the 中华人民共和国 prefix and
  any dated edition suffix left off ("中华人民共和国国务院组织法" -> "国务院组织法").
* :func:`edition_date` - the date of an edition: the ``(YYYY-MM-DD)`` of its file name,
  else the latest dated event of its preamble ("1982年12月10日 … 通过 … 2024年3月11日 …
  修订" -> 2024-03-11), else None.
* :func:`laws_named` - the laws a question names: a 《…》 title, or a law name of the
  knowledge base written out in the question (the longest names win: 监察官法 is not
  监察法), else a short title: the tail of one law's name only (监督法).
* :func:`~citewise.analysis.zh_edition.edition_asked` - the edition a question names in
  Chinese ("1996年那一版", "2024年修订", "修正前", "现行"; the text in force by default).
* :func:`chosen_paths` - the documents of the named laws in the asked edition: the edition
  of that year, else the one in force that year (the newest dated no later); before an
  amendment, every edition but the newest; otherwise the newest (an undated text counts as
  the newest, as a file without a date in its name is the current text).
  An edition asked by its enactment step ("2021年修正的", "1996年那一版") that no edition
  records - no edition is dated that year and no preamble lists a step of that year -
  is absent: no document answers for it (the question's premise is false), so the
  scope is empty and the ask abstains. "2006年的监督法" (the text in force that year)
  is no such step and reads the edition in force.

The cue words are the language's (a class: edition nouns and amendment verbs), chosen on
the laws-zh development questions; the file-name and preamble formats are those of
laws-zh and of Chinese statute publications generally (a dated line per enactment step).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING

from citewise.analysis.zh_edition import EditionAsk, edition_asked
from citewise.core.search import Abstention

if TYPE_CHECKING:
    from citewise.index.manager import KBIndex

__all__ = [
    "EditionAsk",
    "Law",
    "LawScope",
    "chosen_paths",
    "edition_asked",
    "edition_date",
    "law_name",
    "law_scope",
    "laws_named",
    "step_years",
]

_PREFIX = re.compile(r"^(?:中华人民共和国)")
_SUFFIX = re.compile(r"[（(][^)）]*[)）]\s*$")
#: The endings of a Chinese law's name (a statute, regulation, rules, measures, decision).
_LAW_END = re.compile(r"(?:法|条例|规则|办法|规定|决定|基本法|纲要)$")
_FILE_DATE = re.compile(r"[（(](\d{4})-(\d{2})-(\d{2})[)）]")
_EVENT_DATE = re.compile(r"(\d{4})年(\d{1,2})月(\d{1,2})日")
_QUOTED = re.compile(r"《([^》]{2,40})》")


@dataclass(frozen=True, slots=True)
class Law:
    """One document that is (an edition of) a law."""

    path: str
    name: str
    edition: date | None
    #: The years of the enactment steps the edition records (its date, its preamble's).
    steps: frozenset[int] = frozenset()


def law_name(title: str) -> str:
    """The law's name in ``title`` (no 中华人民共和国 prefix, no edition suffix), or ""
    when the title names no law."""
    name = _SUFFIX.sub("", _PREFIX.sub("", title.strip().lstrip("#").strip()))
    return name if len(name) >= 3 and _LAW_END.search(name) else ""


def edition_date(path: str, preamble: str = "") -> date | None:
    """The edition's date from its file name, else its preamble's latest dated event."""
    m = _FILE_DATE.search(path.rsplit("/", 1)[-1])
    found = [m.groups()] if m else _EVENT_DATE.findall(preamble)
    dates = []
    for y, mo, d in found:
        try:
            dates.append(date(int(y), int(mo), int(d)))
        except ValueError:
            continue
    return max(dates) if dates else None


def step_years(path: str, preamble: str = "") -> frozenset[int]:
    """The years of the dated steps an edition records: its file name's date and every
    dated line of its preamble (1982年12月10日 … 通过, 2024年3月11日 … 修订)."""
    years = {int(y) for y, _, _ in _EVENT_DATE.findall(preamble)}
    m = _FILE_DATE.search(path.rsplit("/", 1)[-1])
    return frozenset(years | ({int(m.group(1))} if m else set()))


def _absent(eds: list[Law], ask: EditionAsk) -> bool:
    """An edition asked by its enactment step that none of ``eds`` records (see the
    module); a law whose editions record no step at all is not judged."""
    if ask.kind != "year" or not ask.event or ask.year is None:
        return False
    known = set().union(*(e.steps for e in eds))
    return bool(known) and ask.year not in known


def laws_named(text: str, laws: Iterable[Law]) -> set[str]:
    """The law names of ``laws`` that ``text`` names (see the module)."""
    names = {law.name for law in laws if law.name}
    quoted = {law_name(q) or q for q in _QUOTED.findall(text)}
    named = {n for n in names if n in quoted}
    if named:
        return named
    written = {n for n in names if n in text}
    if written:
        return {n for n in written if not any(n != o and n in o for o in written)}
    return _short_names(text, names)


def _short_names(text: str, names: set[str]) -> set[str]:
    """Laws a question names by a short title: the tail of a full name ("监督法" for
    各级人民代表大会常务委员会监督法), at least three characters, held by one law only
    ("组织法" ends several names and names none)."""
    found = set()
    for name in names:
        tails = (name[i:] for i in range(len(name) - 2))
        tail = next((t for t in tails if t in text and _LAW_END.search(t)), "")
        if tail and sum(n.endswith(tail) for n in names) == 1:
            found.add(name)
    return found


def _newest(eds: list[Law]) -> list[Law]:
    undated = [e for e in eds if e.edition is None]
    if undated:
        return undated
    top = max(e.edition for e in eds if e.edition is not None)
    return [e for e in eds if e.edition == top]


def chosen_paths(editions: Iterable[Law], ask: EditionAsk) -> frozenset[str]:
    """The paths of one law's ``editions`` that answer for the edition ``ask`` names."""
    eds = list(editions)
    if _absent(eds, ask):
        return frozenset()
    if len(eds) <= 1:
        return frozenset(e.path for e in eds)
    dated = sorted((e for e in eds if e.edition is not None), key=lambda e: e.edition or date.min)
    if ask.kind == "year" and ask.year is not None:
        same = [e for e in dated if e.edition is not None and e.edition.year == ask.year]
        before = [e for e in dated if e.edition is not None and e.edition.year <= ask.year]
        pick = same or before[-1:] or dated[:1]
        return frozenset(e.path for e in pick)
    newest = _newest(eds)
    if ask.kind == "before":
        return frozenset(e.path for e in eds if e not in newest) or frozenset(
            e.path for e in newest
        )
    return frozenset(e.path for e in newest)


@dataclass(frozen=True, slots=True)
class LawScope:
    """The paths a question is held to (None: no law named) and what was read."""

    paths: frozenset[str] | None = None
    info: dict[str, object] | None = None
    #: Why recall abstains: the edition asked for is not in the knowledge base.
    abstention: Abstention | None = None


def scope_of(text: str, laws: Mapping[str, Law]) -> LawScope:
    """The named laws' documents in the asked edition (pure; ``laws`` by path)."""
    named = laws_named(text, laws.values())
    if not named:
        return LawScope()
    ask = edition_asked(text)
    paths: set[str] = set()
    for name in sorted(named):
        paths |= chosen_paths([law for law in laws.values() if law.name == name], ask)
    info: dict[str, object] = {
        "laws": sorted(named),
        "edition": ask.kind if ask.stated else "current (default)",
        "year": ask.year,
        "paths": sorted(paths),
    }
    if paths:
        return LawScope(frozenset(paths), info)
    # an edition asked by an enactment step that no edition records: say so
    which = "、".join(sorted(named))
    reason = f"the knowledge base holds no edition of {which} from {ask.year}"
    info["absent"] = reason
    return LawScope(frozenset(), info, Abstention(reason, "edition_not_found"))


_HAN = re.compile(r"[\u4e00-\u9fff]")
#: Where an edition's dated steps are read: its first chunks, their first characters.
_PREAMBLE_CHUNKS = 3
_PREAMBLE_CHARS = 1500


def law_scope(index: KBIndex, text: str, principal: str | None) -> LawScope:
    """:func:`scope_of` over the laws of the knowledge base that ``principal`` may read
    (read once per index state); a text without Chinese names no law."""
    if not _HAN.search(text):
        return LawScope()
    return scope_of(text, _laws(index, principal))


def _laws(index: KBIndex, principal: str | None) -> dict[str, Law]:
    readable, chunks = index.readable(principal), index.chunks

    def compute() -> dict[str, Law]:
        first: dict[str, tuple[int, str, str]] = {}
        heads: dict[str, list[str]] = {}
        for cid in readable:
            c = chunks[cid]
            title = c.heading_path[0] if c.heading_path else c.breadcrumb.split(" > ")[0]
            seen = first.get(c.path)
            if seen is None or c.ordinal < seen[0]:
                first[c.path] = (c.ordinal, title, c.search_text[:400])
            if c.ordinal < _PREAMBLE_CHUNKS:  # the dated steps of a long history
                heads.setdefault(c.path, []).append(c.search_text[:_PREAMBLE_CHARS])
        out: dict[str, Law] = {}
        for path, (_, title, head) in sorted(first.items()):
            name = law_name(title)
            if name:
                steps = step_years(path, "\n".join(heads.get(path, [])))
                out[path] = Law(path, name, edition_date(path, head), steps)
        return out

    return index.memo(("zh_laws", index.classes(principal)), compute)
