"""The verification state of one citation: a pure function of what the two sources said.

Exactly one of :data:`STATES`, decided in this order (the first rule that applies wins):

1. ``not_applicable``: the citation is not to a regulation clause (no regulation id or no
   clause path), so there is nothing for a second source to confirm.
2. ``unverified``: the cited clause does not support the claim it is cited for; no source
   can repair that, whatever the web says.
3. ``edition_unresolved``: the knowledge-base clause's edition is unknown, or the web page
   holding the clause does not say which edition it is.
4. ``degraded``: the second source could not be consulted (search engine unavailable, page
   timed out, too large, blocked or failed). Never verified.
5. ``single_source``: one source only. The web has no page with this clause (KB only), the
   knowledge base lacks the clause the web has (web only), or the web holds a *different*
   edition whose text matches (it confirms that edition, not this one).
6. ``conflict``: both sources hold the clause and the texts differ (same edition: they
   disagree; different edition: the clause was amended). Both texts are kept.
7. ``verified``: same regulation, same edition, same clause path and matching text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

State = Literal[
    "verified",
    "single_source",
    "degraded",
    "edition_unresolved",
    "conflict",
    "unverified",
    "not_applicable",
]
STATES: tuple[State, ...] = (
    "verified",
    "single_source",
    "degraded",
    "edition_unresolved",
    "conflict",
    "unverified",
    "not_applicable",
)
#: What the web side came to: not consulted, consulted but unusable, no page with the
#: clause, or a page with the clause.
WebOutcome = Literal["unavailable", "no_clause", "found"]
EditionMatch = Literal["same", "different", "unknown"]


@dataclass(frozen=True, slots=True)
class Evidence:
    """The facts :func:`decide` needs, and nothing else."""

    regulation_clause: bool  # the citation names a regulation id and a clause path
    kb_has_clause: bool
    supports_claim: bool
    kb_edition_known: bool
    web: WebOutcome
    web_edition: EditionMatch = "unknown"  # meaningful when web == "found"
    text_matches: bool = False  # meaningful when web == "found" and kb_has_clause


def decide(e: Evidence) -> tuple[State, str]:
    """The state and a short reason (see the module docstring for the rules)."""
    if not e.regulation_clause:
        return "not_applicable", "not a regulation clause"
    if e.kb_has_clause and not e.supports_claim:
        return "unverified", "the cited clause does not support the claim"
    if e.kb_has_clause and not e.kb_edition_known:
        return "edition_unresolved", "the knowledge base does not say which edition this is"
    if e.web == "unavailable":
        return "degraded", "the second source could not be consulted"
    if e.web == "no_clause":
        if e.kb_has_clause:
            return "single_source", "no authoritative web page holds this clause"
        return "unverified", "neither source holds this clause"
    if e.web_edition == "unknown":
        return "edition_unresolved", "the web page does not say which edition it holds"
    if not e.kb_has_clause:
        return "single_source", "only the web holds this clause"
    if e.web_edition == "different":
        if e.text_matches:
            return "single_source", "the web holds another edition with the same text"
        return "conflict", "the web holds another edition with different text (amended)"
    if not e.text_matches:
        return "conflict", "same edition and clause, but the texts differ"
    return "verified", "same edition, same clause, matching text"
