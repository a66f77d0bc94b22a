"""Role types: which entities (or categories) may fill a template placeholder.

Each role type is a SQL predicate over an ``entities`` row aliased ``e`` (the question pool adds the
strata columns). Category role types bind a *category* (``pharmacy``), rendered with its lexicon
plural ("pharmacies", ``mgqa_platform.lexicon``), and require at least ``MIN_CATEGORY_MEMBERS``
members in the KG. Their geometry kind says which categories they may bind
(``entities.category_kind``, the kind most of the category's entities have in the KG), not which
members count: the predicate selects every member, whatever its name and its own geometry kind
(docs/questions.md, "Categories and geometry kinds"). Candidates bind only bindable lexicon
categories (:func:`candidate_predicate`). Entity role types bind one entity whose display name is
rendered into the question, so :func:`predicate` adds ``name_unique`` and
:func:`name_identifies_sql`: an entity whose name stays ambiguous within its KG, or denotes a
different thing than the entity (docs/questions.md, "Display names", "Role types"), is never bound
where its name must identify it.
"""

from __future__ import annotations

from collections.abc import Mapping

from mgqa_platform.lexicon import (
    ADMIN_CATEGORIES,
    CONTAINER_CATEGORIES,
    NAME_WORDS,
    NON_IDENTIFYING_CATEGORIES,
    REGION_CATEGORIES,
    ROAD_CATEGORIES,
    SETTLEMENT_CATEGORIES,
)


def admin_level_sql(alias: str = "e") -> str:
    """SQL over the entity row ``alias``: its OSM ``admin_level`` as an integer (NULL when absent or
    not a number)."""
    return f"TRY_CAST(json_extract_string({alias}.attributes, '$.admin_level') AS INTEGER)"


#: :func:`admin_level_sql` over alias ``e``.
ADMIN_LEVEL_SQL = admin_level_sql("e")


def sql_in(values) -> str:
    """SQL list literal for ``IN``: ``('a', 'b')`` (values are internal constants, never user
    input)."""
    return "(" + ", ".join(f"'{v}'" for v in values) + ")"


ROLE_TYPES: dict[str, str] = {
    # points that are not events: shops, amenities, places, schools ...
    "poi": "e.geom_kind = 'point' AND e.valid_from IS NULL",
    # named settlements and localities (points)
    "place": f"e.geom_kind = 'point' AND e.category IN {sql_in(SETTLEMENT_CATEGORIES)}",
    # any line (roads, rails, rivers)
    "line": "e.geom_kind = 'line' AND e.valid_from IS NULL",
    "road": f"e.geom_kind = 'line' AND e.category IN {sql_in(ROAD_CATEGORIES)}",
    # any polygon that is not an event footprint
    "polygon": "e.geom_kind = 'polygon' AND e.valid_from IS NULL",
    # polygons that partition space: administrative regions, blocks, named areas
    "region": "e.geom_kind = 'polygon' AND e.valid_from IS NULL "
    f"AND e.category IN {sql_in(REGION_CATEGORIES)}",
    # administrative regions (OSM boundary=administrative, KWG admin classes), the country included
    "admin_region": f"e.geom_kind = 'polygon' AND e.valid_from IS NULL "
    f"AND e.category IN {sql_in(ADMIN_CATEGORIES)}",
    # administrative regions below the country level
    "subnational_region": f"e.geom_kind = 'polygon' AND e.valid_from IS NULL "
    f"AND e.category IN {sql_in(ADMIN_CATEGORIES)} AND e.category <> 'country' "
    f"AND coalesce({ADMIN_LEVEL_SQL}, 99) > 2",
    # places a reader knows as containing: admin regions, settlements, parks, reserves, campuses
    "container": f"e.geom_kind = 'polygon' AND e.valid_from IS NULL "
    f"AND e.category IN {sql_in(CONTAINER_CATEGORIES)}",
    # lines or polygons (things with extent)
    "extended": "e.geom_kind IN ('line', 'polygon') AND e.valid_from IS NULL",
    # anything that is not an event
    "feature": "e.valid_from IS NULL",
    # events with a time (earthquakes, fires)
    "event": "e.valid_from IS NOT NULL",
    "event_point": "e.valid_from IS NOT NULL AND e.geom_kind = 'point'",
    "event_area": "e.valid_from IS NOT NULL AND e.geom_kind = 'polygon'",
    # category roles: bind a category whose entities are mostly of the given geometry kind
    # (entities.category_kind); the members are all its entities, whatever their own geom_kind
    "category_poi": "e.category_kind = 'point' AND e.valid_from IS NULL",
    "category_line": "e.category_kind = 'line' AND e.valid_from IS NULL",
    "category_polygon": "e.category_kind = 'polygon' AND e.valid_from IS NULL",
    "category_feature": "e.valid_from IS NULL",
    "category_event_point": "e.category_kind = 'point' AND e.valid_from IS NOT NULL",
}

MIN_CATEGORY_MEMBERS = 3


#: The OSM admin_level of a country: a region count or list over polygon members leaves it out when
#: the sub-template's conventions say ``countries_excluded`` (the KG lies in one country, so a
#: reader asking which regions a road crosses means the regions below it).
COUNTRY_ADMIN_LEVEL = 2


def not_country_sql(conventions: Mapping, alias: str = "e") -> str:
    """SQL over the entity row ``alias``: TRUE, or, with ``conventions['countries_excluded']``, the
    entity is not a country (its ``attributes.admin_level`` is absent, not a number or not
    :data:`COUNTRY_ADMIN_LEVEL`). Appended to member predicates as ``AND <this>``."""
    if not conventions.get("countries_excluded"):
        return "TRUE"
    return f"coalesce({admin_level_sql(alias)}, 0) <> {COUNTRY_ADMIN_LEVEL}"


def is_category(role_type: str) -> bool:
    return role_type.startswith("category_")


def predicate(role_type: str, alias: str = "e") -> str:
    """The SQL predicate of ``role_type`` over a row aliased ``alias``: for an entity role type,
    only entities with a unique display name; for a category role type, every member of the
    category."""
    try:
        sql = ROLE_TYPES[role_type]
    except KeyError:
        raise KeyError(f"unknown role type {role_type!r}") from None
    if not is_category(role_type):
        sql = f"({sql}) AND e.name_unique"
        return sql.replace("e.", f"{alias}.") + f" AND {name_identifies_sql(alias)}"
    return sql.replace("e.", f"{alias}.")


def name_identifies_sql(alias: str = "e") -> str:
    """SQL over a row aliased ``alias``: its display name identifies the entity as what it is.

    False for a road area or an information feature (a polygon of a road category, a
    ``tourism=information`` board: their names are those of the road or of what they describe) and
    for a name that holds the word of another kind of thing (:data:`lexicon.NAME_WORDS`: a
    helipad named "Hospital Moinhos de Vento" reads as the hospital)."""
    a = alias
    clauses = [
        f"NOT ({a}.category IN {sql_in(NON_IDENTIFYING_CATEGORIES)})",
        f"NOT ({a}.geom_kind = 'polygon' AND {a}.category IN {sql_in(ROAD_CATEGORIES)})",
    ]
    for pattern, categories in NAME_WORDS:
        own = f" OR {a}.category IN {sql_in(categories)}" if categories else ""
        clauses.append(f"(NOT regexp_matches(lower({a}.display_name), '{pattern}'){own})")
    return "(" + "\n    AND ".join(clauses) + ")"


#: Temp table of the bindable lexicon categories, created with the ``pool``
#: (questions/execution.py).
BINDABLE_TABLE = "bindable_categories"


def bindable_sql(alias: str) -> str:
    """SQL: the category of the row aliased ``alias`` is a bindable lexicon category (candidate SQL
    only: it reads the temp table :data:`BINDABLE_TABLE`)."""
    return f"{alias}.category IN (SELECT category FROM {BINDABLE_TABLE})"


def candidate_predicate(role_type: str, alias: str = "p") -> str:
    """:func:`predicate` for candidate SQL: a category role type also requires a bindable lexicon
    category (``mgqa_platform.lexicon``), read from the temp table :data:`BINDABLE_TABLE`. Gold SQL
    uses :func:`predicate`, so a gold never depends on the lexicon."""
    sql = predicate(role_type, alias)
    if is_category(role_type):
        sql = f"({sql}) AND {bindable_sql(alias)}"
    return sql
