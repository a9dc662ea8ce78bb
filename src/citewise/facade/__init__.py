"""The access-scoped facade below every interface (HTTP, MCP, the CLI).

One :class:`~citewise.facade.service.Service` per home checks a
:class:`~citewise.facade.caller.Caller`'s scope and access on every read and write, takes
the readers-writer lock (:mod:`citewise.facade.rwlock`) and shows version numbers as the
caller sees them (:mod:`citewise.facade.history`, :mod:`citewise.facade.renumber`).
"""
