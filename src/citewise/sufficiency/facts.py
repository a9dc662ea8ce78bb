"""Comparable facts: (subject, attribute, value, qualifiers) with exact spans.

Purpose: let the answer stage notice when two pieces of evidence state
*different values for the same thing in the same scope* (see
:mod:`citewise.sufficiency.conflicts`).  Extraction is rule-based and
conservative — a fact is only emitted when a typed value and a subject phrase
are both found; anything vaguer is left to the reader.

Input units come from :func:`citewise.answer.sentences.split_sentences`, so every
fact's ``start``/``end`` slices the source document exactly (``base_offset`` is
the offset of ``text[0]``, as ``Node.char_start`` in
:mod:`citewise.ingest.models`).  ``value_start``/``value_end`` locate the value.

Values (``attribute`` is the value's kind; normalised ``value``):

==================  ==============================================================
kind                examples → value
==================  ==============================================================
``endpoint``        ``POST /api/v2/sync`` → ``POST /api/v2/sync``; URLs.  A route
                    segment ``/v1/`` is part of the value, never a version qualifier
``location``        ``/etc/citewise/config.toml``, ``C:\\ProgramData\\x.toml``
``date``            ``2024-03-05``, ``March 5, 2024``, ``2024年3月5日`` → ISO
``version``         ``2.4.1`` / ``v2.4.1`` → ``2.4.1``
``status_code``     ``HTTP 503``, ``status code 404`` → ``503``
``port``            ``port 8443``, ``端口为 8443`` → ``8443``
``duration``        ``30 s``, ``2 min``, ``500 ms`` → ``30 s``, ``120 s``, ``0.5 s``
``length`` …        ``±0.10 mm`` → ``±0.1 mm`` (also ``size``, ``percent``,
                    ``temperature``, ``voltage``, ``frequency``)
``count``           unitless numbers and limits: ``retry limit 3``, ``3 times``, ``3次``
``state``           enabled/disabled (on/off/true/false after a link verb, 启用/禁用)
``owner``           ``owned by Team A``, ``owner is X``, ``Owner: X`` → ``team a``
``protocol``        HTTP/2, gRPC, WebSocket, MQTT… (lower-cased)
``format``          JSON, YAML, XML, CSV, Protobuf… (``yml`` → ``yaml``)
``engine``          SQLite, PostgreSQL (``postgres`` → ``postgresql``), Redis…
==================  ==============================================================

Subject: the noun phrase left of the value inside its clause, after link words
("is", "defaults to", ":", "uses", "为"…) are stripped; determiners, qualifier
words and ``default`` are removed; a phrase naming an endpoint path *is* that
endpoint (``payloads for /api/v2/sync`` → ``/api/v2/sync``); a pronoun or empty
phrase inherits the previous subject of the sentence ("previously 3, now 5").

Qualifiers (:class:`Qualifiers`) — environment, version, platform, time — are
taken from the value's own clause (nearest mention), else the nearest earlier
mention in the sentence, else a single mention elsewhere in the sentence, else
the heading path (a "Staging" section qualifies its facts; headings inside
``text`` count too).  Table value columns get qualifiers from their header
("Old default (2.3.x)" → version 2.3.x, historical) and from environment /
platform / version columns of the row.  In headings and headers an edition
year closing the title counts as a version ("Specifications 2023", "Lumen S400
(2024)"); "previous" / "roll back" / "downgrade" mark a historical statement
("Install the previous package, harbor=2.4.0-1").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import Literal

from citewise.answer.sentences import Span, split_sentences
from citewise.sufficiency._numbers import (
    framing_condition,
    in_brackets,
    is_bound,
    is_confidence_level,
    is_statistic_label,
    is_unlinked_count,
)
from citewise.sufficiency._values import PATH as _PATH
from citewise.sufficiency._values import Value as _Value
from citewise.sufficiency._values import path_kind as _path_kind
from citewise.sufficiency._values import values as _values

__all__ = ["Fact", "Qualifiers", "TimeScope", "extract_facts", "qualifiers_in"]

TimeScope = Literal["current", "historical", "planned"]


def _words(text: str) -> tuple[str, ...]:
    """Whitespace-separated words (keeps long word lists readable)."""
    return tuple(text.split())


@dataclass(frozen=True, slots=True)
class Qualifiers:
    """The scope a fact holds in; ``None`` means "not stated"."""

    environment: str | None = None
    version: str | None = None
    platform: str | None = None
    time: TimeScope | None = None
    #: The condition the sentence opens with ("at 12 weeks", "among women with …"):
    #: :func:`citewise.sufficiency._numbers.framing_condition`.
    condition: str | None = None

    def over(self, base: Qualifiers) -> Qualifiers:
        """These qualifiers, with unset dimensions taken from ``base``."""
        return Qualifiers(
            self.environment or base.environment,
            self.version or base.version,
            self.platform or base.platform,
            self.time or base.time,
            self.condition or base.condition,
        )


@dataclass(frozen=True, slots=True)
class Fact:
    """One comparable statement; ``text`` is ``doc[start:end]`` (the sentence/row)."""

    subject: str
    attribute: str
    value: str
    raw_value: str
    start: int
    end: int
    text: str
    value_start: int
    value_end: int
    qualifiers: Qualifiers = Qualifiers()
    doc_path: str = ""
    heading_path: tuple[str, ...] = ()
    #: Offset of the table / list the fact came from (-1 for prose): rows and
    #: items of one table or list enumerate values, they do not contradict.
    group: int = -1


# --------------------------------------------------------------------------- qualifiers

_ENV_STRONG = re.compile(
    r"\b(staging|production|prod|pre-?production|preprod|uat|sandbox)\b", re.IGNORECASE
)
_ENV_WEAK = re.compile(
    r"\b(dev|development|test|testing|qa|local)\s+(?:environment|env|cluster|deployment|"
    r"instance|stage|setup|server)s?\b|\b(?:in|on|for)\s+(dev|development|test|testing|qa)"
    r"(?=\s*(?:[,;:.)]|$))",
    re.IGNORECASE,
)
_ENV_ZH = re.compile(r"(生产|测试|开发|预发布?|沙箱|本地)环境")
_ENV_CANON = {
    "prod": "production", "preproduction": "staging", "pre-production": "staging",
    "preprod": "staging", "dev": "development", "testing": "test", "生产": "production",
    "测试": "test", "开发": "development", "预发": "staging", "预发布": "staging",
    "沙箱": "sandbox", "本地": "local",
}  # fmt: skip

_PLATFORM = re.compile(
    r"\b(Windows|WINDOWS|Linux|LINUX|macOS|MacOS|Mac OS X|OS X|Android|iOS|FreeBSD)\b"
)
_PLATFORM_CANON = {"mac os x": "macos", "os x": "macos"}

_VER = r"v?\d+(?:\.(?:\d+|x))*"
_VERSION_QUAL = re.compile(
    rf"\b(?:in|since|from|as of|before|until|prior to|after|for|starting (?:with|in|from))\s+"
    rf"(?:version\s+|release\s+)?(v?\d+(?:\.(?:\d+|x))+|v\d+)\b"
    rf"|\b(?:version|release|ver\.)\s+({_VER})\b"
    rf"|(?<![\w/.\-])(v\d+(?:\.(?:\d+|x))*)(?![\w/.]*\w)"
    rf"|(?<![\w/.\-])(\d+(?:\.\d+)*\.x)\b"
    rf"|(\d+(?:\.\d+)+)\s*版本?|版本\s*(v?\d+(?:\.\d+)*)",
    re.IGNORECASE,
)
_LINK_BEFORE = re.compile(r"(?:\b(?:is|are|was|were|requires?|needs?)|[=:：])\s*$", re.IGNORECASE)

_TIME_RULES: tuple[tuple[TimeScope, re.Pattern[str]], ...] = (
    (
        "historical",
        re.compile(
            r"\b(?:previously|previous|formerly|was|were|used to|old|legacy|earlier|originally|"
            r"roll(?:ed|s)? back|rollback|downgrade[sd]?|"
            r"no longer|had been|deprecated)\b|以前|之前|原来|曾经|旧版|过去",
            re.IGNORECASE,
        ),
    ),
    (
        "planned",
        re.compile(
            r"\b(?:will|planned|plans? to|future|upcoming|next release|going to|roadmap)\b|"
            r"将会|计划|未来|即将|以后",
            re.IGNORECASE,
        ),
    ),
    (
        "current",
        re.compile(
            r"\b(?:now|currently|as of|today|new|at present|nowadays)\b|现在|目前|当前|新版",
            re.IGNORECASE,
        ),
    ),
)

_Dim = Literal["environment", "version", "platform", "time"]


@dataclass(frozen=True, slots=True)
class _Mention:
    dim: _Dim
    value: str
    start: int
    end: int


def _mentions(s: str) -> list[_Mention]:
    """Qualifier mentions in ``s`` (positions relative to ``s``)."""
    out: list[_Mention] = []
    for m in _ENV_STRONG.finditer(s):
        v = m.group(1).lower()
        out.append(_Mention("environment", _ENV_CANON.get(v, v), m.start(), m.end()))
    for m in _ENV_WEAK.finditer(s):
        v = (m.group(1) or m.group(2)).lower()
        out.append(_Mention("environment", _ENV_CANON.get(v, v), m.start(), m.end()))
    for m in _ENV_ZH.finditer(s):
        out.append(_Mention("environment", _ENV_CANON[m.group(1)], m.start(), m.end()))
    for m in _PLATFORM.finditer(s):
        v = m.group(1).lower()
        out.append(_Mention("platform", _PLATFORM_CANON.get(v, v), m.start(), m.end()))
    for m in _VERSION_QUAL.finditer(s):
        if not m.group(1) and _LINK_BEFORE.search(s[: m.start()]):
            continue  # "requires version 2.4.1": a value, not a scope
        v = next(g for g in m.groups() if g)
        out.append(_Mention("version", v.lower().lstrip("v"), m.start(), m.end()))
    for scope, pattern in _TIME_RULES:
        for m in pattern.finditer(s):
            out.append(_Mention("time", scope, m.start(), m.end()))
    return out


#: A year closing a title or header, or naming an edition: "Specifications 2023",
#: "Lumen S400 (2024)", "2024 edition".
_EDITION_YEAR = re.compile(
    r"(?<![\w.\-/:])((?:19|20)\d\d)(?=\s*(?:edition\b|[)）\]]?\s*$))", re.IGNORECASE
)


def qualifiers_in(text: str) -> Qualifiers:
    """Qualifiers stated anywhere in ``text`` (first mention per dimension).

    Used for headings and table headers; a bare version (``2.4.0``) counts here,
    and so does an edition year (``Specifications 2023`` → version ``2023``).
    """
    found: dict[str, str] = {}
    for mention in sorted(_mentions(text), key=lambda x: x.start):
        found.setdefault(mention.dim, mention.value)
    if "version" not in found:
        m = re.search(r"(?<![\w.])v?(\d+\.\d+(?:\.(?:\d+|x))?)(?![\w.]*\d)", text)
        if m:
            found["version"] = m.group(1).lower()
    if "version" not in found:
        # An edition year ("Specifications 2023", "Lumen S400 (2024)"), not a date.
        m = _EDITION_YEAR.search(text)
        if m:
            found["version"] = m.group(1)
    time = found.get("time")
    return Qualifiers(
        found.get("environment"),
        found.get("version"),
        found.get("platform"),
        time if time in ("current", "historical", "planned") else None,  # type: ignore[arg-type]
    )


# ------------------------------------------------------------------------------ subject

_LINK_TAIL = re.compile(
    r"(?:\s*(?:\b(?:is|are|was|were|be|been|being|will|would|should|must|can|may|shall|"
    r"now|currently|still|set to|defaults? to|default is|limited|to|of|equals?|"
    r"becomes?|became|changed|changes|up to|at most|at least|on|at|in|by|with|via|over|"
    r"uses|used|using|accepts|returns|expects|sends|stores|requires|supports|runs|"
    r"listens|serves|binds|speaks|exposes|has|have|had|as|its|their|up|then|only|always|"
    r"also|owned|maintained|managed|http|status|code|typically|usually|normally|about|"
    r"around|roughly|approximately|approx|exactly|generally|always|not|never|the)\b|"
    r"(?-i:\ba|\ban)\b|n't|[=:：]|状态码|默认|设置为|设为|改为|等于|采用|使用|为|是|已|被|未|不|没有?))+"
    r"\s*$",
    re.IGNORECASE,
)
_NP_STOP = frozenset(
    _words(
        "the a an this that these those each every all any some our your their its my is are "
        "was were be been will would should must can may shall in on at to from by with via "
        "over under into onto and or but while whereas when if then than as so not no uses use "
        "used using accepts returns expects sends stores requires supports runs listens serves "
        "binds speaks exposes has have had does do did also only always now currently still "
        "previously formerly originally set defaults default limited equals becomes became "
        "changed where which who after before since until per there"
    )
)
_PRONOUNS = frozenset(_words("it this that they these those which its"))
_DROP_WORDS = frozenset(
    _words(
        "default defaults new old current currently legacy previous previously the a an "
        "environment env cluster deployment"
    )
)
_TOKEN = re.compile(r"[A-Za-z0-9_.\-/{}~$'’]+|[\u3400-\u9fff]+|\S")
_ZH_SUBJECT_PREFIX = re.compile(r"^(?:在|于)?(?:[^，。]*?环境|Windows|Linux|macOS)(?:中|下|上|里)?")
_ZH_DROP = re.compile(
    r"(?:生产|测试|开发|预发布?|沙箱|本地)环境(?:中|下|里)?|默认(?:的)?|当前|目前"
)
_VERB_BRIDGE = re.compile(
    r"([\w.\-/ ]+?)\s+(?:listens?|runs?|serves?|binds?|is served|is exposed|is available)"
    r"(?:\s+(?:on|at|over|via|with|in|to))?\s*$",
    re.IGNORECASE,
)
_HAS_BRIDGE = re.compile(
    r"^(.*?\S)\s+(?:has|have|covers|offers|provides|features|comes with|ships with)\s+"
    r"(?:a|an|the)?\s*$",
    re.IGNORECASE,
)
_ATTR_NOUNS = frozenset(("port", "format", "protocol"))
_PRONOUN = "\x00pronoun"


#: Prepositions a noun phrase continues across ("prevalence of diabetes in Ghana").
_NP_JOINERS = frozenset(_words("of for in from among"))


def _np(left: str) -> str:
    """The noun phrase ending ``left`` (link words already stripped).

    The phrase continues across :data:`_NP_JOINERS` when a noun follows them:
    "the prevalence of diabetes in Ghana" is about prevalence of diabetes, not about
    "Ghana" (cut there, "prevalence of hypertension in Ghana" had the same subject).
    """
    toks = _TOKEN.findall(left)
    words: list[str] = []
    for tok in reversed(toks):
        low = tok.lower()
        if tok in ",;:()[]\"“”'" or not tok.strip():
            break
        if low in _NP_STOP and not (low in _NP_JOINERS and words):
            break
        if low in _NP_JOINERS and not words:
            break
        words.append(tok)
        if len(words) >= 6:
            break
    words.reverse()
    while words and words[0].lower() in _NP_JOINERS:
        words.pop(0)
    return " ".join(words)


def _clean_subject(np: str, mentions: list[_Mention]) -> str:
    s = np.replace("`", "").replace("*", "").strip()
    s = _ZH_SUBJECT_PREFIX.sub("", s) if re.search(r"[\u3400-\u9fff]", s) else s
    s = _ZH_DROP.sub("", s)
    m = _PATH.search(s)
    if m and m.group(2) and (m.group(1) or _path_kind(None, m.group(2), s) == "endpoint"):
        method = m.group(1)
        return f"{method.upper()} {m.group(2)}" if method else m.group(2)
    words = []
    for w in s.split():
        low = w.lower().strip("'’")
        if low.endswith(("'s", "’s")):
            low = low[:-2]
        if low in _DROP_WORDS or low in _NP_STOP:
            continue
        if any(low == mm.value or low in ("prod", "dev") for mm in mentions) and (
            _ENV_STRONG.fullmatch(low) or _PLATFORM.fullmatch(w) or re.fullmatch(r"v\d+", low)
        ):
            continue
        if _ENV_STRONG.fullmatch(low) or _PLATFORM.fullmatch(w) or re.fullmatch(r"v\d+", low):
            continue
        words.append(low)
    # "owner of the sync service" → "sync service owner"
    if len(words) >= 3 and "of" in words[1:-1]:
        i = words.index("of")
        head = words[:i]
        if head and head[-1] in ("owner", "port", "format", "protocol", "endpoint", "location"):
            words = words[i + 1 :] + head
    return " ".join(words).strip(" -:")


def _subject_for(
    clause: str, value: _Value, values: list[_Value], mentions: list[_Mention]
) -> str | None:
    """Subject phrase for ``value`` from the text left of it in ``clause``."""
    cut = 0
    for other in values:
        if other.end <= value.start and other.kind not in ("endpoint", "location"):
            cut = max(cut, other.end)
    left = clause[cut : value.start]
    # Qualifier phrases are scope, not subject: blank them out.
    for mm in mentions:
        if cut <= mm.start and mm.end <= value.start and mm.dim != "time":
            a, b = mm.start - cut, mm.end - cut
            left = left[:a] + " " * (b - a) + left[b:]
    for pattern, _ in ((_LINK_TAIL, None),):
        left = pattern.sub("", left)
    np = _np(left)
    if np.lower() in _ATTR_NOUNS:
        bridge = _VERB_BRIDGE.search(left[: len(left.rstrip()) - len(np)].rstrip())
        if bridge:
            np = f"{_np(bridge.group(1))} {np}"
    if np and np.lower() not in _PRONOUNS:
        # "The Lumen S200 covers a wavelength range of …": the owner of the
        # property is the sentence subject before the verb.
        head = left.rstrip()[: len(left.rstrip()) - len(np)]
        owner = _HAS_BRIDGE.search(head)
        if owner:
            owner_np = _np(owner.group(1))
            if owner_np and owner_np.lower() not in _PRONOUNS:
                np = f"{owner_np} {np}"
    if not np:
        return None
    if np.lower() in _PRONOUNS:
        return _PRONOUN
    subject = _clean_subject(np, mentions)
    return subject or None


# ---------------------------------------------------------------------------- sentences

_CLAUSE_SPLIT = re.compile(r"[;；,，]|\s(?:but|while|whereas|and|whilst)\s|\(|\)", re.I)
_MASK_PREFIX = re.compile(
    r"^(?:\s*>\s?)*\s*(?:[-*+•]\s+|\d{1,3}[.)]\s+)?(?:\*\*|__)?"
    r"(?:(?:note|tip|warning|important|caution|prerequisites?|注意|提示)\s*[:：]\s*"
    r"(?:\*\*|__)?)?",
    re.IGNORECASE,
)


def _mask(text: str) -> str:
    """Same-length copy of ``text`` with Markdown scaffolding blanked out."""
    m = _MASK_PREFIX.match(text)
    s = " " * m.end() + text[m.end() :] if m else text
    return re.sub(r"\*\*|__|`", lambda x: " " * len(x.group(0)), s)


def _clauses(s: str) -> list[tuple[int, int]]:
    bounds = [0]
    for m in _CLAUSE_SPLIT.finditer(s):
        bounds.extend((m.start(), m.end()))
    bounds.append(len(s))
    return [(bounds[i], bounds[i + 1]) for i in range(0, len(bounds), 2)]


def _pick(dim: _Dim, pos: int, clause: tuple[int, int], mentions: list[_Mention]) -> str | None:
    own = [m for m in mentions if m.dim == dim]
    if not own:
        return None
    inside = [m for m in own if clause[0] <= m.start and m.end <= clause[1]]
    if inside:
        return min(inside, key=lambda m: abs(m.start - pos)).value
    before = [m for m in own if m.end <= clause[0]]
    if before:
        return max(before, key=lambda m: m.start).value
    if len({m.value for m in own}) == 1:
        return own[0].value
    return None


def _sentence_facts(
    span: Span, base: Qualifiers, prev_subject: str | None, doc_path: str, heading: tuple[str, ...]
) -> list[Fact]:
    s = _mask(span.text)
    mentions = _mentions(s)
    masked = [(m.start, m.end) for m in mentions if m.dim == "version"]
    values = _values(s, masked)
    facts: list[Fact] = []
    subject_prev = prev_subject
    clauses = _clauses(s)
    condition = framing_condition(s)
    if condition and any(m.dim != "time" for m in _mentions(condition)):
        condition = None  # "In staging," is an environment, already a qualifier
    for value in values:
        clause = next((c for c in clauses if c[0] <= value.start < c[1]), (0, len(s)))
        in_clause = [v for v in values if clause[0] <= v.start and v.end <= clause[1]]
        rel = _Value(value.kind, value.value, value.start - clause[0], value.end - clause[0], 0)
        rel_vals = [
            _Value(v.kind, v.value, v.start - clause[0], v.end - clause[0], 0) for v in in_clause
        ]
        rel_mentions = [
            _Mention(m.dim, m.value, m.start - clause[0], m.end - clause[0])
            for m in mentions
            if clause[0] <= m.start and m.end <= clause[1]
        ]
        subject = _subject_for(s[clause[0] : clause[1]], rel, rel_vals, rel_mentions)
        if subject is None and in_brackets(s, value.start) and not rel_mentions:
            continue  # "(95% CI 1.26 to 2.23)", "(n = 53)": annotations of the value before
        if subject is None or subject == _PRONOUN:
            # Empty phrase: continue this sentence's subject; a pronoun may also
            # refer to the previous sentence's last subject.
            inherited = subject_prev if (facts or subject == _PRONOUN) else None
            if inherited is None:
                continue
            subject = inherited
            if facts and value.kind == "count" and facts[-1].attribute in ("port", "status_code"):
                value = replace(value, kind=facts[-1].attribute)
        if not re.search(r"[^\W\d_]", subject):
            continue  # "–" of "30–90 s", stray symbols: no subject
        if _is_bare_number_noise(subject) and value.kind in ("count", "duration", "endpoint"):
            continue
        if value.kind in _NUMERIC_KINDS and (
            is_statistic_label(subject) or is_bound(s[clause[0] : value.start])
        ):
            continue  # "P < 0.05", "n = 150", "CD4 ≤500": statistics and bounds, not values
        if value.kind == "percent" and is_confidence_level(s[value.end :]):
            continue  # the 95 of "95% CI" is a convention, not a proportion
        if value.kind == "count" and is_unlinked_count(s[clause[0] : value.start], s[value.end :]):
            continue  # "the 6846 women": a number inside a noun phrase states no value
        if value.kind == "status_code":
            # Status codes are conditional ("503 when overloaded"): the condition
            # is part of what the code is the value *of*.
            cond = _CONDITION.search(s[value.end : clause[1]])
            if cond:
                subject = subject + " " + " ".join(cond.group(0).lower().split())
        subject_prev = subject
        quals = Qualifiers(
            _pick("environment", value.start, clause, mentions),
            _pick("version", value.start, clause, mentions),
            _pick("platform", value.start, clause, mentions),
            _pick("time", value.start, clause, mentions),  # type: ignore[arg-type]
            condition,
        ).over(base)
        facts.append(
            Fact(
                subject=subject,
                attribute=value.kind,
                value=value.value,
                raw_value=span.text[value.start : value.end],
                start=span.start,
                end=span.end,
                text=span.text,
                value_start=span.start + value.start,
                value_end=span.start + value.end,
                qualifiers=quals,
                doc_path=doc_path,
                heading_path=heading,
            )
        )
    return facts


_NUMERIC_KINDS = frozenset(
    _words("count duration length size percent temperature voltage frequency volume mass")
)
_CONDITION = re.compile(r"\b(?:when|if|on|for|after|unless)\b[^.;,]*", re.IGNORECASE)


def _is_bare_number_noise(subject: str) -> bool:
    return bool(
        re.fullmatch(
            r"[\d\s.]*|steps?|sections?|items?|pages?|figures?|tables?|see|refer|use|run|"
            r"click|press|type|waits?|read|repeat|choose|select|calls?|exits?|returns?|"
            r"prints?|install|send|sends|retry",
            subject,
        )
    )


# -------------------------------------------------------------------------------- tables

_KEY_HEADERS = re.compile(
    r"^(?:key|setting|settings|parameter|param|option|name|field|config(?:uration)?|"
    r"property|item|service|component|endpoint|part|variable|名称|参数|配置项|字段|项)$",
    re.IGNORECASE,
)
_QUAL_HEADERS: dict[str, _Dim] = {
    "environment": "environment", "env": "environment", "环境": "environment",
    "platform": "platform", "os": "platform", "平台": "platform",
    "version": "version", "release": "version", "版本": "version",
}  # fmt: skip
_GENERIC_HEADERS = frozenset(
    _words("default defaults value values setting current new old previous legacy 默认值 值 取值")
)
_HEADER_KIND = (
    (re.compile(r"\bports?\b|端口", re.I), "port"),
    (re.compile(r"\bowners?\b|maintainer|负责人", re.I), "owner"),
    (re.compile(r"\bformat\b|payload|格式", re.I), "format"),
    (re.compile(r"\bprotocol\b|协议", re.I), "protocol"),
    (re.compile(r"\bengine\b|database|storage|存储", re.I), "engine"),
    (re.compile(r"\bendpoint\b|route|url", re.I), "endpoint"),
    (re.compile(r"\bpath\b|location|路径", re.I), "location"),
    (re.compile(r"\bstatus\b", re.I), "status_code"),
)
_EMPTY_CELL = frozenset(("", "-", "—", "–", "n/a", "na", "none", "/"))
#: Columns that list admissible values, not the value: never facts.
_OPTION_HEADERS = re.compile(
    r"allowed|accepted|options?|choices|possible|valid|range|values|可选|取值范围", re.I
)


def _cells(row: str) -> list[tuple[int, int]]:
    """(start, end) of each cell's trimmed content inside a ``| a | b |`` row."""
    out: list[tuple[int, int]] = []
    bars = [i for i, ch in enumerate(row) if ch == "|" and (i == 0 or row[i - 1] != "\\")]
    if not bars:
        return out
    if bars[0] != len(row) - len(row.lstrip()):
        bars.insert(0, -1)
    if bars[-1] != len(row.rstrip()) - 1:
        bars.append(len(row))
    for a, b in pairwise(bars):
        s, e = a + 1, b
        while s < e and row[s].isspace():
            s += 1
        while e > s and row[e - 1].isspace():
            e -= 1
        out.append((s, e))
    return out


_GENERIC_ONLY = re.compile(r"(?i)values?|default values?")


def _header_noun(header: str) -> str:
    s = re.sub(r"\([^)]*\)|（[^）]*）", " ", header.lower())
    words = [
        w
        for w in re.findall(r"[\w.\-]+", s)
        if w not in _GENERIC_HEADERS
        and not _ENV_STRONG.fullmatch(w)
        and not re.fullmatch(r"v?\d+(?:\.(?:\d+|x))*", w)
    ]
    return " ".join(words)


def _row_facts(
    span: Span, header: list[str], base: Qualifiers, doc_path: str, heading: tuple[str, ...]
) -> list[Fact]:
    row = _mask(span.text)
    cells = _cells(row)
    if len(cells) != len(header) or len(cells) < 2:
        return []
    key_col = next((i for i, h in enumerate(header) if _KEY_HEADERS.match(h.strip())), 0)
    if not any(_KEY_HEADERS.match(h.strip()) for h in header):
        for i, (a, b) in enumerate(cells):
            found_path = _PATH.fullmatch(row[a:b].strip("` "))
            if found_path and _path_kind(None, found_path.group(2), "endpoint") == "endpoint":
                key_col = i
                break
    key = row[cells[key_col][0] : cells[key_col][1]].strip()
    if key.lower() in _EMPTY_CELL:
        return []
    row_quals: dict[str, str] = {}
    for i, h in enumerate(header):
        dim = _QUAL_HEADERS.get(h.strip().lower())
        if dim and i != key_col:
            cell = row[cells[i][0] : cells[i][1]].strip()
            if cell.lower() not in _EMPTY_CELL:
                q = qualifiers_in(cell)
                found = getattr(q, dim) or cell.lower().lstrip("v")
                row_quals[dim] = _ENV_CANON.get(found, found)
    row_q = Qualifiers(
        row_quals.get("environment"), row_quals.get("version"), row_quals.get("platform")
    )
    key_subject = _clean_subject(key, []) or key.lower()
    facts: list[Fact] = []
    for i, (a, b) in enumerate(cells):
        h = header[i].strip()
        if i == key_col or h.lower() in _QUAL_HEADERS:
            continue
        cell = row[a:b]
        if cell.strip().lower() in _EMPTY_CELL or (
            _OPTION_HEADERS.search(h) and not _GENERIC_ONLY.fullmatch(h.strip())
        ):
            continue
        noun = _header_noun(h)
        subject = f"{key_subject} {noun}".strip() if noun else key_subject
        hint = next((k for p, k in _HEADER_KIND if p.search(h)), None)
        found = _values(cell, [])
        if found:
            v = found[0]
            kind, value, vs, ve = v.kind, v.value, v.start, v.end
            if hint and kind == "count" and hint in ("port", "status_code"):
                kind = hint
        elif hint in ("owner", "format", "protocol", "engine", "location", "endpoint"):
            kind, value, vs, ve = hint, cell.strip().lower(), 0, len(cell)
        else:
            kind, value, vs, ve = "text", re.sub(r"\s+", " ", cell.strip().lower()), 0, len(cell)
        quals = row_q.over(qualifiers_in(h)).over(base)
        facts.append(
            Fact(
                subject=subject,
                attribute=kind,
                value=value,
                raw_value=span.text[a + vs : a + ve],
                start=span.start,
                end=span.end,
                text=span.text,
                value_start=span.start + a + vs,
                value_end=span.start + a + ve,
                qualifiers=quals,
                doc_path=doc_path,
                heading_path=heading,
            )
        )
    return facts


# ----------------------------------------------------------------------------- top level

_DELIM_LINE = re.compile(r"[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*")


def _heading_quals(headings: Sequence[str]) -> Qualifiers:
    q = Qualifiers()
    for h in headings:  # deeper headings win
        q = qualifiers_in(h).over(q)
    return q


_FENCE = re.compile(r"^[ \t]{0,3}(```+|~~~+)", re.MULTILINE)


def _fenced_ranges(text: str) -> list[tuple[int, int]]:
    """Character ranges of fenced code blocks (an unclosed fence runs to the end)."""
    out: list[tuple[int, int]] = []
    opened: tuple[int, str] | None = None
    for m in _FENCE.finditer(text):
        if opened is None:
            opened = (m.start(), m.group(1)[0])
        elif m.group(1)[0] == opened[1]:
            out.append((opened[0], text.find("\n", m.end()) % (len(text) + 1) or len(text)))
            opened = None
    if opened is not None:
        out.append((opened[0], len(text)))
    return out


def extract_facts(
    text: str,
    *,
    base_offset: int = 0,
    heading_path: Sequence[str] = (),
    doc_path: str = "",
    table_header: Sequence[str] | None = None,
) -> list[Fact]:
    """Comparable facts stated in ``text`` (prose, lists, Markdown tables).

    ``heading_path`` qualifies every fact (innermost heading wins); Markdown
    headings inside ``text`` extend it for what follows them.  ``table_header``
    gives the header cells for table rows that arrive without their header line.
    """
    text_nfc = unicodedata.normalize("NFC", text) if not text.isascii() else text
    if len(text_nfc) != len(text):
        text_nfc = text
    headings = list(heading_path)
    inner: list[tuple[int, str]] = []
    header: list[str] | None = list(table_header) if table_header else None
    prev_subject: str | None = None
    facts: list[Fact] = []
    group = -1
    prev_kind = ""
    # Code is not prose ("retries=5" in an example states nothing): fenced blocks
    # are blanked (same length, newlines kept) before splitting into units.
    prose = text_nfc
    for a, b in _fenced_ranges(text_nfc):
        prose = prose[:a] + re.sub(r"[^\n]", " ", prose[a:b]) + prose[b:]
    for span in split_sentences(prose, base_offset):
        path = tuple(headings + [h for _, h in inner])
        base = _heading_quals(path)
        if span.kind == "heading":
            level = len(span.text) - len(span.text.lstrip("#"))
            inner = [(lv, h) for lv, h in inner if lv < level]
            inner.append((level, span.text.lstrip("#").strip()))
            header = list(table_header) if table_header else None
            prev_subject = None
            prev_kind = "heading"
            continue
        if span.kind == "table_row":
            rel_end = span.end - base_offset
            nl = text_nfc.find("\n", rel_end)
            nxt = text_nfc[nl + 1 : text_nfc.find("\n", nl + 1) % (len(text_nfc) + 1)]
            if nl >= 0 and _DELIM_LINE.fullmatch(nxt.rstrip("\r")):
                row = _mask(span.text)
                header = [row[a:b] for a, b in _cells(row)]
                continue
            if header:
                if prev_kind != "table_row":
                    group = span.start
                rows = _row_facts(span, header, base, doc_path, path)
                facts.extend(replace(f, group=group) for f in rows)
            prev_kind = "table_row"
            continue
        if not table_header:
            header = None
        if span.kind == "list_item" and prev_kind != "list_item":
            group = span.start
        found = _sentence_facts(span, base, prev_subject, doc_path, path)
        if span.kind == "list_item":
            found = [replace(f, group=group) for f in found]
        prev_kind = span.kind
        facts.extend(found)
        prev_subject = found[-1].subject if found else None
    return [replace(f, heading_path=tuple(f.heading_path)) for f in facts]
