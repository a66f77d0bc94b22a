"""Role types: which entities (or categories) may fill a template placeholder.

Each role type is a SQL predicate over an ``entities`` row aliased ``e`` (the question pool adds the
strata columns). Category role types bind a *category* (``pharmacy``), rendered in the plural
("pharmacies"), and require at least ``MIN_CATEGORY_MEMBERS`` members in the KG. Their geometry kind
says which categories they may bind (``entities.category_kind``, the kind most of the category's
entities have in the KG), not which members count: the predicate selects every member, whatever its
name and its own geometry kind (docs/questions.md, "Categories and geometry kinds"). Entity role types bind one entity whose display name is
rendered into the question, so :func:`predicate` adds ``name_unique``: an entity whose name stays
ambiguous within its KG (docs/questions.md, "Display names") is never bound where its name must
identify it.
"""

from __future__ import annotations

from mgqa_platform.kg.osm_features import key_for_value

SETTLEMENT_CATEGORIES = (
    "city",
    "town",
    "village",
    "hamlet",
    "suburb",
    "neighbourhood",
    "quarter",
    "locality",
    "isolated_dwelling",
    "place",
)
ROAD_CATEGORIES = (
    "road",
    "highway",
    "primary",
    "secondary",
    "tertiary",
    "residential",
    "trunk",
    "motorway",
    "street",
)
REGION_CATEGORIES = (
    "administrative_region",
    "boundary",
    "county",
    "city_block",
    "place",
    "suburb",
    "neighbourhood",
    "island",
)


def sql_in(values) -> str:
    """SQL list literal for ``IN``: ``('a', 'b')`` (values are internal constants, never user input)."""
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
    "region": f"e.geom_kind = 'polygon' AND e.valid_from IS NULL AND e.category IN {sql_in(REGION_CATEGORIES)}",
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
    return sql.replace("e.", f"{alias}.")


# OSM values that are not countable nouns on their own (amenity=fuel, amenity=police ...)
NOUN_FOR = {
    "fuel": "fuel station",
    "police": "police station",
    "parking": "car park",
    "drinking_water": "drinking-water point",
    "social_facility": "social facility",
    "townhall": "town hall",
    "atm": "ATM",
    # plural OSM values and mass nouns: amenity=doctors/showers/toilets, man_made=works/water_works, landuse=commercial
    "doctors": "doctor's practice",
    "showers": "public shower",
    "toilets": "public toilet",
    "works": "factory",
    "water_works": "water treatment works",
    "commercial": "commercial area",
    "man_made": "man-made structure",
}
# shop=* values that already name a kind of shop; every other shop value reads "<value> shop" (shop=clothes)
SHOP_NOUNS = {
    "supermarket",
    "bakery",
    "butcher",
    "kiosk",
    "mall",
    "florist",
    "hairdresser",
    "greengrocer",
    "chemist",
    "department_store",
    "optician",
    "boutique",
    "tailor",
    "pawnbroker",
    "laundry",
    "dry_cleaning",
}


def category_noun(category: str) -> str:
    """The singular English noun of a normalized category: ``fuel`` -> ``fuel station``, ``clothes`` (a shop=*
    value) -> ``clothes shop``, ``place_of_worship`` -> ``place of worship``."""
    if category in NOUN_FOR:
        return NOUN_FOR[category]
    words = category.replace("_", " ").strip()
    if (
        key_for_value(category) == "shop"
        and category not in SHOP_NOUNS
        and not words.endswith(("shop", "store"))
    ):
        return words + " shop"
    return words


def category_label(category: str, plural: bool = True) -> str:
    """English label of a normalized category: ``place_of_worship`` -> ``places of worship``,
    ``convenience`` -> ``convenience shops``, ``pharmacy`` -> ``pharmacies``."""
    words = category_noun(category)
    if not plural:
        return words
    head, sep, tail = words.partition(" of ")
    return _plural(head) + (sep + tail if sep else "")


def _plural(words: str) -> str:
    parts = words.split(" ")
    last = parts[-1]
    if last.isupper():  # acronyms: ATMs
        last += "s"
    elif last == "works":  # works, water treatment works: the same in the plural
        pass
    elif last.endswith(("s", "x", "z", "ch", "sh")):
        last += "es"
    elif last.endswith("y") and last[-2:-1] not in tuple("aeiou"):
        last = last[:-1] + "ies"
    else:
        last += "s"
    return " ".join([*parts[:-1], last])
