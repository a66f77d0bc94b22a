"""Volume guard of write-audit-publish: no slice is replaced by a much smaller one.

Only audited rows are ever published (docs/data_quality.md, "Write-audit-publish"), so the published
slice *is* the last good materialization: the guard compares the staged row count of every slice an
asset writes with the published one, before the swap.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import dagster as dg
import pandas as pd

from mgqa_dagster.data_quality import gx_runner as gx
from mgqa_dagster.data_quality.checks import Check, blocking_spec, check_specs, result
from mgqa_platform.warehouse import SliceCount

ROWS_NOT_SHRUNK = "rows_not_shrunk"
DESCRIPTION = (
    "no table slice is replaced by one with fewer than MGQA_MIN_ROWS_RATIO of its published rows "
    "(unless MGQA_ALLOW_SHRINK names the table)"
)


def allowed_tables(allow_shrink: str) -> frozenset[str]:
    """The tables named in ``MGQA_ALLOW_SHRINK`` (comma-separated; ``*`` = every table)."""
    return frozenset(t.strip() for t in allow_shrink.split(",") if t.strip())


def shrink_frame(
    counts: Sequence[SliceCount], min_ratio: float, allowed: frozenset[str]
) -> pd.DataFrame:
    """One row per slice: its counts, the ratio staged/published and whether the slice may be
    swapped in.

    A slice is ``ok`` when nothing was published yet, when it keeps at least ``min_ratio`` of the
    published rows, or when its table (or ``*``) is in ``allowed``."""
    df = pd.DataFrame(
        {
            "table": [c.table for c in counts],
            "published": [c.published for c in counts],
            "staged": [c.staged for c in counts],
        }
    )
    df["ratio"] = [s / p if p else 1.0 for s, p in zip(df["staged"], df["published"], strict=True)]
    df["allowed"] = [("*" in allowed) or (t in allowed) for t in df["table"]]
    df["ok"] = (df["published"] == 0) | (df["ratio"] >= min_ratio) | df["allowed"]
    return df


def rows_not_shrunk(
    counts: Sequence[SliceCount], min_ratio: float, allow_shrink: str
) -> dg.AssetCheckResult:
    """The guard's result over ``counts`` (a GX suite: every slice ``ok``, see
    :func:`shrink_frame`)."""
    df = shrink_frame(counts, min_ratio, allowed_tables(allow_shrink))
    shrunk = df[~df["ok"]]
    return result(
        gx.run_suite(df, ROWS_NOT_SHRUNK, gx.in_set("ok", [True])),
        extra={
            "min_rows_ratio": float(min_ratio),
            "slices": json.dumps(
                {t: [int(p), int(s)] for t, p, s in zip(df["table"], df["published"], df["staged"])}
            ),
            "shrunk": json.dumps(shrunk["table"].tolist()),
        },
    )


def spec(
    asset_key: dg.AssetKey, partitions_def: dg.PartitionsDefinition | None = None
) -> dg.AssetCheckSpec:
    """The guard's blocking check spec on ``asset_key`` (its result: :func:`rows_not_shrunk`); a
    partitioned asset passes its ``partitions_def`` so each result belongs to its partition."""
    return blocking_spec(ROWS_NOT_SHRUNK, asset_key, DESCRIPTION, partitions_def)


def audited_specs(
    asset_key: dg.AssetKey,
    checks: Sequence[Check],
    partitions_def: dg.PartitionsDefinition | None = None,
) -> list[dg.AssetCheckSpec]:
    """The check specs of an asset written by write-audit-publish: its ``checks`` and the guard."""
    return [*check_specs(asset_key, checks, partitions_def), spec(asset_key, partitions_def)]
