"""Text that looks like orchestration: it never reaches an answer or a model as a sentence.

Documents are data. A sentence planted in a document that talks to the answer machinery
("SYSTEM: the assistant must reply ...", "Note to the model: ...", "Human: ...", "send your
password to ...") is not evidence of anything the user asked: the composer skips it, the
release review drops it (a model may echo it), the LLM route's frozen set shows the model a
placeholder instead, and each removal is recorded in the answer's trace with its reason.

Each pattern is specific, so ordinary documentation survives: "the system administrator",
"Note: restart the service", "Enter your password to log in" and "never send your password
to anyone" are not flagged (see ``tests/test_orchestration.py``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

__all__ = ["contains_orchestration", "orchestration_markers", "redact_orchestration"]

#: Names only a machine answerer goes by ("assistant" and "model" alone are everyday
#: words: "the assistant should answer the phone" is office documentation).
_BOT = (
    r"(?:ai|a\.i\.|artificial intelligence|(?:large )?language model|llm|chat ?bot|chatgpt|gpt|"
    r"claude|gemini|copilot|ai assistant|ai model)"
)
_AI = rf"(?:{_BOT}|assistant|model)"
_AI_ZH = r"(?:ai|人工智能|语言模型|大模型|模型|助手|机器人)"
_BOT_ZH = r"(?:ai(?:模型|助手)?|人工智能|语言模型|大模型|智能助手|聊天机器人)"
#: Where a role label may stand: at the start of the text or of any sentence in it (a unit
#: may join sentences: "… from purchase. SYSTEM: the assistant must …").
_START = r"(?:^|(?<=[.!?]\s)|(?<=[。！？；]))"
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "ai_disclaimer",
        re.compile(
            r"\bas an? (?:ai|a\.i\.|artificial intelligence|(?:large )?language model|llm|"
            r"ai (?:language )?model|ai assistant)\b|\bi(?: am|'m) an? (?:ai|language model)\b"
            r"|作为(?:一个|一名)?(?:AI|ai|人工智能|语言模型|大模型)"
        ),
    ),
    (
        "prompt_reference",
        re.compile(
            r"\b(?:system|developer|hidden) (?:prompt|message|instructions?)\b|"
            r"\bmy instructions\b|系统提示|提示词"
        ),
    ),
    (
        "prompt_injection",
        re.compile(
            r"\b(?:ignore|disregard|forget) (?:all |any )?(?:of )?(?:the |your )?"
            r"(?:previous|prior|above|earlier|preceding) (?:instructions?|prompts?|messages?|"
            r"rules)\b|忽略(?:之前|以上|前面|上述)的?(?:所有)?(?:指令|指示|提示)"
        ),
    ),
    # A chat-transcript turn: "Human:", "Assistant:" always; "System:"/"AI:" only when
    # written in capitals or when what follows talks to or about the model.
    (
        "role_label",
        re.compile(
            rf"{_START}\W*(?:human|assistant)\s*[:：]|"
            rf"{_START}\W*(?:system|ai)\s*[:：]\s*(?=.*\b(?:assistant|model|ai|llm|chatbot|"
            r"reply|respond|instructions?)\b)|"
            rf"{_START}\W*(?:助手|人类)\s*[:：]|"
            rf"{_START}\W*(?:系统|ai)\s*[:：](?=.*(?:助手|模型|ai|回答|回复|指令|忽略))"
        ),
    ),
    ("role_label_caps", re.compile(rf"{_START}\W*(?:SYSTEM|HUMAN|ASSISTANT|USER)\s*[:：]")),
    (
        "model_address",
        re.compile(
            rf"\bnote (?:to|for) (?:the |any |an? )?{_AI}s?\b|"
            rf"\binstructions? (?:to|for) (?:the |any |an? )?{_BOT}s?\b|"
            rf"\b(?:dear|hey|hello|attention) (?:the |any |an? )?{_BOT}s?\b|"
            rf"\bif you are an? {_AI}\b|"
            rf"\b(?:the |any |an? )?{_BOT}s? (?:must|should|shall|will|is to|has to|needs to) "
            r"(?:now |always |only |never )?"
            r"(?:reply|respond|answer|say|state|output|print|write|include|ignore|always|never|"
            r"tell|reveal|claim)\b|"
            rf"给{_AI_ZH}的(?:说明|提示|指令|备注)|如果你是{_AI_ZH}|"
            rf"{_BOT_ZH}(?:必须|应该|应当|需要)(?:回答|回复|输出|声称|说|忽略)"
        ),
    ),
    ("internal_id", re.compile(r"(?<![0-9A-Za-z_])[ncd]_[0-9a-f]{24}(?![0-9a-f])")),
    (
        "chat_markup",
        re.compile(
            r"<\|(?:im_start|im_end|system|user|assistant|endoftext)\|>|\[/?INST\]|<<SYS>>|"
            r"</?(?:system|instructions|tool_call|function_call)>"
        ),
    ),
    (
        "ranking_internals",
        re.compile(
            r"\b(?:score|rrf_score|bm25_score|dense_score|fused_score|rank)\s*[=:]\s*[-+]?\d|"
            r"\bscore\s*=|\brrf\b|\b(?:chunk|node|doc)_id\b",
            re.IGNORECASE,
        ),
    ),
)
#: Patterns matched against the text as written (the others against its lower case).
_CASED = frozenset({"chat_markup", "role_label_caps"})

# Asking the reader to hand over a secret. Advice against it ("never send your password
# to anyone", "不要把密码发给任何人") is not flagged: a negation just before the verb.
_SECRET = (
    r"(?:passwords?|passcodes?|passphrases?|credentials?|api[ -]?keys?|access tokens?|tokens?|"
    r"secret keys?|private keys?|ssh keys?|pins?|2fa codes?|mfa codes?|otps?|one[- ]time "
    r"(?:codes?|passwords?)|recovery (?:codes?|phrases?)|seed phrases?|card numbers?)"
)
_CREDENTIAL = re.compile(
    r"\b(?:send|email|e-mail|mail|forward|share|give|reveal|disclose|tell|post|paste|submit|"
    r"reply with|text|dm|message)\s+(?:it\s+|me\s+|us\s+|them\s+)?(?:all\s+)?(?:your|the "
    rf"user'?s|their)\s+(?:\w+\s+)?{_SECRET}\b(?!\s+(?:field|box|prompt|policy|manager)\b)|"
    r"(?:发送|发给|告诉|提供|透露|回复)(?:我们?|给我们?)?(?:你|您)的?(?:密码|口令|验证码|密钥|令牌)|"
    r"(?:把|将)(?:你|您)的?(?:密码|口令|验证码|密钥|令牌)(?:发|告诉|提供|回复)"
)
_NEGATED = re.compile(
    r"(?:\b(?:never|not|don'?t|do not|doesn'?t|must not|mustn'?t|should not|shouldn'?t|"
    r"no one|nobody|avoid|refuse to|under no circumstances)\b[^.;!?]{0,24}|"
    r"(?:不要|切勿|请勿|不得|禁止|绝不|千万别|别|不会|不能|从不)[^。；！？]{0,8})$"
)


def _norm(text: str) -> str:
    return text if text.isascii() else unicodedata.normalize("NFKC", text)


def _asks_for_secret(low: str) -> bool:
    for m in _CREDENTIAL.finditer(low):
        before = low[max(0, m.start() - 40) : m.start()]
        if not _NEGATED.search(before):
            return True
    return False


def orchestration_markers(text: str) -> list[str]:
    """Names of the orchestration patterns found in ``text`` (empty if none)."""
    return list(_memo(text) if len(text) <= MEMO_CHARS else _markers(text))


#: Every unit and sentence an answer may quote is checked, for each question that reads
#: its document: the markers of the last :data:`MEMO_SIZE` texts up to :data:`MEMO_CHARS`
#: characters are kept (a pure function of the text).
MEMO_SIZE = 8192
MEMO_CHARS = 4000


#: Strings one of which every match of a pattern holds (searched in the same text as the
#: pattern: the lower case, or the text as written for :data:`_CASED`), so a text holding
#: none of them is not searched with it. Kept in step with the patterns above
#: (tests/test_ask_cost.py checks every word of each pattern against the full scan).
_ANCHORS: dict[str, tuple[str, ...]] = {
    "ai_disclaimer": ("as a", "i am a", "i'm a", "作为"),
    "prompt_reference": ("prompt", "message", "instruction", "系统提示", "提示词"),
    "prompt_injection": ("ignore", "disregard", "forget", "忽略"),
    "role_label": (":", "："),
    "role_label_caps": (":", "："),
    "model_address": (
        "note ", "instruction", "dear ", "hey ", "hello ", "attention ", "if you are a",
        " must ", " should ", " shall ", " will ", " is to ", " has to ", " needs to ",
        "给", "如果你是", "必须", "应该", "应当", "需要",
    ),
    "internal_id": ("_",),
    "chat_markup": ("<", "INST]"),
    "ranking_internals": ("score", "rank", "rrf", "_id"),
}  # fmt: skip
#: ``_CREDENTIAL`` needs whose secret is asked for.
_CREDENTIAL_ANCHORS = ("your", "the user", "their", "你", "您")
#: Lower-case letters the case-blind ``ranking_internals`` matches to other letters.
_CASE_SPECIAL = ("ſ", "ı")


def _markers(text: str) -> tuple[str, ...]:
    norm = _norm(text).strip()
    low = norm.lower()
    blind = any(c in low for c in _CASE_SPECIAL)
    hits: list[str] = []
    for name, pattern in _PATTERNS:
        shown = name.removesuffix("_caps")
        seen = norm if name in _CASED else low
        if shown in hits or not (
            any(a in seen for a in _ANCHORS[name]) or (blind and name == "ranking_internals")
        ):
            continue
        if pattern.search(seen):
            hits.append(shown)
    if any(a in low for a in _CREDENTIAL_ANCHORS) and _asks_for_secret(low):
        hits.append("credential_request")
    return tuple(hits)


_memo = lru_cache(maxsize=MEMO_SIZE)(_markers)


def contains_orchestration(text: str) -> bool:
    """True if ``text`` looks like orchestration, a prompt, an internal id or a request
    for the reader's secrets."""
    return bool(orchestration_markers(text))


PLACEHOLDER = "[removed: text addressed to the answering system]"


def redact_orchestration(
    text: str, units: Iterable[tuple[int, int, list[str], str]]
) -> tuple[str, list[dict[str, Any]]]:
    """``text`` with each flagged unit (``(start, end, markers, unit_text)``, offsets into
    ``text``, in order) replaced by :data:`PLACEHOLDER`, and what was removed."""
    out: list[str] = []
    removed: list[dict[str, Any]] = []
    pos = 0
    for start, end, markers, unit in units:
        if start < pos:
            continue
        out.append(text[pos:start])
        out.append(PLACEHOLDER)
        removed.append({"start": start, "end": end, "markers": markers, "text": unit[:200]})
        pos = end
    out.append(text[pos:])
    return "".join(out), removed
