"""``citewise chat``: an interactive prompt with history (issue 22).

Each line is a turn of one conversation (``kb.conversation()``): a follow-up ("and on
Linux?", "那测试环境呢？") is rewritten into a standalone question, shown before the
answer, with the conversation's conditions inherited. Reads piped stdin too (one
question per line), so scripts and tests can drive it; ``--conversation ID`` continues a
stored conversation. An empty line or end of input ends the chat.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from citewise.cli import output as ui
from citewise.cli.options import ConditionOpt, HomeOpt, KbOpt, key_values, open_home
from citewise.config import DEFAULT_KB


def chat(
    kb: KbOpt = DEFAULT_KB,
    conversation: Annotated[
        str | None, typer.Option("--conversation", help="Continue this stored conversation.")
    ] = None,
    condition: ConditionOpt = None,
    home: HomeOpt = None,
) -> None:
    """Ask questions in a conversation: follow-ups inherit the earlier turns' conditions."""
    conditions = key_values(condition, "--condition")
    interactive = sys.stdin.isatty()
    if interactive:
        import readline  # noqa: F401  (line editing and history for input())
    with open_home(home) as h:
        talk = h.kb(kb).conversation(conversation)
        ui.out.print(f"conversation {talk.id}", markup=False)
        while True:
            try:
                line = input("? ") if interactive else sys.stdin.readline()
            except EOFError:
                break
            if not line or not line.strip():
                break
            answer = talk.ask(line.strip(), conditions=conditions or None)
            rewrite = answer.trace.get("rewrite") or {}
            if rewrite.get("rule", "none") != "none":
                ui.out.print(f"(asked: {rewrite['standalone']})", markup=False)
            ui.print_answer(answer)
            ui.out.print("", markup=False)


def register(app: typer.Typer) -> None:
    app.command("chat")(chat)
