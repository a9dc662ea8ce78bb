"""Server-sent events for ``POST /kb/{kb}/ask?stream=true``.

The stream follows the HTML Living Standard's ``text/event-stream`` format
(https://html.spec.whatwg.org/multipage/server-sent-events.html): each event is an
``event:`` line, one ``data:`` line of JSON and a blank line. Events, in order:

* ``status`` -- sent at once: the question was accepted and is being answered;
* ``sentence`` -- one per released answer sentence, in answer order, with the citations it
  carries (the same citation objects as the answer's ``citations`` list);
* ``answer`` -- the whole answer object, the same JSON as the non-streamed request;
* ``error`` -- instead of ``answer`` when answering failed after the stream began, with the
  same ``{"error": {"code", "message"}}`` envelope as an HTTP error.

Sentences are sent only after the release review (``answer/review.py``) kept them: nothing
unreviewed is ever streamed, and a sentence once sent is never withdrawn.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from typing import Any

from citewise.answer.models import Answer
from citewise.errors import CitewiseError

__all__ = ["MEDIA_TYPE", "answer_events", "event", "stream_answer"]

log = logging.getLogger(__name__)

MEDIA_TYPE = "text/event-stream"


def event(name: str, data: dict[str, Any]) -> str:
    """One event; the JSON holds no raw newline, so it fits one ``data:`` line."""
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"event: {name}\ndata: {payload}\n\n"


def sentence_events(answer: Answer, body: dict[str, Any]) -> Iterator[str]:
    """A ``sentence`` event per kept claim, with the citation objects of ``body``."""
    by_number = {c["number"]: c for c in body["citations"]}
    index = 0
    for claim in answer.claims:
        if not claim.kept:
            continue
        cited = [by_number[n] for n in claim.citations if n in by_number]
        data = {"index": index, "text": claim.text, "citations": cited}
        yield event("sentence", data)
        index += 1


def answer_events(answer: Answer, *, with_trace: bool) -> Iterator[str]:
    """The sentences of a finished answer, then the answer itself."""
    body = answer.to_json(with_trace=with_trace)
    if answer.outcome == "answered":
        yield from sentence_events(answer, body)
    yield event("answer", body)


def stream_answer(
    produce: Callable[[], Answer], *, kb: str, question: str, with_trace: bool
) -> Iterator[str]:
    """``status`` at once, then the events of ``produce()``'s answer, or ``error``.

    Errors found before the stream begins (unknown knowledge base, malformed body) are
    plain HTTP errors raised by the route; only what fails while answering ends here.
    """
    yield event("status", {"stage": "answering", "kb": kb, "question": question})
    try:
        answer = produce()
    except CitewiseError as exc:
        yield event("error", {"error": {"code": exc.code, "message": str(exc)}})
        return
    except Exception:  # the stream has begun: the status line cannot change any more
        log.exception("unhandled error while streaming an answer from %s", kb)
        message = "Internal error; see the server log."
        yield event("error", {"error": {"code": "INTERNAL", "message": message}})
        return
    yield from answer_events(answer, with_trace=with_trace)
