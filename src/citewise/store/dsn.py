"""Store locations without their secrets, for messages, logs and traces.

A PostgreSQL location may be written in any form libpq accepts, or mistyped: a URI with a
password in its userinfo (``postgresql://user:pw@host/db``) or in its query
(``?password=pw``, ``?sslpassword=pw``, percent-encoded keys included), a ``key=value``
conninfo string (``host=h password='p w\\'x'``), a malformed URI (a raw ``@``, ``/`` or ``?``
in the password) or a mistyped scheme (``postgress://``, ``postgresql:/``, ``pg://``).

The rule is a list of what may be shown, not of what must be hidden: the scheme, the user
name, hosts with numeric ports, the path, and the values of the connection parameters named
in :data:`SHOWN` when the value itself is plain. Every other parameter's value is masked
(``password``, ``sslpassword``, ``sslkey``, a misspelt ``pasword``, anything unknown), and
where the text cannot be read as either form the rest of it is masked. :func:`dsn_secrets`
gives the masked fragments so a driver's message quoting them is cleaned too
(:func:`redact_text`).
"""

from __future__ import annotations

import re
from urllib.parse import unquote

MASK = "***"

#: Connection parameters whose values are shown; every other parameter's value is masked.
_SHOWN_NAMES = (
    "host hostaddr port dbname user connect_timeout client_encoding application_name "
    "fallback_application_name keepalives keepalives_idle keepalives_interval "
    "keepalives_count tcp_user_timeout replication gssencmode sslmode sslnegotiation "
    "sslcompression sslcert sslrootcert sslcrl sslcrldir sslsni requirepeer "
    "ssl_min_protocol_version ssl_max_protocol_version krbsrvname gsslib gssdelegation "
    "service target_session_attrs load_balance_hosts require_auth channel_binding"
)
SHOWN = frozenset(_SHOWN_NAMES.split())

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]+):")  # one letter: a Windows drive, a path
_CONNINFO = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=")
_SECRET_NAMES = frozenset({"password", "passfile", "sslpassword", "sslkey", "options"})
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PLAIN = re.compile(r"[^/?#&=:;@\s]*")  # a user name or host that hides nothing
_PORT = re.compile(r"\d*")
_VALUE = re.compile(r"[^\s=&?#;'\"\\@]*")  # a shown parameter's value that hides nothing
_COLON_PORT = re.compile(r"(:\d*)?")
_IPV6 = re.compile(r"[0-9A-Fa-f:.]*")


def is_conninfo(location: str) -> bool:
    """Whether ``location`` is a libpq ``key=value`` string (it starts with a connection
    parameter's name and ``=``), not a file path."""
    m = _CONNINFO.match(location)
    return m is not None and m.group(1).lower() in SHOWN | _SECRET_NAMES


def redact_dsn(location: str) -> str:
    """``location`` with every password and unknown parameter value masked."""
    return _split(location)[0]


def dsn_secrets(location: str) -> list[str]:
    """The masked fragments of ``location``, raw and percent-decoded, longest first."""
    found = set(_split(location)[1])
    found |= {unquote(s) for s in found}
    return sorted((s for s in found if s), key=len, reverse=True)


def redact_text(text: str, location: str) -> str:
    """``text`` (a driver's message, say) with ``location`` and its secrets masked in it."""
    if location:
        text = text.replace(location, redact_dsn(location))
    for secret in dsn_secrets(location):
        text = text.replace(secret, MASK)
    return text


def _split(location: str) -> tuple[str, list[str]]:
    """The shown text and the hidden fragments."""
    m = _SCHEME.match(location)
    if m is not None and m.group(1).lower() == "sqlite":
        return location, []  # a file path: no secrets
    if m is not None:
        return _uri(location[: m.end()], location[m.end() :])
    if _CONNINFO.match(location):
        return _conninfo(location)
    return location, []  # a path


def _uri(scheme: str, rest: str) -> tuple[str, list[str]]:
    slashes = len(rest) - len(rest.lstrip("/"))
    head, body = scheme + rest[:slashes], rest[slashes:]
    hidden: list[str] = []
    at = body.rfind("@")  # a raw "@" in a password: the userinfo ends at the last one
    if at >= 0:
        cred, body = body[:at], body[at + 1 :]
        user, colon, password = cred.partition(":")
        if not _PLAIN.fullmatch(user):  # the "@" is not where a userinfo ends: mask it all
            inner = _uri("", cred)[1] + _uri("", body)[1]
            return head + MASK, [rest[slashes:], cred, body, *inner]
        if colon:
            head, hidden = head + f"{user}:{MASK}@", [password, cred]
        else:
            head += user + "@"
    where, question, query = body.partition("?")
    shown_where, more = _authority(where)
    hidden += more
    if not question:
        return head + shown_where, hidden
    shown_query, more = _query(query)
    return head + shown_where + "?" + shown_query, hidden + more


def _authority(where: str) -> tuple[str, list[str]]:
    """Hosts and path; a host whose "port" is not a number hides a password typed without
    its ``@`` (``user:pw/db``), so it is masked, as is anything else unusual."""
    hosts, slash, path = where.partition("/")
    shown: list[str] = []
    hidden: list[str] = []
    for host in hosts.split(","):
        if _host_ok(host):
            shown.append(host)
        else:
            shown.append(MASK)
            hidden.append(host)
    if not _PLAIN.fullmatch(path.replace("/", "")):
        hidden.append(path)
        path = MASK
    return ",".join(shown) + slash + path, hidden


def _host_ok(host: str) -> bool:
    if host.startswith("["):  # [IPv6]:port
        addr, close, port = host[1:].partition("]")
        return bool(close) and bool(_IPV6.fullmatch(addr)) and bool(_COLON_PORT.fullmatch(port))
    name, colon, port = host.partition(":")
    return bool(_PLAIN.fullmatch(name)) and (not colon or bool(_PORT.fullmatch(port)))


def _query(query: str) -> tuple[str, list[str]]:
    shown: list[str] = []
    hidden: list[str] = []
    for part in query.split("&"):
        key, eq, value = part.partition("=")
        if eq and unquote(key).strip().lower() in SHOWN and _VALUE.fullmatch(unquote(value)):
            shown.append(part)
        elif eq:
            shown.append(f"{key}={MASK}")
            hidden.append(value)
        else:  # not key=value: say nothing of it
            shown.append(MASK)
            hidden.append(part)
    return "&".join(shown), [h for h in hidden if h]


def _conninfo(text: str) -> tuple[str, list[str]]:
    """``key = value`` pairs, values bare or single-quoted with backslash escapes; from the
    first place the text does not read as such, the rest is masked."""
    shown: list[str] = []
    hidden: list[str] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            return " ".join(shown), hidden
        key = _KEY.match(text, i)
        j = key.end() if key else i
        while j < n and text[j].isspace():
            j += 1
        if key is None or j >= n or text[j] != "=":
            shown.append(MASK)
            hidden.append(text[i:])
            return " ".join(shown), hidden
        j += 1
        while j < n and text[j].isspace():
            j += 1
        end, value = _conninfo_value(text, j)
        if end < 0:  # an unterminated quote
            shown.append(f"{key.group(0)}={MASK}")
            hidden.append(text[j:])
            return " ".join(shown), hidden
        if key.group(0).lower() in SHOWN and _VALUE.fullmatch(value):
            shown.append(f"{key.group(0)}={text[j:end]}")
        else:
            shown.append(f"{key.group(0)}={MASK}")
            hidden += [text[j:end], value]
        i = end


def _conninfo_value(text: str, i: int) -> tuple[int, str]:
    """Where the value at ``i`` ends and its unescaped text; -1 when a quote is not closed."""
    quoted = i < len(text) and text[i] == "'"
    j = i + 1 if quoted else i
    out: list[str] = []
    while j < len(text):
        ch = text[j]
        if ch == "\\" and j + 1 < len(text):
            out.append(text[j + 1])
            j += 2
            continue
        if (quoted and ch == "'") or (not quoted and ch.isspace()):
            return (j + 1 if quoted else j), "".join(out)
        out.append(ch)
        j += 1
    return (-1, "") if quoted else (j, "".join(out))
