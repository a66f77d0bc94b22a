"""Print the error-detector table of a warehouse: per language and detector, the questions flagged
and their share (``mgqa_platform.multilingual.detectors``), as Markdown, worst first within each
language.

A rate above the detector's threshold (0.5 %; the Greek article 2 %) is marked ``WARN``, as in the
``grammar_detectors`` check. The warehouse is opened read-only.

Usage::

    .venv/bin/python scripts/detect_errors.py                          # $MGQA_HOME's warehouse
    .venv/bin/python scripts/detect_errors.py --warehouse /path/to/warehouse.duckdb --examples 2
    # after the post-edit ensemble
    .venv/bin/python scripts/detect_errors.py --table questions_postedited
"""

from __future__ import annotations

import argparse
from pathlib import Path

from mgqa_dagster.resources.paths import PathsResource
from mgqa_platform import report, warehouse
from mgqa_platform.multilingual.detectors import Rate


def table(found: dict[str, list[Rate]], n_examples: int) -> str:
    """The Markdown table of ``found`` (language -> rates), with up to ``n_examples`` flagged
    questions each."""
    head = "| language | detector | flagged | questions | rate | threshold | |"
    lines = [head, "|---|---|---:|---:|---:|---:|---|"]
    examples: list[str] = []
    for lang, rates in found.items():
        for r in sorted(rates, key=lambda r: (-r.rate, r.detector.name)):
            flag = "WARN" if r.above_threshold else ""
            lines.append(
                f"| {lang} | {r.detector.name} | {r.flagged:,} | {r.total:,} | {r.rate:.2%} "
                f"| {r.detector.threshold:.1%} | {flag} |"
            )
            examples += [f"- {lang} {r.detector.name}: {t}" for t in r.examples[:n_examples]]
    return "\n".join(lines + ([""] + examples if examples else []))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--warehouse",
        type=Path,
        default=PathsResource().resolved().warehouse_path,
        help="warehouse file (default: the configured one, $MGQA_HOME/warehouse.duckdb)",
    )
    ap.add_argument(
        "--table",
        choices=("questions_localized", "questions_postedited"),
        default="questions_localized",
    )
    ap.add_argument("--examples", type=int, default=0, help="flagged questions per detector")
    args = ap.parse_args(argv)
    with warehouse.session(args.warehouse, read_only=True) as con:
        print(table(report.detector_rates(con, args.table, args.examples), args.examples))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
