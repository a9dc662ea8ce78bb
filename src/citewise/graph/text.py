"""Text helpers for the graph: title normalisation, heading slugs, relation vocabularies."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from citewise.graph.models import RelationKind

_MARKUP = re.compile(r"[`*_~\"'“”‘’()\[\]{}<>!?.,:;]+")
_NUMBERING = re.compile(r"^(?:(?:\d+|[ivxlc]+|[a-z])[.)]|\d+(?:\.\d+)+\.?|§+\s*\d+(?:\.\d+)*)\s+")
_SPACE = re.compile(r"\s+")
_QUESTION = re.compile(r"^(?:what (?:is|are) (?:an? |the )?)", re.IGNORECASE)


@lru_cache(maxsize=1 << 16)
def norm_title(text: str) -> str:
    """Case-folded, markup-free, numbering-free title for equality tests.

    ``"2.1 **Retry policy**"``, ``"Retry Policy"`` and ``"retry policy:"`` all normalise to
    ``"retry policy"``; hyphens count as spaces (``dead-letter`` equals ``dead letter``).
    """
    t = unicodedata.normalize("NFKC", text).casefold().strip()
    t = _NUMBERING.sub("", t)
    t = _MARKUP.sub(" ", t.replace("-", " ").replace("/", " "))
    return _SPACE.sub(" ", t).strip()


@lru_cache(maxsize=1 << 16)
def subject_title(text: str) -> str:
    """The subject a heading defines: ``"What is a workspace?"`` -> ``"workspace"``."""
    return norm_title(_QUESTION.sub("", text.strip()))


def slugify(heading: str) -> str:
    """GitHub-style anchor: lower case, punctuation dropped, spaces to hyphens."""
    s = unicodedata.normalize("NFKC", heading).strip().lower()
    s = "".join(ch for ch in s if ch.isalnum() or ch in " -_")
    return s.replace(" ", "-")


_BIBLIO = re.compile(
    r"^(?:references?|bibliography|works cited|citations?|sources?|see also|further reading|"
    r"related(?: pages| links| documents| reading)?|external links|links|footnotes|notes and "
    r"references|参考文献|参考资料|另见|相关(?:页面|链接|文档|阅读)?|延伸阅读)$"
)


def is_bibliographic(title: str) -> bool:
    """References / Bibliography / See also / Related pages sections."""
    return bool(_BIBLIO.match(norm_title(title)))


# -- relation vocabulary ---------------------------------------------------------------
# (pattern, kind, reversed): ``reversed`` means the phrase states the relation from the
# target's side ("superseded by", "follows"), so the edge is stored the other way round.
_PHRASES: tuple[tuple[str, RelationKind, bool], ...] = (
    # edition relations first: "replaced by" must not be read as "replaces"
    (r"superseded by|obsoleted by", "supersedes", True),
    (r"supersedes?|superseding|obsoletes?", "supersedes", False),
    (r"amended by|modified by", "amends", True),
    (r"amends?|amending|modifies", "amends", False),
    (r"replaced by", "replaces", True),
    (r"replaces?|replacing", "replaces", False),
    (r"repealed by|revoked by", "repeals", True),
    (r"repeals?|repealing|revokes?|abrogates?", "repeals", False),
    # comparison
    (
        r"vs\.?|versus|differs? from|different from|contrasts? with|contrasting|compared? "
        r"(?:to|with)|unlike|opposite of|alternative to|instead of|rather than",
        "contrasts_with",
        False,
    ),
    (
        r"similar to|analogous to|analogous|like|same as|equivalent to|equivalent|resembles?|"
        r"corresponds? to|akin to|mirrors",
        "analogous_to",
        False,
    ),
    # dependency
    (r"required by|needed by|prerequisite (?:of|for)|enables", "requires", True),
    (
        r"requires?|needs?|depends? on|dependent on|relies on|prerequisite|uses",
        "requires",
        False,
    ),
    # causality
    (
        r"caused by|results? from|due to|because of|triggered by|degraded by|impaired by|"
        r"damaged by",
        "causes",
        True,
    ),
    (
        r"causes?|caused|leads? to|led to|results? in|triggers?|produces|yields|"
        r"raises|therefore|degrades?|impairs?|damages?|worsens?",
        "causes",
        False,
    ),
    # sequence
    (r"follows|comes after|preceded by|after", "precedes", True),
    (
        r"precedes|preceding|then|next|before|followed by|goes to|proceeds to|continues "
        r"(?:to|with)|leads into",
        "precedes",
        False,
    ),
    # containment
    (r"contains|includes|consists of|comprises", "part_of", True),
    (r"part of|belongs to|member of|contained in|component of|subset of", "part_of", False),
    (r"see|refers to|references|cites|mentions|links to", "references", False),
)
_COMPILED = tuple(
    (re.compile(rf"(?<![\w-])(?:{p})(?![\w-])"), kind, rev) for p, kind, rev in _PHRASES
)
_CJK: tuple[tuple[str, RelationKind, bool], ...] = (
    ("取代", "supersedes", False),
    ("替代", "replaces", False),
    ("修订", "amends", False),
    ("废止", "repeals", False),
    ("对比", "contrasts_with", False),
    ("区别", "contrasts_with", False),
    ("不同于", "contrasts_with", False),
    ("类似", "analogous_to", False),
    ("相似", "analogous_to", False),
    ("依赖", "requires", False),
    ("需要", "requires", False),
    ("导致", "causes", False),
    ("引起", "causes", False),
    ("触发", "causes", False),
    ("降低", "causes", False),
    ("劣化", "causes", False),
    ("损害", "causes", False),
    ("然后", "precedes", False),
    ("之后", "precedes", False),
    ("下一步", "precedes", False),
    ("属于", "part_of", False),
    ("包含", "part_of", True),
    ("参见", "references", False),
)


def label_kind(label: str) -> tuple[RelationKind, bool] | None:
    """Map a free-text relation label to ``(kind, reversed)``; ``None`` if unrecognised.

    A label may carry a condition before the verb ("on failure, causes"; "after 5 failed
    attempts, causes"), so comma-separated clauses are tried from the last one back.
    """
    text = unicodedata.normalize("NFKC", label).casefold().replace("_", " ").strip()
    clauses = [c.strip() for c in re.split(r"[,;:，；：]", text) if c.strip()]
    for clause in reversed(clauses):
        for pattern, kind, rev in _COMPILED:
            if pattern.search(clause):
                return kind, rev
        for word, kind, rev in _CJK:
            if word in clause:
                return kind, rev
    return None


#: Front-matter ``relations: [{type: …}]`` types; anything else is read with ``label_kind``.
_TYPES: dict[str, tuple[RelationKind, bool]] = {
    "references": ("references", False),
    "see_also": ("references", False),
    "requires": ("requires", False),
    "depends_on": ("requires", False),
    "required_by": ("requires", True),
    "part_of": ("part_of", False),
    "has_part": ("part_of", True),
    "precedes": ("precedes", False),
    "follows": ("precedes", True),
    "causes": ("causes", False),
    "caused_by": ("causes", True),
    "contrasts_with": ("contrasts_with", False),
    "analogous_to": ("analogous_to", False),
    "supersedes": ("supersedes", False),
    "superseded_by": ("supersedes", True),
    "amends": ("amends", False),
    "amended_by": ("amends", True),
    "replaces": ("replaces", False),
    "replaced_by": ("replaces", True),
    "repeals": ("repeals", False),
    "repealed_by": ("repeals", True),
}


def relation_type_kind(rel_type: str) -> tuple[RelationKind, bool]:
    key = re.sub(r"[\s-]+", "_", rel_type.strip().casefold())
    if key in _TYPES:
        return _TYPES[key]
    got = label_kind(rel_type.replace("_", " "))
    return got if got is not None else ("other", False)
