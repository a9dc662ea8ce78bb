"""What an operator's metrics read of a home: per knowledge base, its documents, the
store revision, the revision and generation its indexes reflect, and the dense model's
state; and whether an ask run belongs to this home.

Operator-level, not caller-scoped: the server exposes it only to a key that may use every
knowledge base (``server/metrics.py``). Reading it never syncs an index or loads a model:
it reports the state the last request left.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from citewise.facade.base import ServiceBase

if TYPE_CHECKING:
    from citewise.answer.steps.state import AskState

__all__ = ["KBState", "kb_states", "same_home"]


@dataclass(frozen=True, slots=True)
class KBState:
    kb: str
    documents: int
    store_revision: int
    index_revision: int
    generation: str
    dense_status: str
    encoder: str


def kb_states(service: ServiceBase) -> list[KBState]:
    """Every knowledge base of the service's home, under the shared lock."""
    out: list[KBState] = []
    with service.lock.read():
        for info in service.home.list_kbs():
            index = service.home.index(info.name)
            out.append(
                KBState(
                    kb=info.name,
                    documents=info.document_count,
                    store_revision=info.revision,
                    index_revision=index.revision,
                    generation=index.generation,
                    dense_status=index.dense.status,
                    encoder=index.dense.encoder,
                )
            )
    return out


def same_home(service: ServiceBase, state: AskState) -> bool:
    """Whether an ask run ran on this service's home (several homes may serve in one
    process, each with its own metrics)."""
    mine: Path = service.home.settings.home
    theirs: Path = state.kb.settings.home
    return mine == theirs or mine.resolve() == theirs.resolve()
