"""Question constraints the quoted sentence itself must meet (near misses).

A question that names the right subject with one detail changed ("Who did the Normans
besiege in the 11th century?" over a text about the 10th; "What is *not* a common
example ..." over the sentence that lists the common ones) is answered, wrongly, by the
sentence that nearly answers it: it shares every other word. The subject gates look at
the evidence as a whole; these look at each unit an answer would quote, with the context
that unit carries (its section headings, the sentence before a pronoun):

* **numbers** - years, ordinals and other figures of the question ("1598", "11th",
  "eleventh century", "4-cylinder") appear in the unit, or a compatible form does (the
  year inside a named decade, century or range; "11th" as "eleventh");
* **names** - the question's distinctive names (weighed by :mod:`presence`: not the
  knowledge base's own everywhere-name) appear in the unit, its headings or its paragraph;
* **relation** - the question's rare words that the knowledge base holds ("besiege"),
  at least half of them and one of the rarest (below :data:`RARE_ZIPF`) when it has
  any, appear in the unit or its headings: a sentence about the same
  names doing something else does not answer, even beside one that does;
* **polarity** - a negated or "least" question is answered by a unit that negates or
  ranks low too, never by the plain statement; a negation must stand near a word of the
  question (:func:`negates`), not negate something else in the sentence;
* **answer type** - "when did / what year" wants a date in the unit, "how many / how
  much" a count, other than the question's own figures (:mod:`answer_type`: not any
  digit, and a date's year is no count).

Statements (claims to check, such as SciFact's) carry no constraints: a claim is
checked as a whole, not answered by a unit.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from citewise.analysis.question import Question
from citewise.analysis.tokenize import QUESTION_STEMS, has_cjk, tokenize
from citewise.analysis.zh_edition import without_edition
from citewise.sufficiency.answer_type import (
    DATE_Q,
    QUANTITY_Q,
    AnswerType,
    expected_of,
    figures_of,
    gives_date,
    gives_quantity,
    gives_time,
    present,
)
from citewise.sufficiency.figures import (
    NUMBER_WORDS,
    Constraint,
    Kind,
    number_found,
    question_figures,
)
from citewise.sufficiency.floor import unmentioned
from citewise.sufficiency.measure import asks_measure, gives_measure
from citewise.sufficiency.presence import FILLER, TermProfile, english_zipf, is_question
from citewise.sufficiency.wordforms import fold, held, tokens
from citewise.sufficiency.zh_answer_type import (
    gate_kind,
    question_figures_zh,
    type_cue,
    unit_has_type,
)
from citewise.sufficiency.zh_measure import question_amounts, states_amount
from citewise.sufficiency.zh_terms import PREFIX as ZH_WORDS
from citewise.sufficiency.zh_terms import held_words, words_constraint

__all__ = [
    "NUMBER_WORDS",
    "Constraint",
    "UnitGate",
    "number_found",
    "question_constraints",
    "reason",
    "unmet",
]

#: Words of the question below this frequency in English (Zipf; "besiege" 2.6,
#: "seeks" 4.1, "invade" 4.2; not "prefer" 4.6 or "made" 5.6) name the relation asked
#: about. 4.6 since a derived form counts (:mod:`wordforms`: "invasion" for "invade"):
#: at 4.2 (the subject presence cut) SQuAD 2.0 near misses were answered without the
#: relation; 4.8 refused documentation answers worded another way.
RELATION_ZIPF = 4.6
#: Relation words below this frequency are the rare ones ("decorator", "besiege"): when the
#: question has one, a unit holds at least one of them, besides half of all ("the fence
#: decorator" is not met by a "Fences" heading alone).
RARE_ZIPF = 4.2


_NEGATION_Q = re.compile(r"\b(?:not|never|cannot)\b|n't\b|n’t\b", re.I)
#: A negation after one of these is a condition of the question ("what is sent when the
#: header does not validate"), not the relation asked about.
_SUBORDINATE = re.compile(
    r"\b(?:when|whenever|if|unless|while|although|though|because|since|whether|once)\b", re.I
)
_NEGATION_T = re.compile(
    r"\b(?:not|never|no|none|nor|neither|without|cannot|unable|fail(?:s|ed)?|lack(?:s|ed)?|"
    r"refus(?:e|ed|es)|prohibit\w*|forb\w+|ban(?:s|ned)?|except|excepting|exclud(?:e|es|ed|ing))\b|n't\b|n’t\b",
    re.I,
)
_LEAST_Q = re.compile(r"\b(?:least|fewest)\b", re.I)
_LEAST_T = re.compile(
    r"\b(?:least|fewest|lowest|smallest|minimum|minimal|rarely|seldom|weakest|worst)\b",
    re.I,
)
#: The condition of a question ("After an instrument loses its connection, ...", "... when
#: the header does not validate") or its purpose ("... to qualify for the liability
#: limitations?", "in order to ..."): its words set the scene, the relation is elsewhere.
_CONDITION = re.compile(
    r"^\s*(?:after|when|whenever|if|once|before|while|unless)\b[^,?]*,|"
    r"(?<=\S)\s(?:when|whenever|if|unless|once)\b[^,?]*|"
    r"(?<=\S)\s(?:in order to|so as to|to (?:qualify|be eligible|be entitled) (?:for|to))\s[^,?]*",
    re.I,
)


def _relation_word(word: str) -> bool:
    """A content word that says what the question asks about ("besiege", "grandfather",
    "prefer"), not a function word or filler ("made", "also")."""
    key = tokenize(word)
    return (
        word.isalpha()
        and not (word.islower() and word.endswith("ly"))  # "essentially": how, not what
        and english_zipf(word) < RELATION_ZIPF
        and bool(key)
        and key[0] not in FILLER
        and key[0] not in QUESTION_STEMS
    )


def question_constraints(
    question: Question, profile: TermProfile | None = None
) -> tuple[Constraint, ...]:
    """The constraints a unit quoted for ``question`` must meet (none for a statement).
    ``profile`` weighs the question's names; without it names are not constrained."""
    text = question.text
    if not is_question(text):
        return ()
    out = question_figures(without_edition(text))  # an edition's year is no figure
    if profile is not None:
        out += _term_constraints(question, profile, out)
    if not text.isascii() and (zh_words := words_constraint(text)) is not None:
        out.append(zh_words)  # Chinese: the distinctive words asked about (zh_terms)
    if not text.isascii():  # Chinese: the amounts the question states (zh_measure)
        out += [Constraint("number", a, ZH_AMOUNT + a) for a in question_amounts(text)]
    out += _polarity(question)
    out += _answer_type(question)
    return tuple(out)


def _term_constraints(
    question: Question, profile: TermProfile, figures: list[Constraint]
) -> list[Constraint]:
    """Each required name of the question, then the relation asked about (its rare content
    words: half of them at least, one rare one), leaving out the question's figures, soft
    terms, the answer type's own words and the words of its condition or purpose."""
    text = question.text
    numbers = " ".join(c.surface for c in figures)
    # the answer type's own words ("what percentage", "which year") are no relation
    cue = " ".join(m.group(0).lower() for p in (DATE_Q, QUANTITY_Q) for m in p.finditer(text))
    condition = set(tokenize(" ".join(m.group(0) for m in _CONDITION.finditer(text))))
    out: list[Constraint] = []
    relation = []
    for t in profile.terms:
        if t.soft or t.surface in numbers:
            continue
        if t.kind == "word" and (t.surface.lower() in cue.split() or t.key in condition):
            continue
        if t.kind == "name" and t.required:
            out.append(Constraint("name", t.surface, t.key))
        elif t.kind == "word" and t.df > 0 and not t.kb_common and _relation_word(t.surface):
            if not t.surface.isascii() and has_cjk(t.surface):
                continue  # a Chinese bigram: Chinese words are read whole (zh_terms)
            relation.append(t)
    if relation:  # the relation asked about: half its words at least, one rare one
        words = " ".join(t.surface for t in relation)
        keys = [("!" if english_zipf(t.surface) < RARE_ZIPF else "") + t.key for t in relation]
        out.append(Constraint("words", words, " ".join(keys)))
    return out


def _polarity(question: Question) -> list[Constraint]:
    """A negated question (not a "why" question, nor a negation inside a subordinate clause)
    asks for what is not; a "least" question for the least."""
    text = question.text
    out: list[Constraint] = []
    neg = _NEGATION_Q.search(text)
    first = re.match(r"\s*\S+", text)
    opening = first.end() if first else 0
    why = text.lstrip().lower().startswith("why")  # the negation is the fact explained
    if neg and not why and not _SUBORDINATE.search(text, opening, max(opening, neg.start())):
        asked = [t for t in question.tokens if t not in QUESTION_STEMS and t not in _NEGATED]
        out.append(Constraint("polarity", neg.group(0), " ".join(["not", *asked])))
    m = _LEAST_Q.search(text)
    if m:
        out.append(Constraint("polarity", m.group(0), "least"))
    return out


def _answer_type(question: Question) -> list[Constraint]:
    """A "when" question wants a date, a "how many / how much" one a count or quantity;
    the question's own figures answer neither."""
    text = question.text
    own = ",".join(figures_of(question))  # the question's own figures answer nothing
    if not text.isascii() and (zh := zh_constraint(question)) is not None:
        return [zh]
    if DATE_Q.search(text):
        return [Constraint("date", "when", f"date:{own}")]
    if QUANTITY_Q.search(text):
        q = QUANTITY_Q.search(text)
        said = q.group(0) if q else "how many"
        count = said.lower().split()[-1] in ("many", "much")  # a count: no year, no clock
        return [Constraint("quantity", said, f"{'count' if count else 'quantity'}:{own}")]
    if expected_of(text) is AnswerType.TIME:  # "when does ...": a time or occasion
        return [Constraint("time", "when", f"time:{own}")]
    return []


def zh_constraint(question: Question) -> Constraint | None:
    """The hard answer-type gate of a Chinese ``question`` (:mod:`zh_answer_type`):
    何时 wants a time, 多少 / 几 a number (in the measure it names: 几天, 多少元), 第几 a
    numbered reference, each other than the question's own figures ("1996年"), and 哪个
    机关 a body; who and where else are no gate (a weight for the score)."""
    text = question.text
    kind = gate_kind(text)
    if kind is None:
        return None
    own = ",".join(question_figures_zh(text) + figures_of(question))
    cue = type_cue(text)
    ckind: Kind = "date" if kind == "time" else "agent" if kind == "agent" else "quantity"
    return Constraint(ckind, cue, f"zh-{kind}:{own}")


#: The key prefix of an amount a Chinese question states (三十年), met by the unit alone.
ZH_AMOUNT = "zh-amount:"

#: Index tokens of the question's own negation words (never the negated relation).
_NEGATED = frozenset(tokenize("not never cannot no"))
#: How near a negation of the unit must stand to a word of the question: that many words
#: after it ("are not common") or before it ("common ones are not").
NEGATION_AFTER = 6
NEGATION_BEFORE = 3


def negates(c: Constraint, text: str) -> bool:
    """Whether ``text`` negates what a negated question asks about: a negation with a word
    of the question near it ("measures are not common" for "What is not a common
    measure?"), not a negation of something else in the sentence ("exempt from taxes (but
    not EU taxes)" for "Who weren't exempt from the Ministry?")."""
    words = set(c.key.split()[1:])
    for m in _NEGATION_T.finditer(text):
        if not words:
            return True
        near = text[m.end() :].split()[:NEGATION_AFTER]
        near += text[: m.start()].split()[-NEGATION_BEFORE:]
        if any(words.intersection(tokens(w)) for w in near):
            return True
    return False


def unmet(
    constraints: Sequence[Constraint],
    text: str,
    headings: Iterable[str] = (),
    paragraph: str = "",
    context: str = "",
    lead: str = "",
) -> tuple[Constraint, ...]:
    """The constraints ``text`` (a unit an answer would quote) fails. Its ``headings`` may
    supply a name or a relation word, the ``paragraph`` it sits in a name; neither ever
    supplies a figure, the polarity or the answer type. Its ``context`` (document title,
    path, file kind, edition and date: :func:`citewise.answer.units.context.context_text`)
    supplies a name, a relation word or a year, the same way for every question (a year
    is met by the sentence or by where it stands, never by neither). Its ``lead`` (its own
    block's text before it: :mod:`citewise.sufficiency.paragraph_topic`) supplies a
    relation word, as headings do."""
    own = tokens(text)
    headed = own.union(*(tokens(line) for line in headings), tokens(context), tokens(lead))
    around = headed.union(tokens(paragraph))
    out = []
    for c in constraints:
        if c.key.startswith(ZH_AMOUNT):  # stated in the unit itself (zh_measure)
            ok = states_amount(text, c.surface)
        elif c.kind == "number":
            ok = number_found(c, text) or (_is_year(c) and number_found(c, context))
        elif c.kind == "name":
            ok = held(c.key, around) or fold(c.surface).lower() in fold(text).lower()
        elif c.key.startswith(ZH_WORDS):  # a Chinese question's words (zh_terms)
            ok = held_words(c.key, [text, *headings, context], [paragraph])
        elif c.kind == "words":
            keys = [k.lstrip("!") for k in c.key.split()]
            rare = [k[1:] for k in c.key.split() if k.startswith("!")]
            ok = 2 * sum(held(k, headed) for k in keys) >= len(keys)
            ok = ok and (not rare or any(held(k, headed) for k in rare))
        else:
            ok = _value_met(c, text)
        if not ok:
            out.append(c)
    return tuple(out)


def _value_met(c: Constraint, text: str) -> bool:
    """Whether ``text`` itself holds the value a polarity or answer-type constraint asks
    for (never its headings or context: a figure, a negation, a date must be in the unit)."""
    if c.kind == "polarity":
        return negates(c, text) if c.key.startswith("not") else bool(_LEAST_T.search(text))
    if c.key.startswith("zh-"):  # a Chinese question's type (zh_answer_type)
        return unit_has_type(text, c.key[3:].partition(":")[0], _asked(c))
    if c.kind == "date":
        return gives_date(text, _asked(c))
    if c.kind == "time":
        return gives_time(text, _asked(c))
    if c.kind in ("structure", "near_miss", "meaning"):  # given by the admission
        return False
    if c.key.startswith("count"):
        return gives_quantity(text, _asked(c))
    if asks_measure(c.surface):  # "how long": a duration or length, not any figure
        return gives_measure(text)
    return AnswerType.NUMBER in present(text)  # a figure, a number word


def _is_year(c: Constraint) -> bool:
    """A number constraint that is a year ("2013"), which a unit's context may hold."""
    return c.key.isdigit() and len(c.key) == 4 and 1000 <= int(c.key) <= 2199


def _asked(c: Constraint) -> list[str]:
    """The question's own figures an answer-type constraint carries ("date:1598")."""
    return [v for v in c.key.partition(":")[2].split(",") if v]


def reason(failures: Sequence[tuple[Constraint, ...]]) -> str:
    """A true reason, in the question's words, for refusing when every candidate unit failed
    (``failures``: what each one failed, the closest unit first): what no unit held, else
    what the closest unit lacks."""
    if not failures:
        return ""
    # a unit's other failures say why it is no answer; its low relevance (or the near
    # miss that lowered it) adds nothing
    soft = ("relevance", "near_miss")
    failures = [tuple(c for c in f if c.kind not in soft) or f for f in failures]
    common = [c for c in failures[0] if all(c in f for f in failures[1:])]
    if common:
        words = " and ".join(dict.fromkeys(_words(c) for c in common))
        return f"constraint_unmet:no passage found {words}"
    lacks = " and ".join(dict.fromkeys(_lacks(c) for c in failures[0]))
    return f"constraint_unmet:the closest passage found {lacks}"


def _words(c: Constraint) -> str:
    if c.kind == "relevance":
        return f"mentions {_either(c.surface)}" if c.surface else "is close enough"
    if c.key.startswith(ZH_AMOUNT):  # quoted: the answer text names the amount asked
        return f"states '{c.surface}'"
    if c.kind == "number" or c.kind == "name":
        return f"mentions {c.surface}"
    if c.kind == "words":
        return _relation(c, "mentions")
    if c.kind == "polarity":
        return f"says '{c.surface}'"
    if c.kind == "date":
        return "gives a date"
    if c.kind == "time":
        return "says when"
    if c.kind == "agent":  # a Chinese *which body* question (zh_answer_type)
        return f"names a body for '{c.surface}'"
    if c.kind == "structure":
        return "is more than a title, caption or list lead-in"
    if c.kind == "near_miss":  # what the passages say in its place
        return f"says '{c.surface}', only '{c.key}'"
    if c.kind == "meaning":  # read by the cross-encoder as no answer (answer/unit_meaning)
        return f'answers "{c.surface}?"'
    return f"gives a figure for '{c.surface}'"


def _relation(c: Constraint, verb: str) -> str:
    words = c.surface.split()
    if len(words) <= 2:
        return f"{verb} {' or '.join(words)}"
    return f"{verb} half of: {', '.join(words)}"


def _either(words: str) -> str:
    """ "issue, Edict or Nantes": each of the words (a unit lacking them lacks every one)."""
    parts = words.split()
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} or {parts[-1]}"


def _lacks(c: Constraint) -> str:
    if c.kind == "relevance":
        if c.surface:
            return f"does not mention {_either(c.surface)}"
        return "matches the question too weakly"
    if c.key.startswith(ZH_AMOUNT):
        return f"does not state '{c.surface}'"
    if c.kind in ("number", "name"):
        return f"does not mention {c.surface}"
    if c.kind == "words":
        return _relation(c, "does not mention")
    if c.kind == "polarity":
        return f"does not say '{c.surface}'"
    if c.kind == "date":
        return "gives no date"
    if c.kind == "time":
        return "does not say when"
    if c.kind == "agent":
        return f"names no body for '{c.surface}'"
    if c.kind == "structure":
        return f"is only a {c.surface.replace('_', '-')} line"
    if c.kind == "near_miss":  # the unit's words in place of the question's
        return f"says '{c.key}', not '{c.surface}'"
    if c.kind == "meaning":
        return f'does not answer "{c.surface}?"'
    return f"gives no figure for '{c.surface}'"


class UnitGate:
    """The admission test for one question's answer units: a unit passes when it meets
    every constraint (with its headings as context for names); each refusal is recorded,
    so a question whose every unit failed is refused with :func:`reason`."""

    def __init__(
        self,
        constraints: Sequence[Constraint],
        question: Question | None = None,
        floor: float = 0.0,
    ) -> None:
        self.constraints = tuple(constraints)
        #: Units scored below ``floor`` fail too (:mod:`citewise.sufficiency.floor`); the
        #: reason then names the ``question``'s words they lack.
        self.question = question
        self.floor = floor
        self._failed: list[tuple[float, int, tuple[Constraint, ...]]] = []

    def __call__(
        self,
        text: str,
        headings: Iterable[str],
        score: float = 0.0,
        paragraph: str = "",
        refused: Sequence[Constraint] = (),
        context: str = "",
        lead: str = "",
    ) -> bool:
        """Whether the unit ``text`` passes; ``refused``: what a hard gate outside the
        question's constraints already failed it for (a structural line); ``context``: the
        unit's document context (title, path, edition, section), where a year may be met;
        ``lead``: its own block before it, where a relation word may be met."""
        if not self.constraints and not refused:
            return True
        headings = list(headings)
        failed = (*unmet(self.constraints, text, headings, paragraph, context, lead), *refused)
        if score < self.floor:
            said = () if self.question is None else unmentioned(self.question, text, headings)
            lacking = " ".join(said)
            failed = (*failed, Constraint("relevance", lacking, "relevance"))
        if failed:
            self._failed.append((-score, len(self._failed), failed))
        return not failed

    @property
    def failures(self) -> list[tuple[Constraint, ...]]:
        """What each refused unit failed, the closest (best-scored) unit first."""
        return [f for _, _, f in sorted(self._failed)]

    def refusal(self) -> str:
        """The reason to refuse, once no unit passed (empty when none was refused)."""
        return reason(self.failures)
