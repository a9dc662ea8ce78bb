"""What the HTTP and MCP servers may do for a caller: one place for scope and access.

Every read goes through a :class:`Caller`: knowledge bases it may not use, and documents
whose front-matter ``access:`` list does not name its principal, look exactly like ones that
do not exist (same code, same message), in listings, counts, citations and graph
neighbors. Searches, evidence and answers get ``SearchFilters(principal=...)`` so the
library applies the same rule inside every route before ranking.

Concurrency: one readers-writer lock (:class:`~citewise.facade.rwlock.RWLock`) per service.
Reads (search, evidence, answers, document, graph and KB reads) share it and run at once;
writes (storing an upload, delete, revert, KB create/change/delete) take it alone. An
upload is parsed before the write lock is taken (parse limits bound that work per file). A read
that uses the indexes also pins the KB's index state and graph
(:meth:`~citewise.index.manager.KBIndex.pinned`): when another process (``citewise add``)
changes the store meanwhile, the rebuild is built aside and swapped in, and the request
keeps reading the state it started with.
"""

from __future__ import annotations

from citewise.facade.base import Scope
from citewise.facade.conflicts import ConflictQueue
from citewise.facade.folder_sync import FolderSync
from citewise.facade.notes import Notes
from citewise.facade.questions import Questions
from citewise.facade.review import ReviewQueue
from citewise.facade.takedown import Takedowns
from citewise.facade.web_takedown import WebTakedowns
from citewise.facade.writes import Upload, Writes

__all__ = ["Scope", "Service", "Upload"]


class Service(
    Writes, FolderSync, Questions, ReviewQueue, Notes, Takedowns, ConflictQueue, WebTakedowns
):
    """Access-checked operations on one home, shared by all requests of a server
    (reads, writes, folder sync and questions live in their own modules)."""
