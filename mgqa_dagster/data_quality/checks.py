"""The check pattern shared by every stage: a named GX suite over exactly the rows it judges.

A :class:`Check` is a name, whether it **blocks** downstream materialization, a description and a
function ``(con, partition) -> AssetCheckResult``. An asset declares its checks with
:func:`check_specs` and yields :func:`run_checks` right after its write (see docs/data_quality.md).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import partial

import dagster as dg
import duckdb

from mgqa_dagster.data_quality import gx_runner as gx


@dataclass(frozen=True)
class Check:
    """A named check; ``allow_empty`` declares that it may pass on 0 rows (see :func:`judged`)."""

    name: str
    blocking: bool
    description: str
    run: Callable[[duckdb.DuckDBPyConnection, str | None], dg.AssetCheckResult]
    allow_empty: bool = False


def result(
    outcome: gx.SuiteOutcome, *, warn: bool = False, extra: dict | None = None
) -> dg.AssetCheckResult:
    """An AssetCheckResult from a GX outcome (severity WARN for non-blocking sanity checks)."""
    return dg.AssetCheckResult(
        passed=outcome.success,
        severity=dg.AssetCheckSeverity.WARN if warn else dg.AssetCheckSeverity.ERROR,
        description=outcome.description(),
        metadata={**outcome.metadata(), **(extra or {})},
    )


def blocking_spec(
    name: str,
    asset_key: dg.AssetKey,
    description: str,
    partitions_def: dg.PartitionsDefinition | None = None,
    *,
    blocking: bool = True,
) -> dg.AssetCheckSpec:
    """The spec of check ``name`` on ``asset_key``; a partitioned asset passes its
    ``partitions_def`` so that each result belongs to the partition it judged (the UI shows checks
    per partition). Dagster 1.13 marks partitioned check specs as a preview; its warning is not
    repeated per spec."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dg.PreviewWarning)
        return dg.AssetCheckSpec(
            name,
            asset=asset_key,
            blocking=blocking,
            description=description,
            partitions_def=partitions_def,
        )


def check_specs(
    asset_key: dg.AssetKey,
    checks: Sequence[Check],
    partitions_def: dg.PartitionsDefinition | None = None,
) -> list[dg.AssetCheckSpec]:
    """The specs of ``checks`` on ``asset_key`` (:func:`blocking_spec`)."""
    return [
        blocking_spec(c.name, asset_key, c.description, partitions_def, blocking=c.blocking)
        for c in checks
    ]


def non_blocking(checks: Sequence[Check]) -> tuple[Check, ...]:
    """The non-blocking ``checks``: run on the published rows after a write (the blocking ones audit
    the staged rows before it, see ``WarehouseResource.write_audited``)."""
    return tuple(c for c in checks if not c.blocking)


def bound(checks: Sequence[Check], **kwargs) -> tuple[Check, ...]:
    """``checks`` with ``kwargs`` bound to every check function (e.g. a folder from a resource)."""
    return tuple(replace(c, run=partial(c.run, **kwargs)) for c in checks)


def judged(check: Check, r: dg.AssetCheckResult) -> dg.AssetCheckResult:
    """``r``, failed when it passed on 0 rows (metadata ``row_count``) and ``check`` is not declared
    ``allow_empty``: an empty table proves nothing, so it never passes a check by default."""
    rows = r.metadata.get("row_count")
    empty = rows is not None and getattr(rows, "value", rows) == 0
    if not (r.passed and empty) or check.allow_empty:
        return r
    return dg.AssetCheckResult(
        passed=False,
        severity=r.severity,
        description=f"{check.name}: failed on 0 rows (an empty slice is not allowed to pass)",
        metadata={**r.metadata, "failed_empty": True},
    )


def run_checks(
    con: duckdb.DuckDBPyConnection,
    partition: str | None,
    asset_key: dg.AssetKey,
    checks: Sequence[Check],
) -> Iterator[dg.AssetCheckResult]:
    """Run ``checks`` on ``con`` and yield their results for ``asset_key`` (0-row rule:
    :func:`judged`)."""
    for c in checks:
        r = judged(c, c.run(con, partition))
        yield dg.AssetCheckResult(
            asset_key=asset_key,
            check_name=c.name,
            passed=r.passed,
            severity=r.severity,
            description=r.description,
            metadata={**r.metadata, **({"partition": partition} if partition else {})},
        )
