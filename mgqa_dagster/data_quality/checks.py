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
    name: str
    blocking: bool
    description: str
    run: Callable[[duckdb.DuckDBPyConnection, str | None], dg.AssetCheckResult]


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


def check_specs(
    asset_key: dg.AssetKey,
    checks: Sequence[Check],
    partitions_def: dg.PartitionsDefinition | None = None,
) -> list[dg.AssetCheckSpec]:
    """The specs of ``checks`` on ``asset_key``; a partitioned asset passes its ``partitions_def``
    so that each result belongs to the partition it judged (the UI shows checks per partition).
    Dagster 1.13 marks partitioned check specs as a preview; its warning is not repeated per spec."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dg.PreviewWarning)
        return [
            dg.AssetCheckSpec(
                c.name,
                asset=asset_key,
                blocking=c.blocking,
                description=c.description,
                partitions_def=partitions_def,
            )
            for c in checks
        ]


def bound(checks: Sequence[Check], **kwargs) -> tuple[Check, ...]:
    """``checks`` with ``kwargs`` bound to every check function (e.g. a folder from a resource)."""
    return tuple(replace(c, run=partial(c.run, **kwargs)) for c in checks)


def run_checks(
    con: duckdb.DuckDBPyConnection,
    partition: str | None,
    asset_key: dg.AssetKey,
    checks: Sequence[Check],
) -> Iterator[dg.AssetCheckResult]:
    for c in checks:
        r = c.run(con, partition)
        yield dg.AssetCheckResult(
            asset_key=asset_key,
            check_name=c.name,
            passed=r.passed,
            severity=r.severity,
            description=r.description,
            metadata={**r.metadata, **({"partition": partition} if partition else {})},
        )
