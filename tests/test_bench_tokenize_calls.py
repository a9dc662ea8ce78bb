"""bench/tokenize_calls.py: its entry point names a tree it cannot measure."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench.tokenize_calls import main


def test_a_tree_without_the_example_corpus_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["--tree", str(tmp_path)])
    assert stopped.value.code == 2
    assert f"{tmp_path}: no examples/corpus here" in capsys.readouterr().err
