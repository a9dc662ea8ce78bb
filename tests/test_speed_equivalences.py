"""Fast paths of the answer path's pure text functions give what the plain computation
gives (issue 35: each replaced a per-candidate cost, answers must not change)."""

from __future__ import annotations

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from citewise.sufficiency import near_miss
from citewise.sufficiency.wordforms import fold


def _plain_fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=0x7F)) | st.text())
def test_fold_is_the_plain_decomposition(text: str) -> None:
    assert fold(text) == _plain_fold(text)


def test_fold_still_drops_accents() -> None:
    assert fold("Hervé Ögedei") == "Herve Ogedei"


_SURFACES = st.sampled_from(["Pool", "pools", "the", "2015", "GI", "year", "what", "Act"])


@settings(max_examples=200, deadline=None)
@given(words=st.lists(_SURFACES, min_size=1, max_size=12))
def test_kept_latin_words_read_as_fresh_ones(words: list[str]) -> None:
    text = " ".join(words)
    first = near_miss.words_of(text)
    near_miss._latin_word.cache_clear()
    assert near_miss.words_of(text) == first
    # after an interrogative the next word is read as the asked category, not content
    asked = near_miss.words_of(f"what {words[0]}")
    assert asked[1].content is False
