"""Data-quality checks of the strata stage: countries, density cells, entity countries and
strata."""

from __future__ import annotations

import pandas as pd

from mgqa_dagster.data_quality import gx_runner as gx
from mgqa_dagster.data_quality.checks import Check, result
from mgqa_platform.strata.strata import DENSITY_TIERS, INCOME_TIERS, value_counts


def _countries(con, _):
    df = con.execute("SELECT iso3, income_tier FROM countries").df()
    return result(
        gx.run_suite(
            df, "countries", gx.unique_ids("iso3") + gx.in_set("income_tier", INCOME_TIERS)
        )
    )


def _breaks(con, _):
    df = con.execute("SELECT p33, p67, p33 < p67 AS increasing FROM density_breaks").df()
    outcome = gx.run_suite(
        df, "density_breaks", gx.row_count_between(1, 1) + gx.in_set("increasing", [True])
    )
    extra = {"p33": float(df["p33"].iloc[0]), "p67": float(df["p67"].iloc[0])} if len(df) else {}
    return result(outcome, extra=extra)


def _density_tiers(con, _):
    df = con.execute("SELECT h3, tier, density FROM density_cells").df()
    exps = (
        gx.unique_ids("h3")
        + gx.not_null("tier")
        + gx.in_set("tier", DENSITY_TIERS)
        + gx.values_between("density", 0, None)
    )
    return result(gx.run_suite(df, "density_cells", exps))


def _country_or_reason(con, kg):
    df = con.execute(
        """SELECT e.entity_id, ec.entity_id IS NOT NULL AS has_row,
                  (ec.iso3 IS NOT NULL OR ec.reason IS NOT NULL) AS country_or_reason
           FROM entities e LEFT JOIN entity_country ec USING (entity_id) WHERE e.kg = ?""",
        [kg],
    ).df()
    return result(
        gx.run_suite(
            df,
            f"entity_country_{kg}",
            gx.in_set("has_row", [True])
            + gx.in_set("country_or_reason", [True])
            + gx.unique_ids("entity_id"),
        )
    )


def _strata_domains(con, kg):
    df = con.execute(
        "SELECT entity_id, income_tier, density_tier, stratum, "
        "(stratum IS NOT NULL OR reason IS NOT NULL) AS stratum_or_reason "
        "FROM entity_strata "
        "WHERE kg = ?",
        [kg],
    ).df()
    exps = (
        gx.unique_ids("entity_id")
        + gx.in_set("income_tier", INCOME_TIERS)
        + gx.in_set("density_tier", DENSITY_TIERS)
    )
    exps += gx.in_set("stratum_or_reason", [True])
    return result(gx.run_suite(df, f"entity_strata_{kg}", exps))


def _all_income_tiers(con, _):
    counts = value_counts(con, "entity_strata", "income_tier", "income_tier IS NOT NULL")
    df = pd.DataFrame(
        {
            "income_tier": list(INCOME_TIERS),
            "entities": [int(counts.get(t, 0)) for t in INCOME_TIERS],
        }
    )
    return result(
        gx.run_suite(df, "income_tiers_present", gx.values_between("entities", 1, None)),
        extra={t: int(counts.get(t, 0)) for t in INCOME_TIERS},
    )


COUNTRY_CHECKS = (
    Check(
        "countries_valid",
        True,
        "iso3 unique; income tiers in LIC/LMC/UMC/HIC (NULL allowed, with a note)",
        _countries,
    ),
)
DENSITY_CHECKS = (
    Check("tercile_breaks_increasing", True, "one pair of cut points with p33 < p67", _breaks),
    Check(
        "density_tiers_valid",
        True,
        "cells unique, density >= 0, tier in low/medium/high",
        _density_tiers,
    ),
)
ENTITY_COUNTRY_CHECKS = (
    Check(
        "country_or_reason",
        True,
        "every entity has one row with a country or an unassigned reason",
        _country_or_reason,
    ),
)
STRATA_CHECKS = (
    Check(
        "strata_domains",
        True,
        "tiers within their domains; every entity has a stratum or a reason",
        _strata_domains,
    ),
)
COVERAGE_CHECKS = (
    Check(
        "all_income_tiers_present",
        False,
        "entities in all four World Bank income tiers",
        _all_income_tiers,
    ),
)
