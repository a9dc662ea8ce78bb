"""The qualifier vocabulary shared by documents and questions.

Documents (:mod:`citewise.sufficiency._qualifiers`: the scopes that separate conflicting
facts) and questions (:mod:`citewise.analysis.conditions`: the conditions a question
states) name environments and platforms with these patterns and canonical values, so a
question's "on Windows" and a document's "On Windows, ..." compare as the same value.
"""

from __future__ import annotations

import re

__all__ = [
    "ENV_CANON",
    "ENV_STRONG",
    "ENV_WEAK",
    "ENV_ZH",
    "PLATFORM",
    "PLATFORM_CANON",
    "PLATFORM_NAMES",
]

ENV_STRONG = re.compile(
    r"\b(staging|production|prod|pre-?production|preprod|uat|sandbox)\b", re.IGNORECASE
)
ENV_WEAK = re.compile(
    r"\b(dev|development|test|testing|qa|local)\s+(?:environment|env|cluster|deployment|"
    r"instance|stage|setup|server)s?\b|\b(?:in|on|for)\s+(dev|development|test|testing|qa)"
    r"(?=\s*(?:[,;:.)]|$))",
    re.IGNORECASE,
)
ENV_ZH = re.compile(r"(生产|测试|开发|预发布?|沙箱|本地)环境")
ENV_CANON = {
    "prod": "production", "preproduction": "staging", "pre-production": "staging",
    "preprod": "staging", "dev": "development", "testing": "test", "生产": "production",
    "测试": "test", "开发": "development", "预发": "staging", "预发布": "staging",
    "沙箱": "sandbox", "本地": "local",
}  # fmt: skip

#: Platform names as documents write them (case as written: "windows" in prose is rare).
PLATFORM_NAMES = r"Windows|WINDOWS|Linux|LINUX|macOS|MacOS|Mac OS X|OS X|Android|iOS|FreeBSD"
PLATFORM = re.compile(rf"\b({PLATFORM_NAMES})\b")
PLATFORM_CANON = {"mac os x": "macos", "os x": "macos"}
