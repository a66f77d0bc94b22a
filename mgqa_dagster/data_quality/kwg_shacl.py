"""The SHACL check of the KnowWhereGraph crawl (``kg_native``, partition ``kwg``).

The crawl file is validated with pyshacl against our GeoSPARQL and SOSA shapes
(:mod:`mgqa_platform.kg.shacl`). Severity ERROR when a shape that real KnowWhereGraph data satisfies
fails; WARN when only the shapes real KWG data fails too (feature of interest and time on each
observation, which KWG attaches to the observation collection) report results. The metadata names
each failing shape with its count and its reason. Blocking: an ERROR (a crawl that breaks a shape
real KWG data keeps) stops conversion; a WARN does not (docs/data_quality.md). Other partitions are
not RDF crawls: the check passes there with ``applies: false``.
"""

from __future__ import annotations

from pathlib import Path

import dagster as dg

from mgqa_dagster.data_quality.checks import blocking_spec
from mgqa_platform.kg import shacl

CHECK_NAME = "kwg_shacl"
DESCRIPTION = (
    "KWG partition: the crawl conforms to our GeoSPARQL and SOSA SHACL shapes (pyshacl); ERROR for "
    "shapes real KWG data satisfies, WARN for the two that KWG data fails too (observation feature "
    "of interest and time, attached by KWG to the collection)."
)


def check_spec(
    asset_key: dg.AssetKey, partitions_def: dg.PartitionsDefinition | None = None
) -> dg.AssetCheckSpec:
    """The blocking check spec declared on ``asset_key`` (only an ERROR result blocks), one result
    per partition of ``partitions_def`` (a Dagster 1.13 preview; its warning is not repeated)."""
    return blocking_spec(CHECK_NAME, asset_key, DESCRIPTION, partitions_def)


def check_result(asset_key: dg.AssetKey, kg: str, path: Path) -> dg.AssetCheckResult:
    """Validate the native file ``path`` of ``kg`` (only ``kwg`` is validated)."""
    if kg != "kwg":
        return dg.AssetCheckResult(
            asset_key=asset_key,
            check_name=CHECK_NAME,
            passed=True,
            description=f"not applicable: {kg} is not a KnowWhereGraph crawl",
            metadata={"applies": False, "partition": kg},
        )
    report = shacl.validate_file(path)
    failing = {**report.violations, **report.warnings}
    if report.violations:
        severity, verdict = dg.AssetCheckSeverity.ERROR, "violations"
    else:
        severity, verdict = dg.AssetCheckSeverity.WARN, "only the warnings real KWG data has too"
    return dg.AssetCheckResult(
        asset_key=asset_key,
        check_name=CHECK_NAME,
        passed=not failing,
        severity=severity,
        description=(
            f"{sum(report.violations.values())} violations, {sum(report.warnings.values())} "
            f"warnings ({verdict})"
            if failing
            else "the crawl conforms to every shape"
        ),
        metadata={
            "applies": True,
            "partition": kg,
            "violations_by_shape": dg.MetadataValue.json(report.violations),
            "warnings_by_shape": dg.MetadataValue.json(report.warnings),
            "why": dg.MetadataValue.json(
                {name: report.reasons[name] for name in failing if name in report.reasons}
            ),
            "examples": dg.MetadataValue.json(report.examples),
            "triples_validated": report.triples_validated,
            "seconds": report.seconds,
        },
    )


__all__ = ["CHECK_NAME", "check_result", "check_spec"]
