"""Non-trivial golds (issue 16, item 3): constant answers a lazy model would give must not score.

Two pure rules, applied by the generator (docs/questions.md, "Non-trivial golds"); hits are judged
by the scorer's own rule (:func:`mgqa_platform.questions.formats.score`, E = 1):

* **Fixed constants.** For the formats whose tolerance turns a constant into a range of right
  answers (:data:`PREDICTED_FORMATS`), a question is dropped when a fixed constant hits its gold:
  zero (distance 0 km, area 0 km2, ratio 0, polar 0 km at bearing 0) and, for points, the centre of
  the covered area (lon/lat, WGS84 degrees).
* **Most common value, capped.** No single gold value of a boolean, count or predefined-option
  sub-template (:data:`CAPPED_FORMATS`; count 0 and count 1 included) may hold more than
  :data:`MAX_SHARE` of the sub-template's questions; for the formats of :data:`PREDICTED_FORMATS`
  the same cap applies to the questions the sub-template's most common gold value hits within
  tolerance (for distance, area and ratio: the constant that is right for the most golds, K05.2's
  perimeter ratios of about 1.0). The surplus is dropped in a seeded order. A value held by one
  question only is never capped.
"""

from __future__ import annotations

import json
import math
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

import numpy as np

from mgqa_platform.questions import formats

#: Discard reason of both rules (counted in ``question_discards``).
REASON = "trivial"
#: Largest share of a sub-template's questions one gold value may hold (boolean, count, predefined).
MAX_SHARE = 0.6
CAPPED_FORMATS = frozenset({"boolean", "count", "predefined"})
#: Formats whose golds are tested against constant predictors (zero, centre, most common value).
PREDICTED_FORMATS = frozenset({"distance", "area", "ratio", "point", "polar", "bbox", "date"})
#: Formats with one number as the answer: their best constant is searched over the golds'
#: tolerances.
NUMERIC_FORMATS = frozenset({"distance", "area", "ratio"})
ZERO = {
    "distance": {"value": 0.0, "unit": "km"},
    "area": {"value": 0.0, "unit": "km2"},
    "ratio": {"value": 0.0},
    "polar": {"angle_deg": 0.0, "distance_km": 0.0},
}

T = TypeVar("T")


def gold_key(gold: dict) -> str:
    """The byte-stable text of a canonical gold (the form stored in ``questions_en.gold``)."""
    return json.dumps(gold, sort_keys=True, ensure_ascii=False)


def most_common(golds: Sequence[dict]) -> dict | None:
    """The gold value that occurs most often, ties broken by its JSON text; None when every value is
    unique (no constant is more common than another)."""
    counts = Counter(gold_key(g) for g in golds)
    if not counts:
        return None
    key, n = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return json.loads(key) if n >= 2 else None


def fixed_predictors(fmt: str, centre: tuple[float, float] | None = None) -> list[dict]:
    """The fixed constants a lazy model answers for format ``fmt``: zero, and for points the centre
    ``(lon, lat)`` (WGS84 degrees) of the covered area. Empty outside :data:`PREDICTED_FORMATS`."""
    if fmt not in PREDICTED_FORMATS:
        return []
    out = [ZERO[fmt]] if fmt in ZERO else []
    if fmt == "point" and centre is not None:
        out.append(formats.point(*centre))
    return out


def best_constant(fmt: str, golds: Sequence[dict]) -> dict | None:
    """For a numeric format (:data:`NUMERIC_FORMATS`), the gold value that, answered to every
    question, is right for the most golds within their tolerances (``formats.tolerance``; ties: the
    smaller value): the lazy model's best constant. None when it is right for one gold only."""
    if not golds:
        return None
    values = np.array([g["value"] for g in golds], dtype=float)
    taus = np.array([formats.tolerance(fmt, g) for g in golds], dtype=float)
    hits = np.concatenate(  # candidate rows in chunks: memory stays O(chunk x n) for large pools
        [
            (np.abs(values[i : i + 1024, None] - values[None, :]) < taus[None, :]).sum(axis=1)
            for i in range(0, len(values), 1024)
        ]
    )
    best = int(np.lexsort((values, -hits))[0])
    return dict(golds[best]) if hits[best] >= 2 else None


def cap_key(fmt: str, golds: Sequence[dict]) -> Callable[[int], Hashable] | None:
    """The value the cap counts for the ``i``-th of a sub-template's ``golds``: the gold itself for
    :data:`CAPPED_FORMATS`; for :data:`PREDICTED_FORMATS` ``"most_common"`` when the most common
    gold (for numeric formats the best constant, :func:`best_constant`) hits it under the scorer,
    else its own index (never grouped). None when there is nothing to cap: every other format, and a
    tolerance format where no constant is right for two golds."""
    if fmt in CAPPED_FORMATS:
        return lambda i: gold_key(golds[i])
    if fmt in NUMERIC_FORMATS:
        mode = best_constant(fmt, golds)
    else:
        mode = most_common(golds) if fmt in PREDICTED_FORMATS else None
    if mode is None:
        return None
    hits = {i for i, g in enumerate(golds) if is_trivial(fmt, g, [mode])}
    return lambda i: "most_common" if i in hits else i


def is_trivial(fmt: str, gold: dict, constants: Sequence[dict]) -> bool:
    """True when one of ``constants`` answers ``gold`` correctly under the scorer (E = 1)."""
    return any(formats.score(fmt, c, gold)[0] == 1 for c in constants)


def capped(
    items: Sequence[T], value: Callable[[T], Hashable], order: Callable[[T], str]
) -> tuple[list[T], list[T]]:
    """``(kept, dropped)``: ``items`` (the questions of one sub-template) with the most common
    ``value`` cut down to at most :data:`MAX_SHARE` of what is kept. The kept ones of that value are
    the first in ``order`` (a seeded key); every other item is kept. One value alone (no other
    value, even a single item) is dropped whole."""
    by_value: dict[Hashable, list[T]] = defaultdict(list)
    for it in items:
        by_value[value(it)].append(it)
    if not by_value:
        return [], []
    top = max(by_value, key=lambda v: (len(by_value[v]), str(v)))
    others = len(items) - len(by_value[top])
    allowed = math.floor(MAX_SHARE / (1.0 - MAX_SHARE) * others + 1e-9)
    group = sorted(by_value[top], key=order)
    dropped = group[allowed:]
    drop_ids = {id(it) for it in dropped}
    return [it for it in items if id(it) not in drop_ids], dropped
