"""The facade's reads for the console (the CLI): the owner at the machine, every knowledge
base, reading as ``--as`` when given.

The rule: an interface reads through the library's recording calls
(:meth:`~citewise.kb.KnowledgeBase.evidence` and the like), never a stage function, so the
audit ledger gets the same entries whichever interface asked (the HTTP and MCP servers reach
the same calls through :class:`~citewise.facade.service.Service`). Version numbers are the
store's own unless a principal is given; then they are numbered as that principal sees the
history (:mod:`citewise.facade.renumber`), as the servers show them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from citewise.facade import renumber

if TYPE_CHECKING:
    from citewise.core.search import SearchFilters
    from citewise.evidence.models import EvidencePack, Profile
    from citewise.kb import Home


def evidence(
    home: Home,
    name: str,
    query: str,
    *,
    filters: SearchFilters,
    profile: Profile | None = None,
    rse: bool = True,
    revision: int | None = None,
) -> EvidencePack:
    """The evidence pack for ``query`` in knowledge base ``name``, recorded in the audit
    ledger as every interface records it; numbered as ``filters.principal`` sees versions
    when one is given; from the documents as they were at ``revision`` (the KB's own
    number, as ``citewise revisions`` lists it) when given."""
    kb = home.kb(name)
    pack = kb.evidence(query, filters=filters, profile=profile, rse=rse, revision=revision)
    if filters.principal is None:
        return pack
    return renumber.evidence_pack(pack, renumber.numbering_for(kb, filters.principal))
