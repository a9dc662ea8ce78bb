"""Document roles: a change record (release notes, a changelog, an upgrade guide) is the
history of a project, not its reference.

Release notes repeat the reference's words ("`typer` now comes with the default optional
dependencies") in entries about one release, so term overlap and meaning both rank them
as high as the page that documents the behaviour. For a question about how something is or
works, the reference page should answer; for a question about a release, a version, a
change or an upgrade, the change record is the right source. :func:`role_factor` is the
weight a unit of a document gets for a question: below 1 for a change record asked about
anything but change, 1 otherwise.

The roles are read from what any documentation set shows: the file name and the
document's title (its first heading), never from one project's layout.
"""

from __future__ import annotations

import re

from citewise.analysis.question import Question

__all__ = ["CHANGE_RECORD_FACTOR", "asks_about_change", "is_change_record", "role_factor"]

#: The weight of a change record's units for a question that is not about change.
CHANGE_RECORD_FACTOR = 0.8

_CHANGE_NAME = re.compile(
    r"(?:^|[\s/_.-])(?:release[\s_-]?notes?|change[\s_-]?log|changes|news|history|"
    r"what'?s[\s_-]?new|upgrad(?:e|ing)(?:[\s_-]?guides?)?|migrat(?:e|ion|ing)(?:[\s_-]?guides?)?)"
    r"(?:$|[\s/_.-])",
    re.IGNORECASE,
)
#: A question about change: a version or release named, or a word of change.
_ASKS_CHANGE = re.compile(
    r"\b(?:v?\d+\.\d+(?:\.\d+)*|versions?|releases?|released|changelog|changes?|changed|"
    r"new in|added in|introduced|since|deprecat\w*|removed|renamed|upgrad\w*|migrat\w*|"
    r"history|breaking|backward\w*|compatib\w*)\b",
    re.IGNORECASE,
)


def is_change_record(path: str, title: str = "") -> bool:
    """Whether a document is a change record, by its file name (without the extension)
    or its title."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    stem = name.rsplit(".", 1)[0] if "." in name else name
    return bool(_CHANGE_NAME.search(f" {stem} ")) or bool(
        title and _CHANGE_NAME.search(f" {title} ")
    )


def asks_about_change(question: Question) -> bool:
    """Whether a question asks about a release, a version or a change."""
    return bool(_ASKS_CHANGE.search(question.text))


def role_factor(question: Question, path: str, title: str = "") -> float:
    """The weight of a document's units for ``question`` (see the module docstring)."""
    if is_change_record(path, title) and not asks_about_change(question):
        return CHANGE_RECORD_FACTOR
    return 1.0
