"""The message catalogue (issue 39): every status, outcome, degradation, refusal,
condition and page text a user reads, in English and in Chinese, under one key.

A key names the class of text, never a case: ``outcome.*`` (the outcome labels),
``status.*`` (the one status line: outcome first, then the degradation with its plain
reason), ``degradation.*`` (a degradation in plain words), ``reason.*`` (a sufficiency
reason's kind in plain words; its detail or the question's words are filled in),
``refusal.*`` / ``condition.*`` / ``non_kb.*`` (the answer text when nothing is quoted),
``note.*`` (lines shown under an answer), ``condition_kind.*`` and ``web.*`` (the web
page's labels). Fields are
``str.format`` names. Machine codes (outcomes, degradations, reason kinds) stay English
and unchanged: they are part of the JSON contract and the trace; only their wording is
here. :func:`say` looks a key up; an unknown key or a missing field is a bug, and fails.
"""

from __future__ import annotations

from collections.abc import Mapping

from citewise.analysis.language import Lang
from citewise.core.web_labels import WEB_VIEWS

__all__ = ["CATALOGUE", "keys_under", "say", "table"]

Entry = Mapping[Lang, str]

_OUTCOMES: dict[str, Entry] = {
    "outcome.answered": {"en": "answered", "zh": "已回答"},
    "outcome.insufficient_evidence": {"en": "not answered", "zh": "未回答"},
    "outcome.non_kb_reply": {"en": "not a question about the documents", "zh": "非文档问题"},
    "outcome.generation_unavailable": {"en": "no answer written", "zh": "未能生成回答"},
}

_STATUS: dict[str, Entry] = {
    "status.answered": {
        "en": "Answered from the documents with {count} citation(s).",
        "zh": "已根据文档作答，共 {count} 处引用。",
    },
    "status.answered_degraded": {
        "en": "Answered from the documents with {count} citation(s), {degradation}: {reason}.",
        "zh": "已根据文档作答，共 {count} 处引用；{degradation}：{reason}。",
    },
    "status.insufficient_evidence": {
        "en": "Not answered: the knowledge base does not hold enough evidence ({reason}).",
        "zh": "未作答：知识库中没有足够的证据（{reason}）。",
    },
    "status.non_kb_reply": {
        "en": "Not a question about the documents: nothing was looked up.",
        "zh": "这不是关于文档内容的问题，未进行检索。",
    },
    "status.generation_unavailable": {
        "en": "No answer was written: the writer is unavailable ({reason}).",
        "zh": "未能生成回答：写作模型不可用（{reason}）。",
    },
}

_DEGRADATIONS: dict[str, Entry] = {
    "degradation.none": {"en": "none", "zh": "无"},
    "degradation.partial_coverage": {"en": "answered only in part", "zh": "仅部分作答"},
    "degradation.conflict": {"en": "the sources disagree", "zh": "来源之间存在分歧"},
    "degradation.stale_evidence": {
        "en": "based on a superseded edition",
        "zh": "依据的是已被取代的版本",
    },
    "degradation.insufficient_evidence": {"en": "not enough evidence", "zh": "证据不足"},
    "degradation.source_window_unavailable": {
        "en": "the text around a citation could not be read",
        "zh": "引文周围的原文无法读取",
    },
}

_REASONS: dict[str, Entry] = {
    "reason.subject_absent": {
        "en": "the documents do not mention: {detail}",
        "zh": "文档中没有提到：{detail}",
    },
    "reason.subject_missing": {
        "en": "the passages found do not mention: {detail}",
        "zh": "找到的段落没有提到：{detail}",
    },
    "reason.partial_coverage": {
        "en": "the cited text does not cover: {detail}",
        "zh": "引用的文本没有涵盖：{detail}",
    },
    "reason.partial_coverage_plain": {
        "en": "the cited text covers only part of the question",
        "zh": "引用的文本只涵盖了问题的一部分",
    },
    "reason.no_direct_evidence": {
        "en": "nothing relevant was found",
        "zh": "没有找到相关内容",
    },
    "reason.near_miss": {
        "en": "the text found answers a neighbouring question, not this one",
        "zh": "找到的文本回答的是相近的问题，而不是这个问题",
    },
    "reason.near_miss_pair": {
        "en": "the closest passage found says '{said}', not '{asked}'",
        "zh": "最接近的段落写的是“{said}”，而不是问题所问的“{asked}”",
    },
    "reason.quoted_words": {"en": "{text}: {words}", "zh": "{text}：{words}"},
    "reason.constraint_unmet": {
        "en": "no passage meets what the question requires",
        "zh": "没有段落满足问题的限定条件",
    },
    "reason.subject_scattered": {
        "en": "no passage holds two of the question's terms together",
        "zh": "没有任何段落同时包含问题中的两个关键词",
    },
    "reason.intent_mismatch": {
        "en": "the passages found do not give the kind of answer asked for",
        "zh": "找到的段落没有给出所问类型的答案",
    },
    "reason.meaning_match": {
        "en": "a passage answers the question by meaning, not by its words",
        "zh": "有段落在语义上回答了问题，但用词不同",
    },
    "reason.graph_neighbor_evidence_missing": {
        "en": "no documented relation of the kind asked for",
        "zh": "文档中没有记载所问的关系",
    },
    "reason.conflict": {"en": "the sources disagree", "zh": "来源之间存在分歧"},
    "reason.needs_review": {
        "en": "the sources disagree and the conflict awaits review",
        "zh": "来源之间存在分歧，冲突等待审核",
    },
    "reason.stale_evidence": {
        "en": "only a superseded edition holds the answer",
        "zh": "只有已被取代的版本包含答案",
    },
    "reason.stale_set_aside": {
        "en": "superseded editions were set aside",
        "zh": "已搁置被取代的版本",
    },
    "reason.condition_missing": {
        "en": "the answer depends on the {kind}, which the question does not state",
        "zh": "答案取决于问题中未说明的{kind}",
    },
    "reason.condition_unanswered": {
        "en": "the documents hold no evidence for the stated condition",
        "zh": "文档中没有关于所述条件的证据",
    },
    "reason.action_absent": {
        "en": "the steps found are for another task",
        "zh": "找到的步骤针对的是另一项任务",
    },
    "reason.source_window_unavailable": {
        "en": "the text around a citation could not be read",
        "zh": "引文周围的原文无法读取",
    },
    "reason.partial_coverage_detail": {
        "en": "partial coverage: {detail}",
        "zh": "部分涵盖：{detail}",
    },
    "reason.other": {"en": "{code}", "zh": "其他原因（{code}）"},
    "reason.other_detail": {"en": "{code}: {detail}", "zh": "其他原因（{code}）：{detail}"},
    "reason.none": {"en": "no evidence", "zh": "没有证据"},
}

_ANSWER_TEXTS: dict[str, Entry] = {
    "refusal.insufficient": {
        "en": "The knowledge base does not hold enough evidence to answer this question.",
        "zh": "知识库中没有足够的证据来回答这个问题。",
    },
    "refusal.because": {
        "en": (
            "The knowledge base does not hold enough evidence to answer this question. ({reason})"
        ),
        "zh": "知识库中没有足够的证据来回答这个问题（{reason}）。",
    },
    "refusal.generation_unavailable": {
        "en": (
            "No configured model produced an answer that meets the citation contract "
            "({reason}); the evidence is in the trace (replay id {replay_id})."
        ),
        "zh": (
            "没有已配置的模型生成符合引用要求的回答（{reason}）；"
            "证据见追踪记录（重放 ID {replay_id}）。"
        ),
    },
    "condition.missing": {
        "en": (
            "The answer depends on the {kind}, which the question does not state: the "
            "documents answer differently for {values}. Ask again naming one."
        ),
        "zh": (
            "答案取决于问题中未说明的{kind}：文档对 {values} 的回答各不相同。"
            "请注明其中一项后重新提问。"
        ),
    },
    "condition.unanswered": {
        "en": "The knowledge base holds no evidence for the condition the question states.",
        "zh": "知识库中没有关于问题所述条件的证据，文档只就其他条件作了回答。",
    },
    "non_kb.reply": {
        "en": (
            "Hello! I answer questions from the documents in this knowledge base, and every "
            "sentence I give carries a citation you can check. Ask about a topic the "
            'documents cover, for example: "What is ...?" or "How do I ...?"'
        ),
        "zh": (
            "您好！我根据本知识库中的文档回答问题，每句回答都附有可供核对的引用。"
            "请就文档涉及的主题提问，例如：“……是什么？”或“如何……？”"
        ),
    },
    "note.copies": {"en": "(The same text is in {paths}.)", "zh": "（{paths} 中有相同的文本。）"},
    "note.set_aside": {
        "en": "Set aside: {old} ({old_edition}), superseded by {new} ({new_edition}).",
        "zh": "已搁置：{old}（{old_edition}），已被 {new}（{new_edition}）取代。",
    },
    "note.conflict_resolved": {
        "en": "Conflict {id} resolved by {resolver}: {governs} governs over {overruled}{until}.",
        "zh": "冲突 {id} 已由 {resolver} 裁定：以 {governs} 为准，而非 {overruled}{until}。",
    },
    "note.conflict_until": {"en": " until {day}", "zh": "（至 {day}）"},
    "note.edition_unknown": {"en": "edition unknown", "zh": "版本不详"},
    "condition_kind.environment": {"en": "environment", "zh": "环境"},
    "condition_kind.version": {"en": "version", "zh": "版本"},
    "condition_kind.platform": {"en": "platform", "zh": "平台"},
    "condition_kind.time": {"en": "time", "zh": "时间"},
    "condition_kind.region": {"en": "region", "zh": "地区"},
}

_WEB: dict[str, Entry] = {
    "web.knowledge_base": {"en": "Knowledge base", "zh": "知识库"},
    "web.api_key": {"en": "API key", "zh": "API 密钥"},
    "web.tab_ask": {"en": "Ask", "zh": "提问"},
    "web.tab_docs": {"en": "Documents", "zh": "文档"},
    "web.question_placeholder": {
        "en": "Ask a question about this knowledge base",
        "zh": "就本知识库提出问题",
    },
    "web.ask": {"en": "Ask", "zh": "提问"},
    "web.verify_web": {
        "en": "check regulation citations on the web",
        "zh": "在网络上核对法规引用",
    },
    "web.citations": {"en": "citations", "zh": "引用"},
    "web.graph": {"en": "graph", "zh": "知识图谱"},
    "web.trace": {"en": "Trace", "zh": "追踪"},
    "web.cited_source": {"en": "Cited source", "zh": "引用来源"},
    "web.evidence": {"en": "Evidence", "zh": "证据"},
    "web.group_direct": {"en": "direct evidence", "zh": "直接证据"},
    "web.group_augmentation": {"en": "document augmentation", "zh": "文档补充"},
    "web.group_graph": {"en": "graph-neighbor evidence", "zh": "知识图谱邻近证据"},
    "web.group_conflicts": {"en": "conflicts and limitations", "zh": "冲突与局限"},
    "web.fragment_source": {"en": "source text", "zh": "原文"},
    "web.graph_not_run": {"en": "not run", "zh": "未运行"},
    "web.graph_unknown": {"en": "unknown", "zh": "未知"},
    "web.asking": {"en": "Looking up the documents…", "zh": "正在查阅文档……"},
}

CATALOGUE: Mapping[str, Entry] = {
    **_OUTCOMES,
    **_STATUS,
    **_DEGRADATIONS,
    **_REASONS,
    **_ANSWER_TEXTS,
    **_WEB,
    **WEB_VIEWS,
}


def say(key: str, lang: Lang, **fields: object) -> str:
    """The text of ``key`` in ``lang`` with ``fields`` filled in."""
    return CATALOGUE[key][lang].format(**fields)


def keys_under(prefix: str) -> tuple[str, ...]:
    """Every key that starts with ``prefix`` (``"web."``), in catalogue order."""
    return tuple(k for k in CATALOGUE if k.startswith(prefix))


def table(prefix: str, lang: Lang) -> dict[str, str]:
    """``{key: text}`` of every key under ``prefix`` in ``lang`` (the web page's labels)."""
    return {k: CATALOGUE[k][lang] for k in keys_under(prefix)}
