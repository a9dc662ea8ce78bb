"""The Conflicts page's labels (issue 38), in English and in Chinese.

Part of the message catalogue (core/web_labels.py merges them into ``WEB_VIEWS``). Keys
follow web_labels' classes: ``web.tab_conflicts`` (the tab), ``web.conflicts_*`` (the
view's policy, empty-list and withheld lines), ``web.conflict_*`` (one recorded
conflict's lines, its states and its form's fields) and ``web.btn_resolve``. Fields are
``str.format`` names filled in by the page's ``fill()`` (app.js); document paths, values
and excerpts inside them are put on the page as text (conflicts.js).
"""

from __future__ import annotations

from collections.abc import Mapping

from citewise.analysis.language import Lang

__all__ = ["WEB_CONFLICTS"]

WEB_CONFLICTS: Mapping[str, Mapping[Lang, str]] = {
    "web.tab_conflicts": {"en": "Conflicts", "zh": "来源冲突"},
    "web.conflicts_policy": {
        "en": "conflict handling: {mode}",
        "zh": "冲突处理方式：{mode}",
    },
    "web.conflicts_read_only": {
        "en": "; you may read but not resolve",
        "zh": "；你可以查看，但无权裁定",
    },
    "web.conflicts_empty": {
        "en": "No conflicts recorded: no answer has met one yet.",
        "zh": "尚无记录的冲突：还没有回答遇到来源冲突。",
    },
    "web.conflicts_withheld": {
        "en": "{count} more involve documents you may not read.",
        "zh": "另有 {count} 条涉及你无权查看的文档。",
    },
    "web.conflict_head": {
        "en": "{id} · {subject} ({attribute}) · detected {at}",
        "zh": "{id} · {subject}（{attribute}）· 发现于 {at}",
    },
    "web.conflict_side": {"en": "side {side}: {path}", "zh": "{side} 方：{path}"},
    "web.conflict_value": {"en": "value: {value}", "zh": "取值：{value}"},
    # A record's state (governance/conflicts.py codes, kept in the JSON).
    "web.conflict_state_open": {"en": "open", "zh": "未裁定"},
    "web.conflict_state_resolved": {"en": "resolved", "zh": "已裁定"},
    "web.conflict_state_expired": {"en": "expired", "zh": "裁定已过期"},
    "web.conflict_resolution": {
        "en": "{governs} governs; resolved by {who} at {at}",
        "zh": "以 {governs} 为准；由 {who} 于 {at} 裁定",
    },
    "web.conflict_until": {"en": "; holds until {until}", "zh": "；有效期至 {until}"},
    "web.conflict_note": {"en": "; note: {note}", "zh": "；备注：{note}"},
    "web.conflict_governs": {"en": "governing side", "zh": "为准的一方"},
    "web.conflict_until_field": {"en": "until (optional)", "zh": "有效期至（可选）"},
    "web.conflict_note_field": {"en": "note (optional)", "zh": "备注（可选）"},
    "web.btn_resolve": {"en": "resolve", "zh": "裁定"},
}
