"""Warm-up of a server before it says it is ready (issue 35).

A fresh process loads its models and builds its per-base state on first use: the encoder
(and its int8 build), the rerank model, the meaning check's cross-encoder, the OCR check,
then per knowledge base the persisted index, the graph and the caches an answer fills. Done
on the first request, that work made the first ask many times slower than the next ones.
:class:`Warmup` does it once, in a thread, before the server reports ready: every model
the server will use is loaded and run once, and each base answers one internal question
(through the answer pipeline itself, so whatever an ask builds is built; never recorded
in the ledger). ``GET /health/ready`` reads :meth:`Warmup.report`.

A step that cannot warm (a model not installed, a base that fails to load) is reported
with its reason and does not keep the server from becoming ready: asks then run without
that part, as they would anyway.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

from citewise.core.stored import StoredChunk
from citewise.errors import CitewiseError
from citewise.kb import Home

StepStatus = Literal["ok", "off", "unavailable", "failed"]
#: What the warm-up takes while a base answers its question: the service's read lock.
ReadLock = Callable[[], AbstractContextManager[None]]
#: One step's work: how it ended and a detail (the model's name, why it is unavailable).
Work = Callable[[], tuple[StepStatus, str]]

#: Words of a chunk's text used for its warm-up question when it has no heading.
QUESTION_WORDS = 8
#: Seconds one warm-up model call may take.
WARM_TIMEOUT = 60.0
#: The warm-up questions' kinds: a definition, a procedure, a list (filled with headings).
TEMPLATES = ("What is {}?", "How do I {}?", "What are the {}?")
#: The question when a base has no chunks (an empty base still runs the pipeline).
EMPTY_QUESTION = "What does this knowledge base contain?"


@dataclass(frozen=True, slots=True)
class WarmStep:
    """One finished warm-up step: what, how it ended, its wall time, and why."""

    name: str
    status: StepStatus
    seconds: float
    detail: str = ""

    def as_json(self) -> dict[str, Any]:
        return {
            "step": self.name,
            "status": self.status,
            "ms": round(self.seconds * 1000, 1),
            "detail": self.detail,
        }


def warm_questions(chunks: Iterable[StoredChunk], text_of: Callable[[str], str]) -> list[str]:
    """Questions about a base's own content, so that the warm-up asks reach every stage
    (recall, evidence, the meaning check) rather than stopping at a refusal, and of the
    question kinds that take different answer paths (:data:`TEMPLATES`: a definition, a
    procedure, a list). Each names a different heading, taken at even steps through the
    chunks in path and position order; a base without headings gets one question from
    the first words of its first chunk's text (``text_of`` reads a chunk's text by id:
    index states keep none), an empty base :data:`EMPTY_QUESTION`."""
    ordered = sorted(chunks, key=lambda c: (c.path, c.version_id, c.ordinal))
    headings = list(dict.fromkeys(h for h in map(_last_heading, ordered) if h))
    if headings:
        step = max(1, len(headings) // len(TEMPLATES))
        picked = headings[::step][: len(TEMPLATES)]
        return [t.format(h) for t, h in zip(TEMPLATES, picked, strict=False)]
    for chunk in ordered[:1]:
        words = text_of(chunk.chunk_id).split()[:QUESTION_WORDS]
        if words:
            return [TEMPLATES[0].format(" ".join(words))]
    return [EMPTY_QUESTION]


def _last_heading(chunk: StoredChunk) -> str:
    return next((h.strip() for h in reversed(chunk.heading_path) if h.strip()), "")


def _timed(name: str, work: Work) -> WarmStep:
    started = time.perf_counter()
    try:
        status, detail = work()
    except CitewiseError as exc:
        status, detail = "failed", f"{exc.code}: {exc.message}"
    except Exception as exc:  # a warm-up failure must not stop the server; it is reported
        status, detail = "failed", f"{type(exc).__name__}: {exc}"
    return WarmStep(name, status, time.perf_counter() - started, detail)


def warm_meaning() -> tuple[StepStatus, str]:
    """Load the meaning check's cross-encoder and score one pair (the first run of an ONNX
    session is its slowest); the pair is not cached."""
    from citewise.recall.meaning_model import meaning_model, meaning_status

    state = meaning_status()
    model = meaning_model()
    if model is None:
        status: StepStatus = "off" if state["status"] == "off" else "unavailable"
        return status, state.get("reason", "")
    model.score("warm-up question", ["warm-up passage"], timeout=WARM_TIMEOUT)
    return "ok", model.name


def warm_ocr() -> tuple[StepStatus, str]:
    """Whether OCR can run (the binary is found, the binding imported), checked once."""
    from citewise.ingest.pdf_ocr import available

    if available():
        return "ok", "tesseract"
    return "unavailable", "OCR is off (CITEWISE_OCR) or tesseract/pytesseract are missing"


def warm_index(home: Home, kb: str) -> tuple[StepStatus, str]:
    """Load and sync the base's index and graph, load its encoder (running one query
    through it) and probe its rerank model."""
    from citewise.recall.rerank import health

    index = home.index(kb)
    with index.pinned():
        index.embed_query("warm-up")
    parts = [f"dense {index.dense.status}"]
    if index.dense.encoder:
        parts.append(index.dense.encoder)
    if index.dense.reason:
        parts.append(index.dense.reason)
    rerank = health(index.reranker)
    parts.append(f"rerank {rerank['status']}")
    return "ok", "; ".join(parts)


def warm_ask(home: Home, kb: str) -> tuple[StepStatus, str]:
    """A few internal asks of the base (not recorded; :func:`warm_questions`), each
    serialised as a reply would be: whatever an answer builds and caches per base is
    built before the first caller's."""
    from citewise.answer.pipeline import ask

    index = home.index(kb)
    outcomes = []
    with index.pinned():
        for question in warm_questions(index.chunks.values(), index.chunk_text):
            answer = ask(home.kb(kb).context, question)
            answer.to_json(with_trace=True)
            outcomes.append(str(answer.outcome))
    return "ok", ", ".join(outcomes)


def collect() -> tuple[StepStatus, str]:
    """A full garbage collection of what loading and warming left. Without it, the
    collector's first full pass over the models' and indexes' many long-lived objects falls
    in one of the first callers' asks (about 100 ms measured on the example corpus); after
    it, the next full pass waits until a quarter as many objects again have survived."""
    found = gc.collect()
    return "ok", f"{found} unreachable objects"


class Warmup:
    """The warm-up of one server's home: run once (:meth:`start` in a thread, or
    :meth:`run`), then ready; :meth:`report` is what ``/health/ready`` answers."""

    def __init__(
        self, home: Home, read_lock: ReadLock, *, after: Iterable[tuple[str, Work]] = ()
    ) -> None:
        """``after``: steps of the layers above (the server's own first request) run
        last, as (name, work) pairs like the facade's own."""
        self.home = home
        self._read_lock = read_lock
        self._after = list(after)
        self._lock = threading.Lock()
        self._pending: list[str] = []
        self._steps: list[WarmStep] = []
        self._started = 0.0
        self._seconds: float | None = None
        self._thread: threading.Thread | None = None

    def plan(self) -> list[tuple[str, Work]]:
        """The steps, in order: the shared models, then per base its index and a few
        asks, then the ``after`` steps."""
        steps: list[tuple[str, Work]] = [
            ("meaning model", warm_meaning),
            ("ocr check", warm_ocr),
        ]
        for info in self.home.list_kbs():
            steps.append(
                (f"kb {info.name}: index and models", partial(warm_index, self.home, info.name))
            )
            steps.append((f"kb {info.name}: asks", partial(self._locked_ask, info.name)))
        return [*steps, *self._after, ("full garbage collection", collect)]

    def _plan_into(self, plan: list[tuple[str, Work]]) -> tuple[StepStatus, str]:
        plan.extend(self.plan())
        return "ok", f"{len(plan)} steps"

    def _locked_ask(self, kb: str) -> tuple[StepStatus, str]:
        with self._read_lock():
            return warm_ask(self.home, kb)

    def run(self) -> None:
        """Every step, in order (each timed; a failure is recorded and the next runs)."""
        with self._lock:
            self._started = time.perf_counter()
        plan: list[tuple[str, Work]] = []
        planning = _timed("planning", lambda: self._plan_into(plan))
        with self._lock:
            if planning.status == "failed":  # no base list: reported, ready all the same
                self._steps.append(planning)
            self._pending = [name for name, _ in plan]
        for name, work in plan:
            step = _timed(name, work)
            with self._lock:
                self._steps.append(step)
                self._pending.remove(name)
        with self._lock:
            self._seconds = time.perf_counter() - self._started

    def start(self) -> threading.Thread:
        """Run in a daemon thread (the server answers liveness meanwhile); once only."""
        with self._lock:
            if self._thread is None:
                self._pending = ["planning"]
                self._thread = threading.Thread(target=self.run, name="warmup", daemon=True)
                self._thread.start()
            return self._thread

    @property
    def ready(self) -> bool:
        with self._lock:
            return self._seconds is not None

    def report(self) -> dict[str, Any]:
        """``status`` warming (with the steps still ``pending``) or ready (with the total
        ``ms``); ``steps``: the finished ones with their status, time and detail."""
        with self._lock:
            done = [s.as_json() for s in self._steps]
            if self._seconds is None:
                return {"status": "warming", "pending": list(self._pending), "steps": done}
            return {"status": "ready", "ms": round(self._seconds * 1000, 1), "steps": done}


class NoWarmup:
    """A server started without warm-up: ready at once, saying so."""

    ready = True

    def start(self) -> None:
        return None

    def report(self) -> dict[str, Any]:
        return {"status": "ready", "ms": 0.0, "steps": [], "detail": "warm-up not requested"}
