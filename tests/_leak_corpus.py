"""A small corpus with one restricted document, built twice: without and with it.

``bob`` may not read ``secret/vault.md`` (``access: [alice]``); ``alice`` may. The hidden
document holds a unique token (``ZEBRAQUARTZ``), shares words with public documents (so
BM25 statistics would move), has a title no public document has and one public documents
also use (graph anchors), links to a public document (graph degrees) and declares that it
supersedes a public policy (stale editions). Everything bob receives must be the same
whether it exists or not.
"""

from __future__ import annotations

from pathlib import Path

from citewise.kb import Home

TOKEN = "ZEBRAQUARTZ"
HIDDEN = "secret/vault.md"

PUBLIC: dict[str, str] = {
    "guide/rotation.md": (
        "# Key rotation\n\n"
        "To rotate keys, run `citewise rotate` every 90 days. The vault stores the rotation "
        "keys and the vault audit log records each rotation.\n\n"
        "## Schedule\n\n"
        "Rotation happens every quarter. See the [retention policy](../policy/retention.md) "
        "for how long old keys are kept.\n"
    ),
    "policy/retention.md": (
        "---\ntitle: Retention policy\nstatus: current\n---\n"
        "# Retention policy\n\n"
        "The retention period for audit logs is 400 days. Old vault keys are kept for 30 "
        "days after rotation.\n"
    ),
    "index.md": (
        "# Operations handbook\n\n"
        "Start with [key rotation](guide/rotation.md) and the "
        "[retention policy](policy/retention.md). The vault is described in the guide.\n"
    ),
}

SECRET_V1 = (
    "---\naccess: [alice]\ntitle: Vault internals\n"
    "relations:\n  - {type: supersedes, target: policy/retention.md}\n---\n"
    "# Vault internals\n\n"
    f"The {TOKEN} vault rotates keys hourly. Vault rotation keys live in the vault; the vault "
    "retention period for audit logs is 7 days. See [key rotation](../guide/rotation.md).\n\n"
    "## Key rotation\n\n"
    "Vault key rotation uses the rotate command on the vault host. The Zq9 module rotates "
    "vault keys without downtime.\n"
)
SECRET_V2 = SECRET_V1.replace("hourly", "every minute") + "\nThe vault retention is final.\n"

#: A name only the hidden document mentions (the answer stage refuses names nobody wrote).
HIDDEN_NAME = "Zq9"

#: Questions that touch the hidden document's words, title, token, name and relation.
QUERIES = (
    f"What is {TOKEN}?",
    "vault rotation",
    "Vault internals",
    "Key rotation",
    "What is the retention period for audit logs?",
    f"How does the {HIDDEN_NAME} module rotate vault keys?",
)


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, "utf-8")
    return root


def build(home_dir: Path, variant: str, store: str | None = None) -> Path:
    """``without``: public documents only. ``with``: then the hidden document added and
    changed in batches of its own. ``deleted``: added, then deleted. ``store``: the home's
    store location (default its own ``citewise.db``)."""
    src = home_dir.parent / f"src-{home_dir.name}"
    with Home.open(home_dir, store=store) as h:
        kb = h.kb()
        assert kb.add([write(src / "public", PUBLIC)]).ok
        kb.build_notes()  # topic notes (issue 40): every later commit keeps them current
        if variant in ("with", "deleted"):
            assert kb.add([write(src / "s1", {HIDDEN: SECRET_V1})]).ok
            if variant == "with":
                assert kb.add([write(src / "s2", {HIDDEN: SECRET_V2})]).ok
            else:
                kb.delete(HIDDEN)
    return home_dir
