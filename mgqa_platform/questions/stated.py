"""Stated conventions: every convention that decides a gold is written in the question itself.

A sub-template whose executor depends on a convention a careful reader could take more than one way
(which compactness score, how near "pass by" is, whose country borders, what is simplified, whether
a boundary point is "in") names it in its catalog entry ``stated``, with the words that state it::

    stated:
      buffer: {en: "within 100 m", kept: "100"}
      compactness: "Polsby-Popper"          # a string: en and kept at once

``en`` must appear (case-insensitively) in every English variant; ``kept`` (optional) is the
language-neutral part (a number, whose unit each language writes in its own script; a metric's
proper name; a formula) that every translation memory's text of those variants keeps verbatim.
:func:`required` says which conventions a sub-template's executor depends on; :func:`problems`
lists what the catalog misses.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

#: Shape scores that decide K02, K03 and F02.2 (conventions.measure or the attribute parameter).
SHAPE_SCORES = ("compactness", "elongation")


def required(conventions: Mapping, parameters: Mapping) -> set[str]:
    """The deciding conventions of a sub-template: ``compactness`` / ``elongation`` when it
    compares or ranks by that score, ``buffer`` when it has a ``buffer_m`` (metres),
    ``impact_radius`` when a point event affects what lies within ``impact_radius_km``,
    ``border_source`` when it reads country polygons (``countries``), ``simplification`` when it
    simplifies a boundary, ``boundary`` when a boundary point counts as in a region
    (``boundary: covers``)."""
    scores = {conventions.get("measure"), *parameters.get("attribute_A", [])}
    out = {s for s in SHAPE_SCORES if s in scores}
    for key, name in (
        ("buffer_m", "buffer"),
        ("impact_radius_km", "impact_radius"),
        ("countries", "border_source"),
        ("simplification", "simplification"),
    ):
        if key in conventions:
            out.add(name)
    if conventions.get("boundary") == "covers":
        out.add("boundary")
    return out


def words(stated: Mapping, name: str) -> tuple[str, str | None]:
    """(English words, kept words or None) of one ``stated`` entry."""
    entry = stated[name]
    if isinstance(entry, str):
        return entry, entry
    return str(entry["en"]), entry.get("kept")


def kept_words(stated: Mapping) -> list[str]:
    """The language-neutral words every translation of the sub-template's variants keeps."""
    return [k for k in (words(stated, n)[1] for n in stated) if k]


def missing_in(text: str, needed: Iterable[str]) -> list[str]:
    """The ``needed`` words that ``text`` does not contain (case-insensitive)."""
    low = text.casefold()
    return [w for w in needed if w.casefold() not in low]


#: Executors that count or list the members of a polygon category meeting a place: the country the
#: KG lies in meets every place, so each such sub-template leaves countries out by construction
#: (``conventions.countries_excluded``, roles.not_country_sql) or states that they count.
REGION_MEMBER_EXECUTORS = frozenset(
    {"topology.count_intersecting", "topology.list_intersecting", "path.traverse"}
)


def country_problems(
    executor: str | None, role_types: Mapping, conventions: Mapping, stated: Mapping
) -> list[str]:
    """A polygon-category count or list (:data:`REGION_MEMBER_EXECUTORS`) that neither excludes
    countries (``countries_excluded``) nor states a ``country`` rule."""
    if executor not in REGION_MEMBER_EXECUTORS or "category_polygon" not in role_types.values():
        return []
    if conventions.get("countries_excluded") or "country" in stated:
        return []
    return ["a polygon-category count or list must exclude countries or state that they count"]


#: Extras the executor fills from the bound entity itself (the event's own year or month): as a
#: filter they remove nothing, so no variant renders them (rule name, counted per question).
SELF_FILLED_EXTRAS = {"time_period": "vacuous_time_filter"}


def vacuous_problems(extras: Iterable[str], variants: Iterable[str]) -> list[str]:
    """A variant that renders a self-filled extra (:data:`SELF_FILLED_EXTRAS`) as a filter."""
    slots = [f"{{{x}}}" for x in extras if x in SELF_FILLED_EXTRAS]
    return [
        f"v{i} renders {s}, which filters nothing ({SELF_FILLED_EXTRAS[s[1:-1]]})"
        for i, text in enumerate(variants, 1)
        for s in slots
        if s in text
    ]


def problems(
    conventions: Mapping, parameters: Mapping, stated: Mapping, variants: Iterable[str]
) -> list[str]:
    """What a sub-template misses: a deciding convention without a ``stated`` entry, a buffer or
    impact radius whose stated words lack its value (``100 m``, ``10 km``), or a variant without
    the stated English words."""
    out = [
        f"deciding convention {n!r} is not stated"
        for n in sorted(required(conventions, parameters) - set(stated))
    ]
    for name, key, unit in (
        ("buffer", "buffer_m", "m"),
        ("impact_radius", "impact_radius_km", "km"),
    ):
        value = f"{conventions.get(key):g} {unit}" if key in conventions else None
        if name in stated and value and value not in words(stated, name)[0]:
            out.append(f"stated {name} must say {value!r}")
    english = [words(stated, n)[0] for n in stated]
    for i, text in enumerate(variants, 1):
        out.extend(f"v{i} does not state {w!r}" for w in missing_in(text, english))
    return out


#: questions_valid rule names: a stored question text without a stated convention's words, and a
#: count or list that names a country where the conventions exclude countries.
UNSTATED = "convention_unstated"
COUNTRY_COUNTED = "country_counted"


def record_problems(stated: Mapping, conventions: Mapping, text: str, cited: set, countries: set):
    """Rules a stored English question breaks: :data:`UNSTATED` when ``text`` lacks the English
    words of a ``stated`` entry, :data:`COUNTRY_COUNTED` when ``conventions.countries_excluded``
    and a ``cited`` member id is in ``countries`` (entity ids whose admin_level is 2)."""
    out = []
    if missing_in(text, [words(stated, n)[0] for n in stated]):
        out.append(UNSTATED)
    if conventions.get("countries_excluded") and cited & countries:
        out.append(COUNTRY_COUNTED)
    return out


def rule_counts(sub_templates: Iterable, questions: Mapping[str, int]) -> dict[str, int]:
    """Questions per rule from ``{sub_template_id: n}``: per stated convention (``stated:<name>``),
    the rewrite :data:`SELF_FILLED_EXTRAS` names (``vacuous_time_filter``: the period not
    rendered) and ``countries_excluded``; rules with no question are left out."""
    out: dict[str, int] = {}
    for sub in sub_templates:
        n = questions.get(sub.id, 0)
        names = [f"stated:{c}" for c in sub.stated]
        names += [SELF_FILLED_EXTRAS[x] for x in sub.extras if x in SELF_FILLED_EXTRAS]
        names += ["countries_excluded"] if sub.conventions.get("countries_excluded") else []
        for name in names:
            if n:
                out[name] = out.get(name, 0) + n
    return dict(sorted(out.items()))
