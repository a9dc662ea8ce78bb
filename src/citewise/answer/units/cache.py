"""Answer units kept with the index state, per document version.

A version's units (:func:`~citewise.answer.units.structure.document_units`) depend on its nodes
alone, and a version never changes, so once its nodes were read whole the units are kept
with the published index state (dropped with it) and the next question that reads the
version skips the node read and the cutting. A version read as a window (too many nodes)
is cut per question, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from citewise.answer.units.structure import Unit, document_units
from citewise.evidence.models import Fragment
from citewise.evidence.nodes import NodeReader, Span, spans_by_version

if TYPE_CHECKING:
    from citewise.context import StageContext
    from citewise.index.manager import KBIndex

#: Document versions whose units one index state keeps, each with up to this many units.
UNIT_CACHE = 4096  # as many versions as the state keeps nodes of (index/views.py)
UNIT_CACHE_UNITS = 1024
#: Units of longer versions one state keeps in all (issue 35: a 40-page paper's units were
#: cut again by every question that read it).
LONG_UNITS = 200_000


def version_units(
    index: KBIndex, reader: NodeReader, near: dict[tuple[str, int], list[Span]]
) -> Callable[[str, int], list[Unit]]:
    """``units(path, version_id)``: the version's units, from the state when kept there,
    else cut from the nodes ``reader`` reads around ``near``'s spans (and kept when those
    are the whole version). Each call returns a fresh list."""

    def units(path: str, version_id: int) -> list[Unit]:
        key = (path, version_id)
        got: tuple[Unit, ...] | None = index.lookup("answer-units", key)
        if got is not None:
            return list(got)
        window = reader.window(path, version_id, near.get(key, []))
        cut = document_units(window.nodes)
        if window.complete and len(cut) <= UNIT_CACHE_UNITS:
            index.keep("answer-units", key, tuple(cut), UNIT_CACHE)
        elif window.complete:  # a long version: kept while long ones add up to the budget
            total: list[int] = index.cached("long-units", "", lambda: [0], 1)
            if total[0] + len(cut) <= LONG_UNITS:
                total[0] += len(cut)
                index.keep("answer-units", key, tuple(cut), UNIT_CACHE)
        return cut

    return units


def units_of_fragments(
    units: Callable[[str, int], Sequence[Unit]],
) -> Callable[[Fragment], list[Unit]]:
    """The units of a fragment's version, each version looked up once per question."""
    seen: dict[tuple[str, int], list[Unit]] = {}

    def read(frag: Fragment) -> list[Unit]:
        key = (frag.path, frag.version_id)
        if key not in seen:
            seen[key] = list(units(frag.path, frag.version_id))
        return seen[key]

    return read


def fragment_reader(
    kb: StageContext, fragments: Sequence[Fragment]
) -> tuple[NodeReader, dict[tuple[str, int], list[Span]]]:
    """A node reader for the question and the fragments' spans by version: what
    :func:`version_units`, the procedure completion and the admission gate read around."""
    reader = NodeReader(kb.store, kb.name, kept=kb.index.kept_nodes)
    near = spans_by_version((f.path, f.version_id, f.char_start, f.char_end) for f in fragments)
    return reader, near


def fragment_units(
    kb: StageContext, fragments: Sequence[Fragment]
) -> Callable[[Fragment], list[Unit]]:
    """The composer's ``units_of`` for ``fragments`` (:func:`version_units` around their
    spans, each version looked up once: :func:`units_of_fragments`)."""
    return units_of_fragments(version_units(kb.index, *fragment_reader(kb, fragments)))
