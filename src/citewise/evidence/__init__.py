"""citewise evidence stage: relevant segment extraction, small-to-big augmentation and the
budgeted, replayable context pack. Entry point: :func:`assemble`."""

from citewise.evidence.assemble import assemble
from citewise.evidence.budget import profile_for
from citewise.evidence.models import (
    BUDGETS,
    Budget,
    EvidenceConfig,
    EvidencePack,
    Fragment,
    RSEParams,
)

__all__ = [
    "BUDGETS",
    "Budget",
    "EvidenceConfig",
    "EvidencePack",
    "Fragment",
    "RSEParams",
    "assemble",
    "profile_for",
]
