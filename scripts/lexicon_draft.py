"""List the categories that the category lexicon lacks, as draft rows to review.

A maintainer script (not run by the pipeline). A category can come from the OSM map-feature table, a
bare OSM key, the KnowWhereGraph class table or, with ``--warehouse``, a built warehouse's
``entities`` (with its largest member count in one KG). Each missing category is printed as a CSV
row of ``mgqa_platform/data/category_lexicon.csv`` with its own words, a naive plural,
``bindable = false`` and a note saying it is unreviewed: a person fixes the words and decides
``bindable`` before the row is added (docs/questions.md, "Category words").

Usage::

    python scripts/lexicon_draft.py [--warehouse .mgqa/warehouse.duckdb]
"""

from __future__ import annotations

import argparse
import csv
import sys

import duckdb

from mgqa_platform import lexicon
from mgqa_platform.kg import osm_features, profiles


def table_categories() -> set[str]:
    """Every category the KG builders can produce from the package's category tables."""
    cats = {fc.category for fc in osm_features.map_features().values()}
    cats |= set(osm_features.MAIN_KEYS)
    cats |= set(profiles.kwg_categories().values())
    return cats


def warehouse_members(path: str) -> dict[str, int]:
    """Category -> its largest member count in one KG of the warehouse at ``path`` (read-only)."""
    con = duckdb.connect(path, read_only=True)
    try:
        rows = con.execute(
            """
            SELECT category, max(n)
            FROM (
                SELECT kg, category, count(*) AS n
                FROM entities
                GROUP BY kg, category
            )
            GROUP BY category
            """
        ).fetchall()
    finally:
        con.close()
    return dict(rows)


def draft_row(category: str, members: int | None) -> list[str]:
    words = category.replace("_", " ")
    seen = "" if members is None else f"; {members} members in the warehouse"
    return [category, words, words + "s", "false", "draft, not reviewed" + seen]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--warehouse", help="a built warehouse.duckdb to read entities from")
    args = parser.parse_args()
    members = warehouse_members(args.warehouse) if args.warehouse else {}
    missing = sorted((table_categories() | set(members)) - set(lexicon.entries()))
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(lexicon.COLUMNS)
    for category in missing:
        out.writerow(draft_row(category, members.get(category)))
    print(f"{len(missing)} categories missing from the lexicon", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
