"""The opt-in web step of ``ask``: verify an answer's citations and record it.

:func:`verify_answer` returns the answer with each citation's ``verification`` (state,
both evidence references, comparison) and the whole run in ``trace["web_verification"]``.
When the answer holds no citation but the question names a regulation clause
(``12 CFR 1002.4(b)``), the web is asked for that clause alone: what it finds is reported
(``single_source``, web only) but never becomes a citation of the answer.
:func:`record_verification` appends the ``web_verification`` ledger event (searches as
sent, fetches with their snapshot hashes, comparisons) that :mod:`citewise.web.replay`
replays offline.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, cast

from citewise.answer.models import Answer, AnswerTrace, WebVerificationTrace
from citewise.recall.identifiers import clause_refs
from citewise.store.protocol import Ledger
from citewise.web.refs import ClauseRef, EditionSource, regulation_ids
from citewise.web.verify import VerificationRun, WebVerifier, support_by_number

EVENT = "web_verification"


def verify_answer(
    answer: Answer, verifier: WebVerifier, editions: EditionSource
) -> tuple[Answer, VerificationRun]:
    if not answer.citations:
        run = VerificationRun()
        ref = question_reference(str(answer.trace.get("question", "")))
        if ref is not None:
            verifier.check_reference(ref, run)
        trace: AnswerTrace = answer.trace | {"web_verification": _web_json(run)}
        return replace(answer, trace=trace), run
    run = verifier.verify(answer.citations, support_by_number(answer.claims), editions)
    by_number = {c.number: c for c in run.checks}
    cites = tuple(replace(c, verification=by_number[c.number].to_json()) for c in answer.citations)
    trace = answer.trace | {"web_verification": _web_json(run)}
    return replace(answer, citations=cites, trace=trace), run


def question_reference(question: str) -> ClauseRef | None:
    """The one regulation clause a question names (regulation id and clause), if any."""
    regs = regulation_ids(question)
    clauses = clause_refs(question)
    if len({r for r, _ in regs}) != 1 or not clauses:
        return None
    reg, edition = regs[0]
    return ClauseRef(reg, edition, clauses[0])


def record_verification(ledger: Ledger, kb: str, answer_id: str, run: VerificationRun) -> None:
    payload: dict[str, Any] = {"kb": kb, "answer_id": answer_id} | run.to_json()
    ledger.append_event(EVENT, payload, kb=kb)


def _web_json(run: VerificationRun) -> WebVerificationTrace:
    """The run as the answer's ``web_verification`` trace section."""
    return cast("WebVerificationTrace", run.to_json())
