"""The warehouse resource: ``DuckDBResource`` with the spatial extension loaded on every
connection, and the one write path of every asset that fills warehouse tables (write-audit-publish,
:meth:`write_audited`; the whole asset body around it, :meth:`publish_audited`)."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Generic, Self, TypeVar

import dagster as dg
import duckdb
from dagster_duckdb import DuckDBResource
from pydantic import Field

from mgqa_dagster.data_quality import guards
from mgqa_dagster.data_quality.checks import Check, non_blocking, run_checks
from mgqa_dagster.resources.env import EnvConfigurableResource
from mgqa_dagster.resources.paths import PathsResource
from mgqa_platform import files, warehouse

#: The Dagster concurrency pool of every asset that writes the warehouse. DuckDB lets one process
#: write a file at a time, so the instance config (``mgqa_dagster/dagster.yaml``) gives the pool one
#: slot: steps of overlapping runs wait for it instead of failing on the file lock. The pool
#: schedules; the guarantee is the writer lock every connection takes
#: (:meth:`WarehouseResource.get_connection`), since Dagster's SQLite storage can grant one slot to
#: two claims made at the same instant.
WAREHOUSE_POOL = "mgqa_warehouse"

T = TypeVar("T")


def audited_asset(
    key: dg.AssetKey,
    checks: Sequence[Check],
    *,
    partitions_def: dg.PartitionsDefinition | None = None,
    **kwargs: Any,
):
    """``dg.asset`` for an asset that fills warehouse tables: in :data:`WAREHOUSE_POOL`, with the
    check specs of its audits and the volume guard (:func:`guards.audited_specs`). ``kwargs`` are
    the rest of the asset's definition (dependencies, group, kinds, description...)."""
    return dg.asset(
        key=key,
        pool=WAREHOUSE_POOL,
        partitions_def=partitions_def,
        check_specs=guards.audited_specs(key, checks, partitions_def),
        **kwargs,
    )


def audited_multi_asset(
    key: dg.AssetKey,
    checks: Sequence[Check],
    side_specs: Sequence[dg.AssetSpec],
    *,
    partitions_def: dg.PartitionsDefinition | None = None,
    **spec: Any,
):
    """``dg.multi_asset`` for an asset that fills warehouse tables and materializes side tables
    beside them: in :data:`WAREHOUSE_POOL`, the asset's own spec (``key`` and ``spec``) then
    ``side_specs``, the check specs of its audits (:func:`guards.audited_specs`), subsettable so
    that a run may select the side tables alone."""
    return dg.multi_asset(
        pool=WAREHOUSE_POOL,
        specs=[dg.AssetSpec(key, **spec), *side_specs],
        partitions_def=partitions_def,
        check_specs=guards.audited_specs(key, checks, partitions_def),
        can_subset=True,
    )


def blocks(r: dg.AssetCheckResult) -> bool:
    """Whether an audit result stops the publication: failed with severity ERROR (a WARN never
    blocks)."""
    return not r.passed and r.severity == dg.AssetCheckSeverity.ERROR


@dataclass(frozen=True)
class Audited(Generic[T]):
    """What :meth:`WarehouseResource.write_audited` did: the writer's return value, the results of
    the blocking audits run on the staged rows (the guard included) and whether the rows were
    published."""

    value: T
    results: tuple[dg.AssetCheckResult, ...]
    published: bool
    label: str

    def refused(self, report: bool = True) -> Iterator[dg.AssetCheckResult]:
        """Nothing when published; else the audit results (unless ``report`` is False: a multi-asset
        run that did not select the audited asset), then a :class:`dagster.Failure` naming the
        failed audits (the published tables kept their previous rows; downstream sees nothing
        new)."""
        if self.published:
            return
        if report:
            yield from self.results
        failed = sorted(r.check_name for r in self.results if blocks(r))
        raise dg.Failure(
            description=f"{self.label}: audit failed ({', '.join(failed)}); nothing was published, "
            "the previous rows are still served",
            metadata={"failed_audits": dg.MetadataValue.json(failed)},
        )


class WarehouseResource(EnvConfigurableResource, DuckDBResource):
    """One DuckDB file for the whole platform (docs/data_model.md), at ``paths.warehouse_path``.

    ``get_connection`` yields a connection with ``LOAD spatial`` done (from the local
    ``duckdb-ext-spatial`` package) and the foundation schema ensured. The connection config is the
    single shared :data:`mgqa_platform.warehouse.CONNECTION_CONFIG`. Connections of different
    processes take turns: each holds ``<warehouse>.writer.lock``
    (:func:`mgqa_platform.files.writer_lock`) from before it opens the file until after it closes
    it, so a second process waits instead of failing on DuckDB's file lock.
    """

    paths: PathsResource
    database: str = Field(
        default="", description="Filled from paths.warehouse_path when the resource is initialized."
    )
    connection_config: dict[str, Any] = Field(
        default_factory=lambda: dict(warehouse.CONNECTION_CONFIG)
    )
    min_rows_ratio: Annotated[float, dg.EnvVar("MGQA_MIN_ROWS_RATIO")] = Field(
        default=0.5,
        description="Smallest share of a slice's published rows a new write may keep (guard "
        "rows_not_shrunk); 0 turns the guard off.",
    )
    allow_shrink: Annotated[str, dg.EnvVar("MGQA_ALLOW_SHRINK")] = Field(
        default="",
        description="Comma-separated tables (or *) whose next write may shrink below "
        "min_rows_ratio.",
    )
    lock_timeout_s: float = Field(
        default=6 * 3600.0,
        description="Longest wait, in seconds, for another process's warehouse connection to "
        "close.",
    )

    def resolved(self) -> Self:
        out = super().resolved()
        return out.replace(database=str(out.paths.warehouse_path))

    @contextmanager
    def get_connection(self):
        if not self.database:
            raise ValueError(
                "WarehouseResource is not initialized: use it in a run, or call resolved()"
            )
        Path(self.database).parent.mkdir(parents=True, exist_ok=True)
        lock = Path(f"{self.database}.writer.lock")
        with files.writer_lock(lock, self.lock_timeout_s, dg.get_dagster_logger().info):
            with super().get_connection() as con:
                try:
                    warehouse.load_spatial(con)
                    warehouse.ensure_schema(con)
                    yield con
                finally:
                    con.close()  # also when the asset fails inside the block (a refused write)

    def write_audited(
        self,
        con: duckdb.DuckDBPyConnection,
        slices: Sequence[warehouse.Slice],
        write: Callable[[duckdb.DuckDBPyConnection], T],
        *,
        asset_key: dg.AssetKey,
        partition: str | None,
        checks: Sequence[Check],
    ) -> Audited[T]:
        """Write-audit-publish: ``write(con)`` fills staging copies of ``slices``; the blocking
        ``checks`` and the volume guard run on the staged rows; only when all pass are the slices
        swapped into the published tables (one transaction). The asset then yields
        :meth:`Audited.refused` (a failed audit ends the step there), its materialization and
        :attr:`Audited.results`."""
        with warehouse.staging(con, slices) as staged:
            value = write(con)
            results = list(run_checks(con, partition, asset_key, [c for c in checks if c.blocking]))
            guard = guards.rows_not_shrunk(staged.counts(), self.min_rows_ratio, self.allow_shrink)
            results.append(
                dg.AssetCheckResult(
                    asset_key=asset_key,
                    check_name=guards.ROWS_NOT_SHRUNK,
                    passed=guard.passed,
                    severity=guard.severity,
                    description=guard.description,
                    metadata={**guard.metadata, **({"partition": partition} if partition else {})},
                )
            )
            published = all(blocks(r) is False for r in results)
            if published:
                staged.publish()
        label = asset_key.to_user_string() + (f"[{partition}]" if partition else "")
        return Audited(value, tuple(results), published, label)

    def publish_audited(
        self,
        con: duckdb.DuckDBPyConnection,
        slices: Sequence[warehouse.Slice],
        write: Callable[[duckdb.DuckDBPyConnection], T],
        *,
        asset_key: dg.AssetKey,
        partition: str | None = None,
        checks: Sequence[Check] = (),
        metadata: Callable[[T], Mapping[str, Any]],
        selected: bool = True,
        late_checks: Sequence[Check] | None = None,
        on_audit: Callable[[Audited[T]], None] | None = None,
    ) -> Generator[dg.MaterializeResult | dg.AssetCheckResult, None, T]:
        """The body of an asset that writes warehouse tables, for ``yield from``:
        :meth:`write_audited` on ``con``; ``on_audit`` (when given) with its outcome, published or
        not; the refusal of a failed audit (:meth:`Audited.refused`); then, when the asset is
        ``selected`` (a multi-asset run may leave it out), its materialization with
        ``metadata(value)``, the audit results and the non-blocking checks run on the published rows
        (those of ``late_checks``, by default of ``checks``). Returns the writer's value, for the
        side tables of a multi-asset."""
        out = self.write_audited(
            con, slices, write, asset_key=asset_key, partition=partition, checks=checks
        )
        if on_audit is not None:
            on_audit(out)
        yield from out.refused(report=selected)
        if selected:
            yield dg.MaterializeResult(asset_key=asset_key, metadata=dict(metadata(out.value)))
            yield from out.results
            late = checks if late_checks is None else late_checks
            yield from run_checks(con, partition, asset_key, non_blocking(late))
        return out.value
