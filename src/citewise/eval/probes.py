"""The answer-probe suite: questions with expected outcomes, run against a corpus.

A suite is a folder with ``corpus/`` (the documents) and ``cases.yaml`` (a list of cases:
``id``, ``kind``, ``question``, optional ``principal``, ``conditions`` (the caller's
``key: value`` conditions), ``conversation`` (earlier turns asked first, in one
conversation) and ``expect`` with ``outcome``, ``degradation``, ``must_include``,
``must_not_include``, ``cited_docs``, ``not_cited_docs``, ``roles``, ``relation`` (a
relation kind the answer must state, citing the edge's source span and the neighbour's
text), ``reasons_include`` (substrings of a sufficiency reason), ``standalone``
(substrings of the follow-up's rewrite)). Every answer's citations are also checked: each
excerpt must equal the source text at its offsets in its revision, with a matching sha256.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from citewise.answer.models import Answer
from citewise.core.records import sha256_text
from citewise.core.search import SearchFilters
from citewise.errors import UsageError
from citewise.kb import Home, KnowledgeBase


@dataclass(frozen=True, slots=True)
class CaseResult:
    id: str
    kind: str
    question: str
    passed: bool
    outcome: str
    degradation: str
    problems: tuple[str, ...] = ()
    answer: str = ""


@dataclass(frozen=True, slots=True)
class ProbeReport:
    suite: str
    results: tuple[CaseResult, ...] = field(default_factory=tuple)

    @property
    def passed(self) -> int:
        return sum(r.passed for r in self.results)

    @property
    def failed(self) -> int:
        return len(self.results) - self.passed


def load_cases(suite: Path) -> list[dict[str, Any]]:
    path = suite / "cases.yaml"
    if not path.is_file() or not (suite / "corpus").is_dir():
        raise UsageError(
            f"{suite} is not a probe suite.", hint="It needs corpus/ and cases.yaml inside."
        )
    try:
        cases = yaml.safe_load(path.read_text("utf-8"))
    except yaml.YAMLError as exc:
        raise UsageError(f"{path}: not valid YAML ({exc}).", hint="Fix the file.") from exc
    if not isinstance(cases, list) or not all(isinstance(c, dict) for c in cases):
        raise UsageError(f"{path}: expected a list of cases.", hint="See tests/probes/README.md.")
    for c in cases:
        if not c.get("id") or not c.get("question") or not isinstance(c.get("expect"), dict):
            raise UsageError(f"{path}: a case lacks id, question or expect: {c!r:.120}")
    return cases


def citation_problems(kb: KnowledgeBase, answer: Answer) -> list[str]:
    """Every citation's excerpt must equal the stored source text at its offsets."""
    problems = []
    for c in answer.citations:
        resolved = kb.resolve(c.id)
        text = kb.store.get_document_text(kb.name, c.doc_id, c.version_id)
        if text[c.char_start : c.char_end] != c.excerpt or resolved.text != c.excerpt:
            problems.append(f"citation [{c.number}] excerpt differs from the source at its offsets")
        if sha256_text(c.excerpt) != c.sha256 or (
            resolved.revisions and c.revision not in (*resolved.revisions, max(resolved.revisions))
        ):
            problems.append(f"citation [{c.number}] hash or revision does not match")
    return problems


def check_relation(answer: Answer, kind: str) -> list[str]:
    """The answer states a ``kind`` relation (answer/relation.py) and cites both the
    edge's source span and the neighbour's own text."""
    relation = answer.trace.get("relation")
    statements = relation["statements"] if relation else []
    spans = {(c.path, c.char_start, c.char_end) for c in answer.citations}
    paths = {c.path for c in answer.citations}
    for s in statements:
        if s["relation"] != kind or s["text"] not in answer.answer:
            continue
        if (s["edge_path"], *s["edge_chars"]) in spans and s["neighbour_path"] in paths:
            return []
        return [f"the {kind} relation is stated without citing its edge span and neighbour"]
    return [f"no {kind} relation stated"]


def check_case(kb: KnowledgeBase, case: dict[str, Any]) -> CaseResult:
    exp: dict[str, Any] = case["expect"]
    principal = case.get("principal")
    given = {str(k): str(v) for k, v in (case.get("conditions") or {}).items()}
    problems: list[str] = []
    if case.get("conversation"):
        chat = kb.conversation()
        for earlier in case["conversation"]:
            chat.ask(str(earlier))
        answer = chat.ask(str(case["question"]), conditions=given or None)
        standalone = str((answer.trace.get("rewrite") or {}).get("standalone", ""))
        for s in exp.get("standalone") or []:
            if str(s).lower() not in standalone.lower():
                problems.append(f"rewrite {standalone!r} lacks {s!r}")
    else:
        answer = kb.ask(
            str(case["question"]),
            filters=SearchFilters(principal=principal),
            conditions=given or None,
        )
    for s in exp.get("reasons_include") or []:
        if not any(str(s) in r for r in answer.sufficiency.reason_texts):
            problems.append(f"no reason with {s!r} in {answer.sufficiency.reason_texts}")
    text = answer.answer.lower()
    if exp.get("outcome") and answer.outcome != exp["outcome"]:
        problems.append(f"outcome {answer.outcome} != {exp['outcome']}")
    if exp.get("degradation") and answer.degradation != exp["degradation"]:
        problems.append(f"degradation {answer.degradation} != {exp['degradation']}")
    for s in exp.get("must_include") or []:
        if str(s).lower() not in text:
            problems.append(f"missing {s!r}")
    for s in exp.get("must_not_include") or []:
        if str(s).lower() in text:
            problems.append(f"contains {s!r}")
    cited = {c.path for c in answer.citations}
    for path in exp.get("cited_docs") or []:
        if path not in cited:
            problems.append(f"no citation from {path}")
    for path in exp.get("not_cited_docs") or []:
        if path in cited:
            problems.append(f"cites {path}")
    pack: dict[str, Any] = dict(answer.trace.get("pack") or {})
    roles = {
        f["role"]
        for key in ("direct_evidence", "document_augmentation", "graph_neighbor_evidence")
        for f in pack.get(key, [])
    }
    for role in exp.get("roles") or []:
        if role not in roles:
            problems.append(f"no {role} fragment in the pack")
    if exp.get("relation"):
        problems += check_relation(answer, str(exp["relation"]))
    problems += citation_problems(kb, answer)
    return CaseResult(
        str(case["id"]),
        str(case.get("kind", "")),
        str(case["question"]),
        not problems,
        answer.outcome,
        answer.degradation,
        tuple(problems),
        answer.answer,
    )


def run_suite(suite: Path, *, home: Path | None = None) -> ProbeReport:
    """Ingest ``suite/corpus`` into a fresh home and run every case."""
    cases = load_cases(suite)
    with tempfile.TemporaryDirectory() as tmp, Home.open(home or Path(tmp) / "home") as h:
        kb = h.kb()
        report = kb.add([suite / "corpus"])
        if not report.ok:
            bad = [f"{f.path}: {f.message}" for f in report.files if f.status == "failed"]
            raise UsageError(f"The probe corpus did not ingest cleanly: {bad[:3]}")
        results = tuple(check_case(kb, c) for c in cases)
    return ProbeReport(str(suite), results)
