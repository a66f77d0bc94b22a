"""Write ``mgqa_platform/data/worldkg_class_categories.csv``: WorldKG class -> our category.

Run from the repository root: ``python scripts/worldkg_class_categories.py``. Reads WorldKG's own
tag-to-class table (``mgqa_platform/data/worldkg/OSM_Ontology_map_features.csv``, MIT, Copyright (c)
2021 Alishiba Dsouza) and our ``mgqa_platform/data/osm_map_features.csv``, joined on the OSM (key,
value):

* one row per WorldKG class (``appendedClass``), with the OSM ``key`` and ``value`` it stands for. A
  class that WorldKG's table gives to several pairs (only ``RailwayCrossing``: ``railway=crossing``
  and ``railway=railway_crossing``) stands for the pair whose own CamelCase name (``camel``) is the
  class name; failing that, the first pair of the table;
* ``category``: our category of that (key, value) (``basis`` = ``osm_map_features``); for a pair our
  table lacks, the bare key, as conversion does for an unlisted value of an OSM main key (``basis``
  = ``key``);
* the classes WorldKG's builder gives a class-table key whose value is exactly ``Yes``
  (:func:`mgqa_platform.kg.worldkg_build.yes_class_name`: ``building=Yes`` -> ``Building``) where no
  table class has that name: value ``Yes``, category the bare key (``basis`` = ``key``).

Prints the classes that stand for several pairs and the count per basis, for a check by hand.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import Counter, defaultdict

from mgqa_platform.kg.worldkg_build import yes_class_name
from mgqa_platform.settings import PACKAGE_DATA

WORLDKG_TABLE = PACKAGE_DATA / "worldkg" / "OSM_Ontology_map_features.csv"
OUR_TABLE = PACKAGE_DATA / "osm_map_features.csv"
OUT = PACKAGE_DATA / "worldkg_class_categories.csv"
COLUMNS = ("worldkg_class", "key", "value", "category", "basis")


def class_pairs() -> dict[str, list[dict[str, str]]]:
    """WorldKG class -> its rows of WorldKG's table, in table order."""
    out: dict[str, list[dict[str, str]]] = defaultdict(list)
    with open(WORLDKG_TABLE, newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f, delimiter="\t"):
            out[r["appendedClass"]].append(r)
    return out


def own_pair(cls: str, rows: list[dict[str, str]]) -> dict[str, str]:
    """The (key, value) row a class stands for: its own CamelCase pair, else the first row."""
    return next((r for r in rows if r["camel"] == cls), rows[0])


def mapping_rows() -> list[dict[str, str]]:
    with open(OUR_TABLE, newline="", encoding="utf-8") as f:
        ours = {(r["key"], r["value"]): r["category"] for r in csv.DictReader(f)}
    pairs = class_pairs()
    out = []
    for key in sorted({r["key"] for rows in pairs.values() for r in rows}):
        if yes_class_name(key) not in pairs:
            pairs[yes_class_name(key)] = [{"key": key, "value": "Yes", "camel": ""}]
    for cls, rows in sorted(pairs.items()):
        r = own_pair(cls, rows)
        category = ours.get((r["key"], r["value"]))
        out.append(
            {
                "worldkg_class": cls,
                "key": r["key"],
                "value": r["value"],
                "category": category or r["key"],
                "basis": "osm_map_features" if category else "key",
            }
        )
    return out


def main() -> int:
    for cls, rows in sorted(class_pairs().items()):
        if len(rows) > 1:
            pairs = ", ".join(f"{r['key']}={r['value']}" for r in rows)
            chosen = own_pair(cls, rows)
            print(f"{cls}: {pairs} -> {chosen['key']}={chosen['value']}")
    rows = mapping_rows()
    with open(OUT, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    print(f"{OUT}: {len(rows)} classes; by basis {dict(Counter(r['basis'] for r in rows))}")
    return 0


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    sys.exit(main())
