"""Entity density tiers, the 4 x 3 strata grid per entity, its coverage and the world map.

Inputs are warehouse tables written by the earlier strata steps: ``countries`` and
``entity_country`` (:mod:`countries`), ``density_cells`` (:mod:`density`). Every function here is
SQL over one connection plus, for the map, matplotlib.
"""

from __future__ import annotations

import io
from pathlib import Path

import duckdb

from mgqa_platform import markdown
from mgqa_platform.warehouse import replace_partition

INCOME_TIERS: tuple[str, ...] = ("HIC", "UMC", "LMC", "LIC")
DENSITY_TIERS: tuple[str, ...] = ("low", "medium", "high")
INCOME_COLORS = {"HIC": "#1b9e77", "UMC": "#7570b3", "LMC": "#d95f02", "LIC": "#e7298a"}


def assign_density(con: duckdb.DuckDBPyConnection, kg: str) -> dict[str, int]:
    """Fill ``entity_density`` for one KG: the entity's resolution-3 cell (``h3[1]``, from its
    representative point) joined with ``density_cells``. Cells without valid population pixels give
    a NULL tier with a reason, never a dropped row. Returns counts per tier ('none' for NULL)."""
    replace_partition(
        con,
        "entity_density",
        "kg",
        kg,
        """SELECT e.entity_id, e.kg, e.h3[1], d.density, d.tier,
                  CASE WHEN d.h3 IS NULL THEN 'no valid population pixels in H3 cell ' || e.h3[1]
                      END
           FROM entities e LEFT JOIN density_cells d ON d.h3 = e.h3[1]
           WHERE e.kg = ? ORDER BY e.entity_id""",
        [kg],
    )
    return density_counts(con, kg)


def value_counts(
    con: duckdb.DuckDBPyConnection,
    table: str,
    value: str,
    where: str,
    params: list | None = None,
    count: str = "count(*)",
) -> dict:
    """``{value: count}`` over the rows of ``table`` that match ``where`` (SQL, ``?`` bound to
    ``params``), by the SQL expression ``value``, in the order of the values."""
    sql = f"SELECT {value}, {count} FROM {table} WHERE {where} GROUP BY 1 ORDER BY 1"
    return dict(con.execute(sql, params or []).fetchall())


def density_counts(con: duckdb.DuckDBPyConnection, kg: str) -> dict[str, int]:
    """Entities of ``kg`` per density tier in ``entity_density`` ('none' for NULL)."""
    return value_counts(con, "entity_density", "coalesce(density_tier, 'none')", "kg = ?", [kg])


def assign_strata(con: duckdb.DuckDBPyConnection, kg: str) -> dict[str, int]:
    """Fill ``entity_strata`` for one KG from ``entity_country`` + ``countries`` +
    ``entity_density``.

    ``stratum`` is ``'<income>/<density>'`` (e.g. ``'LIC/high'``) when both tiers are known, else
    NULL with the reasons joined. Returns counts per stratum ('none' for NULL)."""
    replace_partition(
        con,
        "entity_strata",
        "kg",
        kg,
        """SELECT e.entity_id, e.kg, ec.iso3, c.income_tier, ed.density_tier, ed.density,
                  CASE WHEN c.income_tier IS NOT NULL AND ed.density_tier IS NOT NULL
                       THEN c.income_tier || '/' || ed.density_tier END,
                  nullif(concat_ws('; ',
                      CASE WHEN ec.iso3 IS NULL THEN coalesce(ec.reason, 'no country assignment')
                          END,
                      CASE WHEN ec.iso3 IS NOT NULL AND c.income_tier IS NULL THEN
                          coalesce(c.income_note, 'no income tier') END,
                      CASE WHEN ed.density_tier IS NULL THEN coalesce(ed.reason, 'no density tier')
                          END), '')
           FROM entities e
           LEFT JOIN entity_country ec USING (entity_id)
           LEFT JOIN countries c ON c.iso3 = ec.iso3
           LEFT JOIN entity_density ed USING (entity_id)
           WHERE e.kg = ? ORDER BY e.entity_id""",
        [kg],
    )
    return strata_counts(con, kg)


def strata_counts(con: duckdb.DuckDBPyConnection, kg: str) -> dict[str, int]:
    """Entities of ``kg`` per stratum in ``entity_strata`` ('none' for NULL)."""
    return value_counts(con, "entity_strata", "coalesce(stratum, 'none')", "kg = ?", [kg])


def coverage(con: duckdb.DuckDBPyConnection) -> dict:
    """The strata grid over all KGs: entities and countries per (income, density) cell, tier shares,
    and entities without a stratum by reason. Plain dicts, ready for asset metadata."""
    grid = {
        f"{i}/{d}": {"entities": 0, "countries": 0} for i in INCOME_TIERS for d in DENSITY_TIERS
    }
    for stratum, n, c in con.execute(
        "SELECT stratum, count(*), count(DISTINCT iso3) "
        "FROM entity_strata "
        "WHERE stratum IS NOT NULL "
        "GROUP BY 1"
    ).fetchall():
        grid[stratum] = {"entities": int(n), "countries": int(c)}
    total = int(con.execute("SELECT count(*) FROM entity_strata").fetchone()[0])
    income = value_counts(con, "entity_strata", "income_tier", "income_tier IS NOT NULL")
    density = value_counts(con, "entity_strata", "density_tier", "density_tier IS NOT NULL")
    countries = value_counts(
        con, "entity_strata", "income_tier", "income_tier IS NOT NULL", count="count(DISTINCT iso3)"
    )
    missing = dict(
        con.execute(
            "SELECT reason, count(*) "
            "FROM entity_strata "
            "WHERE stratum IS NULL "
            "GROUP BY 1 "
            "ORDER BY 2 DESC "
            "LIMIT 10"
        ).fetchall()
    )
    return {
        "entities_total": total,
        "grid": grid,
        "income_share": {
            t: round(income.get(t, 0) / total, 4) if total else 0.0 for t in INCOME_TIERS
        },
        "density_share": {
            t: round(density.get(t, 0) / total, 4) if total else 0.0 for t in DENSITY_TIERS
        },
        "countries_per_income_tier": {t: int(countries.get(t, 0)) for t in INCOME_TIERS},
        "without_stratum_by_reason": missing,
    }


def grid_markdown(cov: dict) -> str:
    """The paper's Table 2 layout: rows income tiers, columns density tiers, cells 'entities
    (countries)'."""
    rows = []
    for i in INCOME_TIERS:
        cells = [cov["grid"][f"{i}/{d}"] for d in DENSITY_TIERS]
        n = sum(c["entities"] for c in cells)
        counts = [f"{c['entities']:,} ({c['countries']})" for c in cells]
        rows.append([i, *counts, f"{n:,}", f"{cov['income_share'][i]:.1%}"])
    header = ["income \\ density", *DENSITY_TIERS, "entities", "share"]
    return "\n".join(markdown.table(header, rows))


def world_map_png(con: duckdb.DuckDBPyConnection, out: str | Path, title: str) -> dict:
    """Distinct entity sites (points rounded to 1e-4 degree) coloured by income tier over the
    country polygons (plate carree, lon/lat). Writes a deterministic PNG; returns site counts per
    tier."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import shapely

    sites = con.execute(
        """SELECT DISTINCT round(e.lon, 4) AS lon, round(e.lat, 4) AS lat, s.income_tier
           FROM entities e JOIN entity_strata s USING (entity_id) WHERE s.income_tier IS NOT NULL
               ORDER BY ALL"""
    ).fetchall()
    fig, ax = plt.subplots(figsize=(12, 6), dpi=100)
    for (wkb,) in con.execute("SELECT ST_AsWKB(geometry) FROM countries ORDER BY iso3").fetchall():
        g = shapely.from_wkb(bytes(wkb))
        for poly in getattr(g, "geoms", [g]):
            if poly.geom_type == "Polygon":
                x, y = poly.exterior.xy
                ax.fill(x, y, color="#eeeeee", edgecolor="#bbbbbb", linewidth=0.3)
    counts = {}
    for tier in INCOME_TIERS:
        pts = [(lo, la) for lo, la, t in sites if t == tier]
        counts[tier] = len(pts)
        if pts:
            xs, ys = zip(*pts, strict=True)
            ax.scatter(
                xs,
                ys,
                s=2,
                color=INCOME_COLORS[tier],
                label=f"{tier} ({len(pts):,})",
                rasterized=True,
            )
    ax.set_xlim(-180, 180)
    ax.set_ylim(-90, 90)
    ax.set_aspect("equal")
    ax.set_xlabel("longitude (degrees, EPSG:4326)")
    ax.set_ylabel("latitude")
    ax.set_title(title)
    ax.legend(loc="lower left", markerscale=4, fontsize=9)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_bytes(buf.getvalue())
    return counts
