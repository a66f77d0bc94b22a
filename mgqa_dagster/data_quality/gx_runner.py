"""Run Great Expectations 1.x suites against pandas DataFrames, entirely in memory.

The layer is meant for Dagster asset checks: an asset check loads its frame, builds a list of
expectations (the helper constructors below cover the common entity rules) and calls
:func:`run_suite`. The result is a small, frozen :class:`SuiteOutcome` that renders straight into
``AssetCheckResult(passed=..., metadata=outcome.metadata(), description=outcome.description())``.

Design notes
------------
* One ephemeral Data Context per process, created lazily and cached. It keeps every store in
  memory, has no Data Docs sites (so nothing is written to disk), reports analytics as disabled
  and hides the tqdm progress bars that GX otherwise prints while computing metrics.
* ``GX_ANALYTICS_ENABLED`` is set to ``false`` before great_expectations is first imported, so the
  library never tries to reach the network for usage statistics.
* Every call registers its own pandas data source (a unique name), validates, then deletes the
  data source again, so repeated or concurrent-looking calls never collide and the cached
  context does not grow. A process-wide lock serialises calls; GX's data-source registry is
  not safe to mutate from several threads at once.
* great_expectations is imported lazily (it takes a couple of seconds), so importing this
  module does not slow down loading a Dagster code location.
"""

from __future__ import annotations

import copy
import logging
import os
import re
import threading
import time
import uuid
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pandas as pd
    from great_expectations.data_context import AbstractDataContext
    from great_expectations.expectations import Expectation

__all__ = [
    "SuiteOutcome",
    "in_set",
    "non_empty_strings",
    "not_null",
    "row_count_between",
    "run_suite",
    "unique_ids",
    "values_between",
]

log = logging.getLogger(__name__)

#: Most unexpected values kept per failed expectation.
MAX_EXAMPLES = 5
#: How many unexpected values GX is asked to return (before de-duplication to MAX_EXAMPLES).
_PARTIAL_UNEXPECTED_COUNT = 20
#: Longest kwargs summary / example / error string kept in an outcome.
_MAX_TEXT = 200

_LOCK = threading.RLock()
_CONTEXT: AbstractDataContext | None = None
_GX_READY = False


# --------------------------------------------------------------------------------------------
# GX bootstrap
# --------------------------------------------------------------------------------------------


def _prepare_gx() -> None:
    """Disable analytics and quieten GX logging before great_expectations is imported."""
    global _GX_READY
    if _GX_READY:
        return
    # Usage statistics off, whatever the caller's environment says: checks must never try
    # the network. Set before the first import so any import-time lookup sees it.
    os.environ["GX_ANALYTICS_ENABLED"] = "false"
    gx_logger = logging.getLogger("great_expectations")
    if gx_logger.level == logging.NOTSET:
        # GX logs informational chatter (temporary directories, "ephemeral context, nothing
        # saved", ...) at INFO; keep warnings and errors only, unless someone configured it.
        gx_logger.setLevel(logging.WARNING)
    _GX_READY = True


def _gxe() -> Any:
    """The ``great_expectations.expectations`` module, imported on first use."""
    _prepare_gx()
    with warnings.catch_warnings():
        # GX 1.24 imports the stdlib's deprecated sre_parse/sre_constants modules; keep that
        # import-time DeprecationWarning from failing runs that treat warnings as errors.
        warnings.simplefilter("ignore", DeprecationWarning)
        import great_expectations  # noqa: F401
        import great_expectations.expectations as gxe

    return gxe


def get_context() -> AbstractDataContext:
    """The process-wide ephemeral Data Context used by :func:`run_suite` (created on first use).

    Note that ``gx.get_context`` also makes it GX's *current* context for the process.
    """
    global _CONTEXT
    with _LOCK:
        if _CONTEXT is None:
            _gxe()  # first import, with the import-time warnings filtered
            import great_expectations as gx
            from great_expectations.data_context.types.base import (
                DataContextConfig,
                InMemoryStoreBackendDefaults,
                ProgressBarsConfig,
            )

            config = DataContextConfig(
                # In-memory stores and, with init_temp_docs_sites=False, no Data Docs site.
                store_backend_defaults=InMemoryStoreBackendDefaults(init_temp_docs_sites=False),
                analytics_enabled=False,
                progress_bars=ProgressBarsConfig(globally=False, metric_calculations=False),
            )
            _CONTEXT = gx.get_context(mode="ephemeral", project_config=config)
        return _CONTEXT


# --------------------------------------------------------------------------------------------
# Outcome
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SuiteOutcome:
    """What a suite run found, in plain Python types.

    ``failed`` holds one dict per failed expectation with the keys ``expectation`` (GX type
    name, e.g. ``expect_column_values_to_be_unique``), ``column`` (``None`` for table-level
    expectations), ``kwargs`` (compact one-line summary of the remaining arguments),
    ``unexpected_count`` (``None`` where GX reports no per-row count, e.g. row-count checks),
    ``unexpected_examples`` (up to five distinct unexpected values, as strings),
    ``unexpected_rows`` (up to five of the failing rows named by the suite's id columns, e.g.
    ``tid=E05 questions=0``; empty when the suite names none),
    ``observed_value`` (string or ``None``) and ``error`` (the exception message when the
    expectation could not be evaluated, else ``None``).
    """

    success: bool
    evaluated: int
    failed: list[dict] = field(default_factory=list)
    row_count: int = 0
    suite_name: str = ""
    duration_s: float = 0.0

    def metadata(self) -> dict[str, str | int | float | bool]:
        """A flat dict for Dagster asset-check metadata (only str/int/float/bool values)."""
        md: dict[str, str | int | float | bool] = {
            "gx_suite": self.suite_name,
            "gx_success": bool(self.success),
            "gx_evaluated": int(self.evaluated),
            "gx_failed": len(self.failed),
            "row_count": int(self.row_count),
            "gx_duration_s": round(float(self.duration_s), 4),
        }
        for i, item in enumerate(self.failed):
            md[f"failed_{i}"] = _describe_failure(item)
        return md

    def description(self) -> str:
        """A one-line human summary."""
        head = (
            f"GX suite '{self.suite_name}': {self.evaluated - len(self.failed)}/{self.evaluated}"
            f" expectations passed on {self.row_count} rows"
        )
        if not self.failed:
            return head
        shown = "; ".join(_describe_failure(item, examples=False) for item in self.failed[:3])
        more = f"; +{len(self.failed) - 3} more" if len(self.failed) > 3 else ""
        return f"{head}; failed: {shown}{more}"


def _describe_failure(item: dict, *, examples: bool = True) -> str:
    target = (
        f"{item['expectation']}({item['column']})" if item.get("column") else item["expectation"]
    )
    parts = [target]
    if item.get("kwargs"):
        parts.append(f"[{item['kwargs']}]")
    if item.get("error"):
        parts.append(f"error: {item['error']}")
    elif item.get("unexpected_count") is not None:
        parts.append(f"{item['unexpected_count']} unexpected")
        if item.get("unexpected_rows"):
            parts.append("in " + "; ".join(item["unexpected_rows"]))
        elif examples and item.get("unexpected_examples"):
            parts.append("e.g. " + ", ".join(repr(v) for v in item["unexpected_examples"]))
    elif item.get("observed_value") is not None:
        parts.append(f"observed {item['observed_value']}")
    return " ".join(parts)


# --------------------------------------------------------------------------------------------
# Running a suite
# --------------------------------------------------------------------------------------------


def run_suite(
    df: pd.DataFrame,
    suite_name: str,
    expectations: Sequence[Expectation | Iterable[Expectation]],
    id_columns: Sequence[str] = (),
) -> SuiteOutcome:
    """Validate ``df`` against ``expectations`` and summarise the result.

    ``id_columns`` name the rows a failure reports (``unexpected_rows``): a failed check then says
    which template, question or entity failed, not only the failing value.

    ``expectations`` may mix Expectation objects and lists of them (as returned by the helper
    constructors in this module); nested lists are flattened one level. The expectation
    objects are copied, so the same list can be reused across calls and suites.
    """
    import pandas as pd

    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"run_suite expects a pandas DataFrame, got {type(df).__name__}")
    if not suite_name or not isinstance(suite_name, str):
        raise ValueError("suite_name must be a non-empty string")

    flat = _flatten(expectations)
    started = time.perf_counter()
    row_count = len(df)
    if not flat:
        return SuiteOutcome(
            success=True, evaluated=0, failed=[], row_count=row_count, suite_name=suite_name
        )

    suite = _suite(suite_name, flat)
    result_format = {
        "result_format": "SUMMARY" if id_columns else "BASIC",
        "partial_unexpected_count": _PARTIAL_UNEXPECTED_COUNT,
    }
    if id_columns:
        result_format["unexpected_index_column_names"] = list(id_columns)
    result = _validate(df, suite, result_format)
    failed = [_summarise(r, id_columns) for r in result.results if not r.success]
    evaluated = int(result.statistics.get("evaluated_expectations", len(result.results)))
    return SuiteOutcome(
        success=bool(result.success) and not failed,
        evaluated=evaluated,
        failed=failed,
        row_count=row_count,
        suite_name=suite_name,
        duration_s=time.perf_counter() - started,
    )


def _flatten(expectations: Sequence[Expectation | Iterable[Expectation]]) -> list[Expectation]:
    """``expectations`` with lists flattened one level; TypeError on anything that is not a GX
    Expectation."""
    gxe = _gxe()
    flat: list[Expectation] = []
    for item in expectations:
        if isinstance(item, gxe.Expectation):
            flat.append(item)
        elif isinstance(item, Iterable) and not isinstance(item, (str, bytes)):
            for inner in item:
                if not isinstance(inner, gxe.Expectation):
                    raise TypeError(f"not a GX Expectation: {inner!r}")
                flat.append(inner)
        else:
            raise TypeError(f"not a GX Expectation: {item!r}")
    return flat


def _suite(suite_name: str, expectations: list[Expectation]):
    """A GX suite of copies of ``expectations``: a suite owns the expectations added to it (they get
    save callbacks and, once saved, an id), so callers' objects stay untouched and reusable.
    ValueError when GX drops one as invalid (it would only log it)."""
    import great_expectations as gx

    copies = []
    for exp in expectations:
        dup = copy.copy(exp)
        dup.id = None
        copies.append(dup)
    suite = gx.ExpectationSuite(name=suite_name, expectations=copies)
    if len(suite.expectations) != len(copies):
        raise ValueError(
            f"suite '{suite_name}': only {len(suite.expectations)} of {len(copies)} "
            "expectations were accepted by Great Expectations"
        )
    return suite


def _validate(df: pd.DataFrame, suite, result_format: dict):
    """Validate ``df`` against ``suite`` through a throwaway pandas data source of the (locked)
    GX context, deleted afterwards."""
    source_name = f"mgqa_{_slug(suite.name)}_{uuid.uuid4().hex[:12]}"
    with _LOCK:
        context = get_context()
        source = context.data_sources.add_pandas(name=source_name)
        try:
            asset = source.add_dataframe_asset(name="frame")
            batch_definition = asset.add_batch_definition_whole_dataframe("whole_frame")
            batch = batch_definition.get_batch(batch_parameters={"dataframe": df})
            result = batch.validate(suite, result_format=result_format)
        finally:
            try:
                context.data_sources.delete(source_name)
            except Exception:
                log.debug("could not delete GX data source %s", source_name, exc_info=True)
    return result


def _row_label(row: dict, id_columns: Sequence[str]) -> str:
    """A failing row as ``id=value`` pairs, the id columns first, then the judged column."""
    ordered = [*id_columns, *sorted(k for k in row if k not in id_columns)]
    return _clip(" ".join(f"{k}={row[k]}" for k in ordered if k in row))


def _summarise(res: Any, id_columns: Sequence[str] = ()) -> dict:
    """One failed ExpectationValidationResult as a plain dict."""
    config = res.expectation_config
    kwargs = dict(config.kwargs or {})
    kwargs.pop("batch_id", None)
    column = kwargs.pop("column", None)
    details = res.result or {}

    unexpected_count = details.get("unexpected_count")
    examples = _distinct_strings(details.get("partial_unexpected_list") or [], MAX_EXAMPLES)
    observed = details.get("observed_value")
    rows = (details.get("partial_unexpected_index_list") or []) if id_columns else []
    return {
        "expectation": str(config.type),
        "column": None if column is None else str(column),
        "kwargs": _compact_kwargs(kwargs),
        "unexpected_count": None if unexpected_count is None else int(unexpected_count),
        "unexpected_examples": examples,
        "unexpected_rows": _distinct_strings(
            (_row_label(r, id_columns) for r in rows if isinstance(r, dict)), MAX_EXAMPLES
        ),
        "observed_value": None if observed is None else _clip(str(observed)),
        "error": _exception_message(res.exception_info),
    }


def _exception_message(info: Any) -> str | None:
    """The first raised exception's message. GX gives either one record or a dict of them."""
    if not info:
        return None
    records = [info] if "raised_exception" in info else list(info.values())
    for record in records:
        if isinstance(record, dict) and record.get("raised_exception"):
            message = record.get("exception_message") or "exception raised"
            return _clip(" ".join(str(message).split()))
    return None


def _distinct_strings(values: Iterable[Any], limit: int) -> list[str]:
    out: list[str] = []
    for value in values:
        text = _clip(str(value))
        if text not in out:
            out.append(text)
            if len(out) == limit:
                break
    return out


def _compact_kwargs(kwargs: dict) -> str:
    parts = []
    for key in sorted(kwargs):
        value = kwargs[key]
        if value is None:
            continue
        if isinstance(value, (list, tuple, set)):
            items = list(value)
            shown = ",".join(str(v) for v in items[:10])
            if len(items) > 10:
                shown += f",...(+{len(items) - 10})"
            value = f"[{shown}]"
        parts.append(f"{key}={value}")
    return _clip(" ".join(parts))


def _clip(text: str, limit: int = _MAX_TEXT) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]+", "_", name).strip("_")[:40] or "suite"


# --------------------------------------------------------------------------------------------
# Helper constructors
# --------------------------------------------------------------------------------------------


def _columns(columns: str | Iterable[str]) -> list[str]:
    return [columns] if isinstance(columns, str) else list(columns)


def _bounds(expectation: str, min_value: Any, max_value: Any) -> tuple[Any, Any]:
    """The two bounds of a between-expectation as plain Python scalars; at least one must be set."""
    if min_value is None and max_value is None:
        raise ValueError(f"{expectation} needs min_value or max_value")
    return _plain(min_value), _plain(max_value)


def _plain(value: Any) -> Any:
    """numpy / pandas scalars -> Python scalars (GX kwargs must be JSON-serialisable)."""
    item = getattr(value, "item", None)
    if callable(item) and not isinstance(value, (str, bytes)):
        try:
            return item()
        except (TypeError, ValueError):
            return value
    return value


def unique_ids(column: str) -> list[Expectation]:
    """Identifier column: no nulls and no duplicates."""
    gxe = _gxe()
    return [
        gxe.ExpectColumnValuesToNotBeNull(column=column),
        gxe.ExpectColumnValuesToBeUnique(column=column),
    ]


def not_null(columns: str | Iterable[str]) -> list[Expectation]:
    """No null / NaN / None / NA values in each column."""
    gxe = _gxe()
    return [gxe.ExpectColumnValuesToNotBeNull(column=c) for c in _columns(columns)]


def non_empty_strings(columns: str | Iterable[str]) -> list[Expectation]:
    """Each column is non-null and every value has at least one non-whitespace character.

    A regex ``\\S`` is used rather than a minimum length, because a length check accepts
    whitespace-only strings such as ``" "``.
    """
    gxe = _gxe()
    out: list[Expectation] = []
    for c in _columns(columns):
        out.append(gxe.ExpectColumnValuesToNotBeNull(column=c))
        out.append(gxe.ExpectColumnValuesToMatchRegex(column=c, regex=r"\S"))
    return out


def in_set(column: str, values: Iterable[Any]) -> list[Expectation]:
    """Every non-null value of ``column`` is one of ``values`` (nulls are not judged here)."""
    gxe = _gxe()
    value_list = [_plain(v) for v in values]
    try:
        value_list = sorted(set(value_list))
    except TypeError:  # mixed, unorderable types: keep the given order
        pass
    return [gxe.ExpectColumnValuesToBeInSet(column=column, value_set=value_list)]


def row_count_between(
    min_value: int | None = None, max_value: int | None = None
) -> list[Expectation]:
    """The frame has between ``min_value`` and ``max_value`` rows (inclusive; None = open)."""
    lo, hi = _bounds("row_count_between", min_value, max_value)
    return [
        _gxe().ExpectTableRowCountToBeBetween(
            min_value=None if lo is None else int(lo), max_value=None if hi is None else int(hi)
        )
    ]


def values_between(
    column: str, min_value: float | None = None, max_value: float | None = None
) -> list[Expectation]:
    """Every non-null value of ``column`` lies in [min_value, max_value] (None = open)."""
    lo, hi = _bounds("values_between", min_value, max_value)
    return [_gxe().ExpectColumnValuesToBeBetween(column=column, min_value=lo, max_value=hi)]
