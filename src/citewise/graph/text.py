"""Text helpers for the graph: title normalisation, heading slugs, relation vocabularies."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from citewise.analysis.relations import RelationKind, label_relation

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
def label_kind(label: str) -> tuple[RelationKind, bool] | None:
    """Map a free-text relation label to ``(kind, reversed)``; ``None`` if unrecognised.

    The vocabulary, its inflections and the passive rule are
    :func:`citewise.analysis.relations.label_relation`'s; a label may carry a condition
    before the verb ("on failure, causes"), so its clauses are read from the last one back.
    """
    return label_relation(label)


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
    "degrades": ("degrades", False),
    "degraded_by": ("degrades", True),
    "uses": ("uses", False),
    "used_by": ("uses", True),
    "configures": ("configures", False),
    "configured_by": ("configures", True),
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
