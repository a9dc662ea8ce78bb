"""Subject phrases for :mod:`citewise.sufficiency.facts`: the noun phrase a value is
stated about, left of the value in its clause."""

from __future__ import annotations

import re

from citewise.sufficiency._model import _words
from citewise.sufficiency._qualifiers import _ENV_STRONG, _PLATFORM, _Mention
from citewise.sufficiency._values import PATH as _PATH
from citewise.sufficiency._values import Value as _Value
from citewise.sufficiency._values import path_kind as _path_kind

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
