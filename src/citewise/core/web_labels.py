"""The web page's labels beyond the Ask view (issue 39): the Documents view, the trace
drawer, the Review page and the Notes page, in English and in Chinese.

Part of the message catalogue (core/messages.py merges them under ``web.*``). A key names
the class of text: ``web.col_*`` (a table column), ``web.btn_*`` (a button made by the
page's scripts), ``web.docs_*`` / ``web.review_*`` / ``web.notes_*`` / ``web.note_*`` /
``web.trace_*`` (a view's headings, empty-list messages and lines), ``web.cite_*``
(the cited source's place, regulation and second-source lines). Fields are
``str.format`` names, filled in by the page's ``fill()`` (app.js). Machine codes shown
inside these lines (actions, kinds, statuses, routes) stay as the JSON gives them.
"""

from __future__ import annotations

from collections.abc import Mapping

from citewise.analysis.language import Lang
from citewise.core.web_conflict_labels import WEB_CONFLICTS

__all__ = ["WEB_VIEWS"]

_NAV: dict[str, Mapping[Lang, str]] = {
    "web.tab_review": {"en": "Review", "zh": "审核"},
    "web.tab_notes": {"en": "Notes", "zh": "笔记"},
    "web.api_key_placeholder": {"en": "(none)", "zh": "（无）"},
}

_TRACE: dict[str, Mapping[Lang, str]] = {
    "web.trace_replay_id": {"en": "replay id", "zh": "重放 ID"},
    "web.trace_trace_id": {"en": "trace id", "zh": "追踪 ID"},
    "web.trace_budget": {"en": "budget", "zh": "预算"},
    "web.trace_sufficiency": {"en": "sufficiency", "zh": "证据充分性"},
    "web.trace_routes": {"en": "Routes", "zh": "检索路径"},
    "web.col_route": {"en": "route", "zh": "路径"},
    "web.col_status": {"en": "status", "zh": "状态"},
    "web.col_candidates": {"en": "candidates", "zh": "候选数"},
    "web.col_ms": {"en": "ms", "zh": "毫秒"},
    "web.col_reason": {"en": "reason", "zh": "原因"},
    "web.trace_budget_used": {
        "en": "{fragments}/{max_fragments} fragments, {tokens}/{total_tokens} tokens, "
        "{chars}/{total_chars} chars",
        "zh": "片段 {fragments}/{max_fragments}，词元 {tokens}/{total_tokens}，"
        "字符 {chars}/{total_chars}",
    },
    "web.trace_no_budget": {"en": "n/a", "zh": "无"},
}

_DOCS: dict[str, Mapping[Lang, str]] = {
    "web.docs_prefix_placeholder": {"en": "folder (optional)", "zh": "文件夹（可选）"},
    "web.docs_upload": {"en": "Upload", "zh": "上传"},
    "web.col_path": {"en": "path", "zh": "路径"},
    "web.col_title": {"en": "title", "zh": "标题"},
    "web.col_version": {"en": "version", "zh": "版本"},
    "web.col_nodes": {"en": "nodes", "zh": "节点数"},
    "web.docs_versions_of": {"en": "Versions of", "zh": "版本历史："},
    "web.col_action": {"en": "action", "zh": "操作"},
    "web.col_revision": {"en": "revision", "zh": "修订版"},
    "web.col_created": {"en": "created", "zh": "创建时间"},
    "web.btn_versions": {"en": "versions", "zh": "版本"},
    "web.btn_delete": {"en": "delete", "zh": "删除"},
    "web.btn_revert": {"en": "revert", "zh": "恢复到此版本"},
    "web.docs_restored_from": {
        "en": "{action} (from v{version})",
        "zh": "{action}（来自 v{version}）",
    },
    "web.docs_confirm_delete": {
        "en": "Delete {path} from the current revision? Its history stays.",
        "zh": "从当前修订版中删除 {path}？它的历史记录会保留。",
    },
    # An uploaded file's status (core/records.py FileStatus codes, kept in the JSON).
    "web.docs_upload_line": {"en": "{path}: {status}", "zh": "{path}：{status}"},
    "web.docs_status_added": {"en": "added", "zh": "已添加"},
    "web.docs_status_changed": {"en": "changed", "zh": "已更新"},
    "web.docs_status_unchanged": {"en": "unchanged", "zh": "未改变"},
    "web.docs_status_reverted": {"en": "reverted", "zh": "已恢复"},
    "web.docs_status_skipped": {"en": "skipped", "zh": "已跳过"},
    "web.docs_status_failed": {"en": "failed", "zh": "失败"},
    "web.docs_empty": {
        "en": "No documents yet: upload some above.",
        "zh": "还没有文档：请在上方上传。",
    },
}

_REVIEW: dict[str, Mapping[Lang, str]] = {
    "web.col_id": {"en": "id", "zh": "编号"},
    "web.col_kind": {"en": "kind", "zh": "类型"},
    "web.col_submitted": {"en": "submitted", "zh": "提交"},
    "web.col_changes": {"en": "changes", "zh": "变更"},
    "web.col_held_because": {"en": "held because", "zh": "暂缓原因"},
    "web.review_empty": {"en": "Nothing waits for review.", "zh": "没有待审核的内容。"},
    "web.review_held": {"en": "Held", "zh": "暂缓项"},
    "web.review_policy": {
        "en": "publication: {publication}; publishers: {publishers}; quarantine: {quarantine}",
        "zh": "发布方式：{publication}；发布人：{publishers}；隔离条件：{quarantine}",
    },
    "web.review_admins": {"en": "(admins)", "zh": "（管理员）"},
    "web.review_nothing": {"en": "nothing", "zh": "无"},
    "web.review_over_bytes": {"en": "over {bytes} bytes", "zh": "超过 {bytes} 字节"},
    "web.review_read_only": {
        "en": "; you may read but not decide",
        "zh": "；你可以查看，但无权做出决定",
    },
    "web.review_local": {"en": "local", "zh": "本地"},
    "web.review_withheld_row": {
        "en": " (+{count} you may not read)",
        "zh": "（另有 {count} 个文件你无权查看）",
    },
    "web.review_submitted": {
        "en": "submitted by {who} from {origin} at {at}",
        "zh": "由 {who} 于 {at} 从 {origin} 提交",
    },
    "web.review_withheld_detail": {
        "en": "; {count} file(s) you may not read",
        "zh": "；另有 {count} 个文件你无权查看",
    },
    "web.review_provenance": {
        "en": "{source}; sha256 {sha}; {size} bytes",
        "zh": "{source}；sha256 {sha}；{size} 字节",
    },
    "web.review_diff_cut": {"en": "{count} more diff lines", "zh": "另有 {count} 行差异未显示"},
    # A held change's kind and a file's change (governance/review.py codes, kept in the JSON).
    "web.review_kind_candidate": {"en": "candidate", "zh": "待批准的变更"},
    "web.review_kind_quarantine": {"en": "quarantine", "zh": "隔离"},
    "web.review_change_added": {"en": "added", "zh": "新增"},
    "web.review_change_changed": {"en": "changed", "zh": "修改"},
    "web.review_change_deleted": {"en": "deleted", "zh": "删除"},
    "web.btn_show": {"en": "show", "zh": "查看"},
    "web.btn_approve": {"en": "approve", "zh": "批准"},
    "web.btn_release": {"en": "release", "zh": "放行"},
    "web.btn_reject": {"en": "reject", "zh": "拒绝"},
}

_NOTES: dict[str, Mapping[Lang, str]] = {
    "web.notes_filter_placeholder": {"en": "filter topics", "zh": "筛选主题"},
    "web.notes_count": {
        "en": "{count} notes, every line a quotation with its citation",
        "zh": "共 {count} 篇笔记，每一行都是附有引用的原文摘录",
    },
    "web.notes_empty": {
        "en": "No notes in this knowledge base yet (citewise notes build).",
        "zh": "本知识库还没有笔记（可运行 citewise notes build 生成）。",
    },
    "web.note_meta": {
        "en": "revision {revision} · {lines} lines from {documents} documents",
        "zh": "修订版 {revision} · 来自 {documents} 篇文档的 {lines} 行",
    },
    "web.note_changed_count": {"en": " · {count} changed", "zh": " · {count} 行有改动"},
    "web.note_line_where": {
        "en": "{path} · lines {start}-{end}",
        "zh": "{path} · 第 {start}-{end} 行",
    },
    "web.note_line_changed": {"en": " · changed in this revision", "zh": " · 本修订版中有改动"},
    "web.note_related": {"en": "Related:", "zh": "相关主题："},
    # A note's sections (notes/models.py Section codes; the JSON's section_titles stay English).
    "web.note_section_definition": {"en": "Definition", "zh": "定义"},
    "web.note_section_relations": {
        "en": "Requires / part of / replaced by",
        "zh": "依赖 / 所属 / 被取代",
    },
    "web.note_section_used": {"en": "Configured or used", "zh": "配置或使用"},
    "web.note_section_figures": {"en": "Figures", "zh": "数值"},
    "web.note_section_conflicts": {"en": "Conflicts", "zh": "冲突"},
    "web.note_section_discussed": {"en": "Discussed in", "zh": "在以下文档中讨论"},
}

# The cited source's place and its regulation / second-source lines (Ask and Notes views).
_CITATION: dict[str, Mapping[Lang, str]] = {
    "web.cite_where": {
        "en": "{path} · version {version} · revision {revision}",
        "zh": "{path} · 版本 {version} · 修订版 {revision}",
    },
    "web.cite_lines": {"en": "lines {start}-{end}", "zh": "第 {start}-{end} 行"},
    "web.cite_extracted": {"en": " (of the extracted text)", "zh": "（按提取出的文本计）"},
    "web.cite_chars": {"en": "chars {start}-{end}", "zh": "字符 {start}-{end}"},
    "web.cite_page": {"en": "page {page}", "zh": "第 {page} 页"},
    "web.cite_approximate": {"en": " (approximate: {why})", "zh": "（位置为近似：{why}）"},
    "web.cite_page_image": {
        "en": "page {page} of {path}, cited lines highlighted",
        "zh": "{path} 第 {page} 页，引用的行已高亮",
    },
    "web.cite_sheet": {
        "en": "sheet {sheet}, cited cells {cells} highlighted",
        "zh": "工作表 {sheet}，引用的单元格 {cells} 已高亮",
    },
    "web.cite_edition": {"en": "edition {edition}", "zh": "版本 {edition}"},
    "web.cite_edition_unknown": {"en": "unknown", "zh": "不详"},
    "web.cite_clause": {"en": "clause {clause}", "zh": "条款 {clause}"},
    "web.cite_effective": {"en": "effective {date}", "zh": "生效日期 {date}"},
    "web.cite_second_source": {
        "en": "second source: {state} ({reason})",
        "zh": "第二来源：{state}（{reason}）",
    },
    "web.cite_web": {"en": " · web: {url}", "zh": " · 网络来源：{url}"},
    "web.cite_web_edition": {"en": ", {edition} edition", "zh": "，{edition} 版"},
    "web.cite_similarity": {"en": " · similarity {value}", "zh": " · 相似度 {value}"},
}

WEB_VIEWS: Mapping[str, Mapping[Lang, str]] = {
    **_NAV,
    **_TRACE,
    **_DOCS,
    **_REVIEW,
    **_NOTES,
    **_CITATION,
    **WEB_CONFLICTS,
}
