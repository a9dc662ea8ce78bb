"""The verdict of an answer that is one table cell (issue 36,
:mod:`citewise.answer.steps.cells`): sufficient, its reason the cell with its headers."""

from __future__ import annotations

from citewise.sufficiency.models import Reason, Sufficiency

__all__ = ["table_cell"]


def table_cell(told: str) -> Sufficiency:
    """Sufficient: the row the question names holds the asked column's cell (``told``:
    ``Alaska, Permit: 209``)."""
    return Sufficiency("sufficient", "none", (Reason("table_cell", told),))
