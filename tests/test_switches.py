"""On/off environment switches (citewise/switches.py): a misspelt value is an error that
names the variable and the fix, never a silent "off"."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise.config import Settings
from citewise.errors import UsageError
from citewise.ingest import pdf_ocr
from citewise.switches import SWITCHES, check_switches, env_switch
from tests.conftest import run_cli


@pytest.mark.parametrize("raw", ["on", "ON", " 1 ", "true", "Yes"])
def test_on_values(raw: str) -> None:
    assert env_switch("CITEWISE_X", False, {"CITEWISE_X": raw}) is True


@pytest.mark.parametrize("raw", ["off", "Off", "0", "false", "no"])
def test_off_values(raw: str) -> None:
    assert env_switch("CITEWISE_X", True, {"CITEWISE_X": raw}) is False


@pytest.mark.parametrize("default", [True, False])
def test_unset_or_empty_gives_the_default(default: bool) -> None:
    assert env_switch("CITEWISE_X", default, {}) is default
    assert env_switch("CITEWISE_X", default, {"CITEWISE_X": "  "}) is default


def test_a_misspelt_value_names_the_variable_and_the_fix() -> None:
    with pytest.raises(UsageError) as err:
        env_switch("CITEWISE_DENSE", True, {"CITEWISE_DENSE": "of"})
    text = str(err.value)
    assert "CITEWISE_DENSE='of'" in text
    assert "Set CITEWISE_DENSE to on or off" in text
    assert "default (on)" in text


@pytest.mark.parametrize("name", SWITCHES)
def test_every_switch_is_checked_before_any_work(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    check_switches({name: "off"})
    monkeypatch.setenv(name, "maybe")
    with pytest.raises(UsageError, match=name):
        Settings.resolve(tmp_path / "home")
    assert not (tmp_path / "home").exists()  # nothing written


def test_the_reader_of_a_switch_refuses_a_bad_value(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITEWISE_OCR", "nope")
    with pytest.raises(UsageError, match="CITEWISE_OCR"):
        pdf_ocr.available()
    monkeypatch.setenv("CITEWISE_OCR", "off")
    assert pdf_ocr.available() is False


@pytest.mark.subprocess
def test_the_cli_says_which_switch_is_wrong(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEWISE_DENSE", "flase")
    proc = run_cli("ask", "What is a widget?", home=tmp_path / "home")
    assert proc.returncode == 2, proc.stderr
    assert "BAD_REQUEST" in proc.stderr and "CITEWISE_DENSE='flase'" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "home").exists()
