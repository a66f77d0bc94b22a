"""Agreement statistics of the post-edit annotation: the Table 9 row of one language (paper B.4).

Plain Python, no Dagster: Cohen's linear-weighted kappa, Krippendorff's ordinal alpha, corpus chrF,
and :func:`agreement`, which puts them together with the label shares and the resolution outcomes.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from mgqa_platform.multilingual.annotations import (
    CORRECT,
    INCORRECT,
    METHODS,
    PHRASING,
    RANK,
    Annotation,
    norm,
)

if TYPE_CHECKING:
    from mgqa_platform.multilingual.resolution import Resolution

__all__ = ["weighted_kappa", "ordinal_alpha", "chrf", "agreement"]


def weighted_kappa(pairs: Iterable[tuple[int, int]], k: int = 3) -> float | None:
    """Cohen's kappa with linear disagreement weights |i - j| / (k - 1) for two raters on categories
    0..k-1: 1 - sum(w * observed) / sum(w * expected), expected from the two raters' marginals. None
    when undefined (no pairs, or no expected disagreement)."""
    pairs = list(pairs)
    n = len(pairs)
    if n == 0 or k < 2:
        return None
    obs = [[0] * k for _ in range(k)]
    for i, j in pairs:
        obs[i][j] += 1
    rows = [sum(obs[i]) for i in range(k)]
    cols = [sum(obs[i][j] for i in range(k)) for j in range(k)]
    w = [[abs(i - j) / (k - 1) for j in range(k)] for i in range(k)]
    qo = sum(w[i][j] * obs[i][j] for i in range(k) for j in range(k)) / n
    qe = sum(w[i][j] * rows[i] * cols[j] for i in range(k) for j in range(k)) / (n * n)
    return None if qe == 0 else 1 - qo / qe


def ordinal_alpha(units: Sequence[Sequence[int | None]], k: int = 3) -> float | None:
    """Krippendorff's ordinal alpha (``krippendorff`` package) over units of coder slots (None =
    missing) on the value domain 0..k-1; None when undefined (no unit with two values, or no
    variation)."""
    import krippendorff
    import numpy as np

    if not units or not any(sum(v is not None for v in u) >= 2 for u in units):
        return None
    width = max(len(u) for u in units)
    data = np.full((width, len(units)), np.nan)
    for j, u in enumerate(units):
        for i, v in enumerate(u):
            if v is not None:
                data[i, j] = v
    with np.errstate(divide="ignore", invalid="ignore"):
        a = krippendorff.alpha(
            reliability_data=data, level_of_measurement="ordinal", value_domain=list(range(k))
        )
    return None if a is None or math.isnan(a) else float(a)


def chrf(hypotheses: Sequence[str], references: Sequence[str]) -> float:
    """Corpus chrF (sacrebleu defaults: character 6-grams, beta 2) of hypotheses vs references."""
    from sacrebleu.metrics import CHRF

    return float(CHRF().corpus_score(list(hypotheses), [list(references)]).score)


def _pct(num: int, den: int) -> float | None:
    return 100.0 * num / den if den else None


#: The kinds of a pair of annotations (Fig. 8), in report order; ``incomplete``: fewer than two.
PAIR_KINDS = (
    "both_correct",
    "same_correction",
    "one_correct",
    "different_corrections",
    "incomplete",
)


def _by_item(anns: Sequence[Annotation]) -> dict[str, list[Annotation]]:
    """Variant id -> its annotations, annotators in order of first appearance."""
    rank: dict[str, int] = {}
    by_item: dict[str, list[Annotation]] = defaultdict(list)
    for a in anns:
        rank.setdefault(a.annotator, len(rank))
        by_item[a.variant_id].append(a)
    return {v: sorted(x, key=lambda a: rank[a.annotator]) for v, x in by_item.items()}


def _pair_kind(pair: Sequence[Annotation]) -> str:
    """The kind of a pair of annotations: both correct, one correct, the same correction or
    different corrections."""
    n_ok = sum(a.label == CORRECT for a in pair)
    if n_ok == 2:
        return "both_correct"
    if n_ok == 1:
        return "one_correct"
    return "same_correction" if pair[0].corrected == pair[1].corrected else "different_corrections"


def agreement(
    lang: str,
    annotations: Iterable[Annotation],
    mt: Mapping[str, str],
    resolutions: Sequence[Resolution],
) -> dict:
    """The Table 9 row of one language, plus the pairwise breakdown (Fig. 8) and counts.

    * ``n_items``: variants in ``mt``; ``n_annotated``: with at least one annotation; ``n_paired``:
      with two.
    * ``pct_correct`` / ``pct_phrasing`` / ``pct_incorrect``: share of annotator-item decisions with
      that label.
    * ``correction_rate``: share of annotated items where at least one annotator did not label
      Correct.
    * ``exact_agreement``: share of paired items where both labels are the same.
    * ``alpha``: Krippendorff's ordinal alpha (annotator 1 / annotator 2 slots; single annotations
      count as missing); ``kappa``: Cohen's linear-weighted kappa over paired items. None when
      undefined.
    * ``chrf``: corpus chrF of the final text against the MT, over reviewed (non-"unreviewed")
      items.
    * ``pct_judge``: share of annotated items escalated to the judge (method "judge").

    Percentages are 0-100 floats (None when the denominator is 0)."""
    anns = [a for a in annotations if a.lang == lang and a.variant_id in mt]
    items = _by_item(anns)
    paired = {v: x for v, x in items.items() if len(x) == 2}
    labels = Counter(a.label for a in anns)
    n_dec = len(anns)
    corrected = sum(any(a.label != CORRECT for a in x) for x in items.values())
    agree = sum(x[0].label == x[1].label for x in paired.values())
    units = [[RANK[a.label] for a in x] + [None] * (2 - len(x)) for _, x in sorted(items.items())]
    pairwise = Counter(_pair_kind(x) for x in paired.values())
    pairwise["incomplete"] = sum(1 for v in mt if len(items.get(v, [])) < 2)
    reviewed = [r for r in resolutions if r.status != "unreviewed" and r.variant_id in mt]
    methods = Counter(r.method for r in resolutions)
    reasons = Counter()
    for a in anns:
        if a.label != CORRECT:
            reasons.update(a.reasons or ("(none)",))
    judge_choices = Counter(r.judge_choice for r in resolutions if r.judge_choice)
    return {
        "lang": lang,
        "n_items": len(mt),
        "n_annotated": len(items),
        "n_paired": len(paired),
        "n_decisions": n_dec,
        "pct_correct": _pct(labels[CORRECT], n_dec),
        "pct_phrasing": _pct(labels[PHRASING], n_dec),
        "pct_incorrect": _pct(labels[INCORRECT], n_dec),
        "correction_rate": _pct(corrected, len(items)),
        "exact_agreement": _pct(agree, len(paired)),
        "alpha": ordinal_alpha(units),
        "kappa": weighted_kappa((RANK[x[0].label], RANK[x[1].label]) for x in paired.values()),
        "chrf": (
            chrf([norm(r.text) for r in reviewed], [norm(mt[r.variant_id]) for r in reviewed])
            if reviewed
            else None
        ),
        "pct_judge": _pct(methods["judge"], len(items)),
        "methods": {m: methods[m] for m in METHODS if methods[m]},
        "statuses": {s: n for s, n in Counter(r.status for r in resolutions).items()},
        "judge_choices": dict(judge_choices),
        "pairwise": {k: pairwise[k] for k in PAIR_KINDS},
        "reasons": dict(sorted(reasons.items())),
    }
