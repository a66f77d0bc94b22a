"""Evaluation reports: EM / NE broken down like the paper's section 5, as Markdown tables and PNG
plots.

Breakdowns: spatial function (SFID), answer format, KG, income tier, density tier and language.
Income and density tiers are also given *standardized* to the benchmark-wide SFID mix (paper section
5.3): the tiers hold equal question counts but not equal compositions, so tier t's standardized EM
is

    EM_std(t) = sum_f w_f * EM(t, f) / sum_{f present in t} w_f,
    w_f = share of SFID f among all questions,

i.e. each tier keeps its own per-SFID accuracy and takes the common SFID weights (renormalised over
the SFIDs the tier has). Everything is computed over true-premise questions, as the metrics are."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from mgqa_platform import markdown as md
from mgqa_platform.evaluation.scoring import aggregate

BREAKDOWNS = (
    ("sfid", "Spatial function (SFID)"),
    ("answer_format", "Answer format"),
    ("kg", "Knowledge graph"),
    ("income_tier", "Income tier"),
    ("density_tier", "Density tier"),
    ("lang", "Language"),
)
INCOME_ORDER = ("HIC", "UMC", "LMC", "LIC")
DENSITY_ORDER = ("high", "medium", "low")


def by_group(rows: Iterable[Mapping[str, Any]], key: str) -> dict[str, dict]:
    """Group value -> metrics dict (``Metrics.as_dict``) over the rows of that group."""
    groups: dict[str, list] = defaultdict(list)
    for r in rows:
        groups[str(r.get(key))].append(r)
    return {g: aggregate(v).as_dict() for g, v in sorted(groups.items())}


def standardized(
    rows: Iterable[Mapping[str, Any]], tier_key: str, metric: str = "em", mix_key: str = "sfid"
) -> dict[str, float | None]:
    """Tier -> metric standardized to the overall ``mix_key`` distribution of true-premise questions
    (percent)."""
    rows = [r for r in rows if not r["false_premise"] and r["status"] != "skipped"]
    weights = Counter(r[mix_key] for r in rows)
    cells: dict[tuple[str, str], list[float]] = defaultdict(list)
    for r in rows:
        cells[(str(r[tier_key]), r[mix_key])].append(r[metric])
    out: dict[str, float | None] = {}
    for tier in sorted({t for t, _ in cells}):
        num = den = 0.0
        for f, w in weights.items():
            vals = cells.get((tier, f))
            if vals:
                num += w * (sum(vals) / len(vals))
                den += w
        out[tier] = round(100.0 * num / den, 4) if den else None
    return out


def _ordered(keys: Iterable[str], order: tuple[str, ...]) -> list[str]:
    keys = list(keys)
    return [k for k in order if k in keys] + sorted(k for k in keys if k not in order)


def _fmt(v: Any) -> str:
    return (
        "–"
        if v is None or (isinstance(v, float) and math.isnan(v))
        else (f"{v:.1f}" if isinstance(v, float) else str(v))
    )


def markdown(
    rows: list[Mapping[str, Any]], title: str, plots: Mapping[str, str] | None = None
) -> str:
    """The report as Markdown: overall metrics, one table per breakdown, standardized tier
    tables."""
    overall = aggregate(rows).as_dict()
    cols = ("n", "em", "ne", "coverage", "em_covered", "frr", "n_false_premise", "nrr")
    header = ("group", "N", "EM", "NE", "Cov.", "EM cov.", "FRR", "N false premise", "NRR")
    frr = _fmt(overall["frr_premise_templates"])
    lines = [f"# {title}", ""]
    lines.append(
        "Metrics over true-premise questions (percent; EM and NE count refusals and non-answers "
        "as wrong); NRR over false-premise questions. See docs/evaluation.md for the definitions."
    )
    lines += ["", "## Overall", ""]
    lines += md.table(header, [["all", *(_fmt(overall[c]) for c in cols)]])
    frr_line = f"FRR on answerable questions of the sub-templates that carry false premises: {frr}"
    lines += ["", frr_line, ""]
    for key, label in BREAKDOWNS:
        groups = by_group(rows, key)
        order = (
            INCOME_ORDER if key == "income_tier" else DENSITY_ORDER if key == "density_tier" else ()
        )
        lines += [f"## {label}", ""]
        table_rows = [[g, *(_fmt(groups[g][c]) for c in cols)] for g in _ordered(groups, order)]
        lines += md.table(header, table_rows)
        if key in ("income_tier", "density_tier"):
            em, ne = standardized(rows, key, "em"), standardized(rows, key, "ne")
            tiers = ", ".join(
                f"{t} EM {_fmt(em[t])} / NE {_fmt(ne[t])}" for t in _ordered(em, order)
            )
            lines += ["", f"Standardized to the overall SFID mix: {tiers}"]
        if plots and key in plots:
            lines += ["", f"![{label}]({plots[key]})"]
        lines.append("")
    return "\n".join(lines)


def plot(rows: list[Mapping[str, Any]], key: str, path: Path, title: str) -> None:
    """Horizontal bars of EM and NE per group of ``key`` (standardized EM for the tier keys),
    written as PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = by_group(rows, key)
    order = INCOME_ORDER if key == "income_tier" else DENSITY_ORDER if key == "density_tier" else ()
    names = [g for g in _ordered(groups, order) if groups[g]["n"]]
    if key in ("income_tier", "density_tier"):
        em_std, ne_std = standardized(rows, key, "em"), standardized(rows, key, "ne")
        em, ne = [em_std.get(g) or 0.0 for g in names], [ne_std.get(g) or 0.0 for g in names]
        em_label, ne_label = "EM (standardized to the SFID mix)", "NE (standardized)"
    else:
        em, ne = [groups[g]["em"] or 0.0 for g in names], [groups[g]["ne"] or 0.0 for g in names]
        em_label, ne_label = "EM", "NE"
    fig, ax = plt.subplots(figsize=(7, 0.35 * len(names) + 1.8), dpi=100)
    y = range(len(names))
    ax.barh([i - 0.2 for i in y], em, height=0.4, label=em_label, color="#2b6cb0")
    ax.barh([i + 0.2 for i in y], ne, height=0.4, label=ne_label, color="#c05621")
    ax.set_yticks(list(y), [f"{g} ({groups[g]['n']})" for g in names])
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("percent (true-premise questions)")
    ax.set_title(title, fontsize=10)
    height = fig.get_size_inches()[1]
    fig.legend(loc="lower center", ncol=2, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.35 / height, 1, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png", metadata={"Software": None})
    plt.close(fig)


def write_report(rows: list[Mapping[str, Any]], out_dir: Path, title: str) -> dict[str, Path]:
    """Write ``report.md`` and one PNG per breakdown into ``out_dir``; returns the written paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    plots = {}
    for key, label in BREAKDOWNS:
        png = out_dir / f"{key}.png"
        plot(rows, key, png, f"{title}: {label}")
        plots[key] = png.name
        written[key] = png
    md = out_dir / "report.md"
    md.write_text(markdown(rows, title, plots), encoding="utf-8")
    written["report"] = md
    return written
