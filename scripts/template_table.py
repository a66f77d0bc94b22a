"""Print the per-template table of docs/questions.md ("What the sample yields") from a built
warehouse.

Usage: ``.venv/bin/python scripts/template_table.py .mgqa/warehouse.duckdb`` (opens it read-only).
Each cell: English questions of the template in the KG (multimodal twins excluded), the number of
strata they cover in brackets; the last column counts the template's false premises over all KGs.
"""

from __future__ import annotations

import argparse

import duckdb

from mgqa_platform.questions.catalog import load_catalog

KGS = ("worldkg", "kwg", "osmh3kg")
PER_TEMPLATE_SQL = """
SELECT
    tid,
    kg,
    count(*) FILTER (WHERE NOT multimodal) AS n,
    count(DISTINCT stratum) AS strata,
    count(*) FILTER (WHERE false_premise) AS false_premises
FROM questions_en
GROUP BY ALL
"""


def main(warehouse: str) -> None:
    con = duckdb.connect(warehouse, read_only=True)
    cells: dict[str, dict[str, tuple[int, int, int]]] = {}
    for tid, kg, n, strata, fp in con.execute(PER_TEMPLATE_SQL).fetchall():
        cells.setdefault(tid, {})[kg] = (n, strata, fp)
    head = " | ".join(f"{kg} (strata)" for kg in KGS)
    print(f"| TID | sub-function | {head} | of which false premise |")
    print("|---|---|" + "---:|" * (len(KGS) + 1))
    for t in load_catalog().templates:
        row = cells.get(t.tid, {})
        shown = [f"{row[kg][0]:,} ({row[kg][1]})" if kg in row else "–" for kg in KGS]
        fp = sum(v[2] for v in row.values())
        print(f"| {t.tid} | {t.sub_function} | {' | '.join(shown)} | {fp or ''} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("warehouse", help="a built warehouse, opened read-only")
    main(parser.parse_args().warehouse)
