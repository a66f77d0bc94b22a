"""Grammar of inserted words: category nouns that agree with the words around them, by construction.

A translated template names the form of a category it needs by *feature*, as a Python format spec on
the slot:

* ``{category_A}``: the noun phrase in its dictionary form (the plural nominative of the memory);
* ``{category_A:gen}``: a case form stored with the category (``forms``; e.g. Russian ``gen``,
  ``ins``);
* ``{category_A:def}``: an agreeing word *with* the noun, from the language's ``grammar.agree``
  table: ``"def": {"m": "los {}", "f": "las {}"}`` gives "las tiendas"; a pattern may use a case
  form by name (``"den {dat}"``);
* ``{category_A:=placed}``: an agreeing word *alone* (``"placed": {"m": "situados", "f":
  "situadas"}``), for a participle or adjective away from the noun. It does not count as an
  occurrence of the slot (:mod:`~mgqa_platform.multilingual.placeholders`);
* ``{rank_type:~category_A}``: a *parameter* word that agrees with the category in ``category_A``
  (an Urdu rank word: *سب سے بڑا* with a masculine category, *سب سے بڑی* with a feminine one), from
  the language's ``grammar.adjectives`` table (:class:`Agreeing`).

The agreement class of a noun is its ``gender`` (``m``, ``f``, ``n``...) refined by the sound of its
first word where the language's articles depend on it (Italian ``gli`` before a vowel, *s* +
consonant, *z*, *gn*, *ps*, *x*, *y*: class ``m.v``; French elision before a vowel or a mute *h*:
``m.v``, ``f.v``); a pattern table is looked up by the refined class, then by the gender, then
``*``. A spec written with a capital (``{category_A:How_many}``) gives the pattern capitalised, for
a word that starts a sentence.

Every spec of every template is checked against every category of the language when the memory is
validated (:func:`spec_problems`), so an unknown feature is an error before a question is rendered.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

#: A slot with an optional format spec: ``{category_A}``, ``{category_A:gen}``,
#: ``{category_A:=placed}``.
SLOT_SPEC = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?::([^{}]*))?\}")
_ITA_GLI = re.compile(r"^(?:[aeiouhèéìòù]|s[^aeiouàèéìòù]|z|gn|ps|pn|x|y)", re.IGNORECASE)
_FRA_ELISION = re.compile(r"^(?!hameau)[aeiouyhàâäéèêëîïôöûüœ]", re.IGNORECASE)


class GrammarError(ValueError):
    """A template asks for a feature the language's grammar or the category does not define."""


def agreement_class(lang: str, gender: str, text: str) -> str:
    """The class a noun agrees by: its gender, refined by sound where the article depends on it.
    ``("ita", "m", "ospedali")`` -> ``"m.v"`` (gli ospedali); ``("ita", "m", "negozi")`` -> ``"m"``;
    ``("fra", "f", "écoles")`` -> ``"f.v"`` (d'écoles)."""
    if lang == "ita" and gender == "m" and _ITA_GLI.match(text):
        return "m.v"
    if lang == "fra" and _FRA_ELISION.match(text):
        return f"{gender}.v"
    return gender


@dataclass(frozen=True)
class Noun:
    """A category noun phrase in one language, formatted by feature (see the module docstring)."""

    lang: str
    text: str
    gender: str = ""
    forms: Mapping[str, str] = field(default_factory=dict)
    agree: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def word(self, feature: str) -> str:
        """The pattern of agreeing word ``feature`` for this noun's class; GrammarError when
        undefined."""
        table = self.agree.get(feature)
        if table is None:
            raise GrammarError(f"{self.lang}: unknown feature {feature!r}")
        cls = agreement_class(self.lang, self.gender, self.text)
        pattern = table.get(cls, table.get(self.gender, table.get("*")))
        if pattern is None:
            raise GrammarError(f"{self.lang}: feature {feature!r} has no form for {cls!r}")
        return pattern

    def __format__(self, spec: str) -> str:
        if not spec:
            return self.text
        if spec.startswith("="):
            return self.word(spec[1:])
        if spec[0].isupper():
            return capitalize_start(format(self, spec[0].lower() + spec[1:]), self.lang)
        if spec in self.forms:
            return self.forms[spec]
        pattern = self.word(spec)
        try:
            return pattern.format(self.text, **self.forms)
        except (KeyError, IndexError) as exc:
            raise GrammarError(f"{self.lang}: {spec!r} needs a form the noun lacks: {exc}") from exc

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Agreeing:
    """A parameter word that agrees with a category noun of its question: ``text`` is its form in
    the memory's terms, ``forms`` its form by agreement class or gender where it differs (``{"f":
    "سب سے بڑی"}``), ``nouns`` the question's category nouns by slot. ``{rank_type:~category_A}``
    formats as the form agreeing with the noun in ``category_A``; without a spec, as ``text``."""

    lang: str
    text: str
    forms: Mapping[str, str] = field(default_factory=dict)
    nouns: Mapping[str, Noun] = field(default_factory=dict)

    def agreeing(self, noun: Noun) -> str:
        """The form that agrees with ``noun``: by its class, then its gender, else ``text``."""
        cls = agreement_class(self.lang, noun.gender, noun.text)
        return self.forms.get(cls, self.forms.get(noun.gender, self.text))

    def __format__(self, spec: str) -> str:
        if not spec:
            return self.text
        if not spec.startswith("~"):
            raise GrammarError(
                f"{self.lang}: a parameter word takes only '~<category slot>': {spec!r}"
            )
        noun = self.nouns.get(spec[1:])
        if noun is None:
            raise GrammarError(f"{self.lang}: no category noun in {spec[1:]!r} to agree with")
        return self.agreeing(noun)

    def __str__(self) -> str:
        return self.text


def specs(template: str) -> list[tuple[str, str]]:
    """``(slot, spec)`` of every slot of a template, in order; spec ``""`` when none."""
    return [(m.group(1), m.group(2) or "") for m in SLOT_SPEC.finditer(template)]


def spec_problems(
    template: str,
    nouns: Mapping[str, Noun],
    slot_nouns: Mapping[str, Mapping[str, Noun]] | None = None,
    slot_words: Mapping[str, Mapping[str, Agreeing]] | None = None,
) -> list[str]:
    """Why ``template`` cannot be rendered with each of ``nouns`` (name -> noun) in its category
    slots, with each of ``slot_nouns[slot]`` in a parameter slot whose words are nouns too
    (``collection_of_entity``), and with a parameter slot of ``slot_words`` (its words agree with a
    category) agreeing with a category slot of the template (``{rank_type:~category_A}``):
    ``"{category_A:def} with supermarket: unknown feature 'def'"``. A spec on any other slot is a
    problem too. [] when every spec renders for every noun."""
    out = []
    slots = {slot for slot, _ in specs(template)}
    for slot, spec in specs(template):
        if not spec:
            continue
        if spec.startswith("~") and slot in (slot_words or {}):
            # every word renders with every noun (a form or the term): only the slot it agrees with
            # can fail
            if not (spec[1:].startswith("category") and spec[1:] in slots):
                out.append(f"{{{slot}:{spec}}}: agrees with no category slot of the template")
            continue
        if slot.startswith("category"):
            candidates = nouns
        elif slot in (slot_nouns or {}):
            candidates = slot_nouns[slot]
        else:
            out.append(f"{{{slot}:{spec}}}: a spec on a slot that is not a category")
            continue
        for name, noun in candidates.items():
            try:
                format(noun, spec)
            except GrammarError as exc:
                out.append(f"{{{slot}:{spec}}} with {name}: {exc}")
    return out


# ---------------------------------------------------------------- French elision
_FR_VOWELS = "aeiouàâäéèêëîïôöùûüœæ"
#: h-initial words before which French elides (mute h); anything else starting with h is left alone.
_FR_MUTE_H = (
    "hôtel",
    "hotel",
    "hôpital",
    "hopital",
    "habitat",
    "habitation",
    "histoire",
    "homme",
    "heure",
    "herbe",
    "hiver",
    "hippodrome",
    "horloge",
    "horizon",
    "huile",
    "humanité",
    "hygiène",
    "hélicoptère",
    "héliport",
    "hôtel-dieu",
    "hospice",
    "harmonie",
    "hermitage",
    "ermitage",
    "hémicycle",
    "hebdomadaire",
)
_FR_NO_ELISION = {"et", "ou", "où", "à", "y", "oui", "onze", "onzième", "ouate", "a"}
#: the words French elides before a vowel-initial name (``de {Orly}`` -> ``d'{Orly}``)
_FR_ELIDING = ("de", "que", "le", "la", "ne", "se", "jusque", "lorsque", "puisque")


def french_elides(text: str) -> bool:
    """Whether French elides a word before ``text``: its first word starts with a vowel (``Orly``,
    ``écoles``) or a mute *h* from a list (``hôpital``), and is not one of the few vowel-initial
    words that refuse it (``onze``, ``oui``, ``y``). ``"Ampamoloambe"`` -> True; ``"Yaoundé"`` ->
    False."""
    m = re.match(r"[\w\-]+", text)
    w = m.group(0).lower() if m else ""
    if not w or w in _FR_NO_ELISION:
        return False
    if w[0] in _FR_VOWELS:
        return True
    return w[0] == "h" and any(w.startswith(h) for h in _FR_MUTE_H)


_FR_ELISION_BEFORE_NAME = re.compile(
    r"(?<![\w'’])(" + "|".join(_FR_ELIDING) + r") (?=\{([^{}]*)\})", re.IGNORECASE
)


def elide_before_names(text_marked: str, lang: str) -> str:
    """``text_marked`` (a filled question, each name wrapped in ``{...}``) with the French word
    before each name elided where the name asks for it, whichever put the word there: the template
    ("séparent {A} de {Ampamoloambe}" -> "séparent {A} d'{Ampamoloambe}") or a word parameter ("le
    plus près de {Isalo}" -> "le plus près d'{Isalo}"); ``De {Orly}`` -> ``D'{Orly}``. Words inside
    a name are never touched. Other languages are returned as they are."""
    if lang != "fra":
        return text_marked
    return _FR_ELISION_BEFORE_NAME.sub(
        lambda m: m.group(1)[:-1] + "'" if french_elides(m.group(2)) else m.group(0), text_marked
    )


#: Upper case of a letter where the language's differs from Unicode's default (Turkish dotted i).
_UPPER = {"tur": {"i": "İ"}}


def capitalize_start(text: str, lang: str = "") -> str:
    """The text with its first letter in title case (after opening punctuation such as ``¿``), the
    rest as is; ``lang`` for its own upper case (Turkish ``içki`` -> ``İçki``). Title case, not
    upper case: Georgian starts a sentence in Mkhedruli (its Mtavruli capitals are for headings),
    and its title case is itself."""
    for i, ch in enumerate(text):
        if ch.isalpha():
            upper = _UPPER.get(lang, {}).get(ch, ch.title())
            return text[:i] + upper + text[i + 1 :] if ch.islower() else text
        if ch.isdigit():
            return text
    return text
