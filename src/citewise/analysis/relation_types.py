"""The relation types and their vocabulary (read by :mod:`citewise.analysis.relations`).

Each type names its phrases once, in base form (see the reader's docstring for how
inflections, the passive and Chinese 被 are read): ``forward`` phrases state ``X kind Y``
when written ``X phrase Y``, ``inverse`` ones ``Y kind X``; ``label_only`` phrases type a
diagram label but never make a question a relation question; ``wh_only`` types ask a
relation only as the verb of a what/which/who question.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

RelationKind = Literal[
    "part_of",
    "references",
    "precedes",
    "requires",
    "uses",
    "configures",
    "causes",
    "degrades",
    "contrasts_with",
    "analogous_to",
    "supersedes",
    "amends",
    "replaces",
    "repeals",
    "other",
]


@dataclass(frozen=True, slots=True)
class RelationType:
    """One relation type and every way the vocabulary reads it (see the module docstring).
    ``names`` says the relation from each side: (source first, target first)."""

    kind: RelationKind
    names: tuple[str, str]
    zh_name: str
    forward: tuple[str, ...] = ()
    inverse: tuple[str, ...] = ()
    label_only: tuple[str, ...] = ()
    label_only_inverse: tuple[str, ...] = ()
    zh: tuple[str, ...] = ()
    zh_inverse: tuple[str, ...] = ()
    wh_only: bool = False


VOCABULARY: tuple[RelationType, ...] = (
    RelationType(
        "supersedes",
        ("supersedes", "superseded by"),
        "取代",
        forward=("supersede", "obsolete"),
        zh=("取代",),
    ),
    RelationType(
        "replaces",
        ("replaces", "replaced by"),
        "替代",
        forward=("replace", "succeed", "successor of", "replacement for", "replacement of"),
        inverse=("predecessor of",),
        zh=("替代", "替换", "接替", "继任"),
    ),
    RelationType(
        "amends",
        ("amends", "amended by"),
        "修订",
        forward=("amend", "modify"),
        zh=("修订", "修正", "修改"),
    ),
    RelationType(
        "repeals",
        ("repeals", "repealed by"),
        "废止",
        forward=("repeal", "revoke", "abrogate"),
        zh=("废止", "废除"),
    ),
    RelationType(
        "requires",
        ("requires", "required by"),
        "需要",
        forward=("require", "need", "depend on", "dependent on", "rely on", "prerequisite"),
        inverse=(
            "prerequisite for",
            "prerequisite of",
            "dependency of",
            "requirement of",
            "requirement for",
            "enable",
            "needed for",
        ),
        zh=("需要", "依赖", "依靠", "要求", "前提"),
    ),
    RelationType(
        "uses",
        ("uses", "used by"),
        "使用",
        forward=("use", "call", "invoke", "consume"),
        zh=("使用", "调用", "采用"),
        wh_only=True,
    ),
    RelationType(
        "configures",
        ("configures", "configured by"),
        "配置",
        forward=("configure", "set up"),
        zh=("配置",),
        wh_only=True,
    ),
    RelationType(
        "degrades",
        ("degrades", "degraded by"),
        "降低",
        forward=("degrade", "weaken", "impair", "damage", "worsen", "erode"),
        zh=("降低", "劣化", "损害", "削弱", "减弱", "破坏"),
    ),
    RelationType(
        "causes",
        ("causes", "caused by"),
        "导致",
        forward=(
            "cause",
            "lead to",
            "led to",
            "result in",
            "trigger",
            "produce",
            "yield",
            "affect",
        ),
        inverse=("result from", "due to", "because of"),
        label_only=("raise", "therefore"),
        zh=("导致", "引起", "造成", "触发", "引发", "影响"),
    ),
    RelationType(
        "precedes",
        ("precedes", "preceded by"),
        "先于",
        forward=("precede", "come before", "go before"),
        inverse=("follow", "come after"),
        label_only=(
            "then",
            "next",
            "before",
            "go to",
            "proceed to",
            "continue to",
            "continue with",
            "lead into",
        ),
        label_only_inverse=("after",),
        zh=("先于", "然后", "之后", "下一步"),
    ),
    RelationType(
        "part_of",
        ("is part of", "has part"),
        "属于",
        forward=(
            "part of",
            "belong to",
            "member of",
            "contained in",
            "component of",
            "subset of",
            "included in",
        ),
        inverse=("contain", "include", "consist of", "comprise", "made up of", "made of"),
        zh=("属于", "隶属", "组成部分", "组成"),
        zh_inverse=("包含", "包括"),
    ),
    RelationType(
        "contrasts_with",
        ("contrasts with", "contrasts with"),
        "对比",
        label_only=(
            "vs",
            "versus",
            "differ from",
            "different from",
            "contrast with",
            "contrasting",
            "compare to",
            "compare with",
            "compared to",
            "compared with",
            "unlike",
            "opposite of",
            "alternative to",
            "instead of",
            "rather than",
        ),
        zh=("对比", "区别", "不同于"),
    ),
    RelationType(
        "analogous_to",
        ("is analogous to", "is analogous to"),
        "类似",
        label_only=(
            "similar to",
            "analogous to",
            "analogous",
            "like",
            "same as",
            "equivalent to",
            "equivalent",
            "resemble",
            "correspond to",
            "akin to",
            "mirror",
        ),
        zh=("类似", "相似"),
    ),
    RelationType(
        "references",
        ("references", "referenced by"),
        "参见",
        label_only=("see", "refer to", "reference", "cite", "mention", "link to"),
        zh=("参见", "引用"),
    ),
)
BY_KIND: dict[str, RelationType] = {t.kind: t for t in VOCABULARY}
