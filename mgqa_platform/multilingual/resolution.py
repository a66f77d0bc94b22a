"""Resolution of two human post-edits of a template translation into one text (paper B.3-B.4).

Plain Python, no Dagster. :func:`resolve` applies a rule-based pass first (``keep_original``,
``identical_correction``, ``stricter_wins``, ``one_sided``), then a judge for the rest
(:mod:`mgqa_platform.multilingual.judge`). The judge only *chooses* between the two anonymous
candidates; the final text is always looked up from the chosen annotator, never taken from the
judge's reply. Every chosen text must keep the template placeholders
(:func:`mgqa_platform.multilingual.placeholders.problems`); otherwise the other candidate is tried,
else the MT is kept and the item flagged ``needs_review``. :func:`report_markdown` writes the
per-language report of the resolution.

Annotator order: "annotator 1" / "annotator 2" of an item are the item's two annotators in the order
their IDs first appear in the annotation list (for a loaded file: in the file). "equivalent" from
the judge takes annotator 1's text.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mgqa_platform import markdown
from mgqa_platform.languages import language
from mgqa_platform.multilingual.annotations import (
    CORRECT,
    METHODS,
    RANK,
    STATUSES,
    Annotation,
    Rejected,
)
from mgqa_platform.multilingual.judge import Judge, JudgeError
from mgqa_platform.multilingual.placeholders import problems as slot_problems

__all__ = ["Resolution", "resolve", "report_markdown"]


@dataclass(frozen=True)
class Resolution:
    lang: str
    variant_id: str
    text: str  #: the final translation
    method: str  #: one of METHODS
    status: str  #: one of STATUSES
    labels: tuple[str, ...] = ()  #: the annotators' labels, annotator 1 first
    detail: str | None = None
    annotators: tuple[str, ...] = ()  #: annotator IDs, annotator 1 first
    source: str = "mt"  #: where ``text`` comes from: "mt", "annotator1" or "annotator2"
    judge_choice: str | None = None  #: "first" / "second" / "equivalent" when the judge decided
    rationale: str | None = None  #: the judge's rationale


def _resolve_item(
    lang: str, vid: str, english: str, mt: str, anns: Sequence[Annotation], judge: Judge | None
) -> Resolution:
    labels = tuple(a.label for a in anns)
    who = tuple(a.annotator for a in anns)
    base: dict[str, Any] = {"lang": lang, "variant_id": vid, "labels": labels, "annotators": who}
    mt_problems = slot_problems(english, mt)

    def keep_mt(method: str, status: str, detail: str | None, **kw: Any) -> Resolution:
        if mt_problems:
            status = "needs_review"
            detail = "; ".join(
                x for x in (detail, f"MT breaks slots ({', '.join(mt_problems)})") if x
            )
        return Resolution(
            text=mt, method=method, status=status, detail=detail, source="mt", **base, **kw
        )

    def take(
        method: str, idx: int, detail: str | None, fallback: int | None, **kw: Any
    ) -> Resolution:
        """Annotator ``idx``'s correction if its slots are intact, else ``fallback``'s, else MT."""
        text = anns[idx].corrected or ""
        bad = slot_problems(english, text)
        if not bad:
            return Resolution(
                text=text,
                method=method,
                status="resolved",
                detail=detail,
                source=f"annotator{idx + 1}",
                **base,
                **kw,
            )
        why = f"annotator {idx + 1}'s correction breaks slots ({', '.join(bad)})"
        if fallback is not None and anns[fallback].corrected is not None:
            alt = anns[fallback].corrected or ""
            alt_bad = slot_problems(english, alt)
            if not alt_bad:
                return Resolution(
                    text=alt,
                    method=method,
                    status="resolved",
                    detail=f"{why}; took annotator {fallback + 1}'s instead",
                    source=f"annotator{fallback + 1}",
                    **base,
                    **kw,
                )
            why += f"; annotator {fallback + 1}'s too ({', '.join(alt_bad)})"
        return keep_mt(method, "needs_review", f"{why}; MT kept", **kw)

    if not anns:
        det = f"MT breaks slots ({', '.join(mt_problems)})" if mt_problems else None
        return Resolution(
            text=mt, method="unreviewed", status="unreviewed", detail=det, source="mt", **base
        )
    if len(anns) == 1:
        a = anns[0]
        if a.label == CORRECT:
            return keep_mt("one_sided", "resolved", "single annotation: Correct")
        return take("one_sided", 0, "single annotation", None)
    a1, a2 = anns
    if a1.label == CORRECT and a2.label == CORRECT:
        return keep_mt("keep_original", "resolved", None)
    if a1.label == CORRECT or a2.label == CORRECT:
        idx = 0 if a1.label != CORRECT else 1
        return take("one_sided", idx, f"only annotator {idx + 1} corrected", None)
    if a1.corrected == a2.corrected:  # both stored normalised (NFC + whitespace collapse)
        return take("identical_correction", 0, None, None)
    if a1.label != a2.label:
        idx = 0 if RANK[a1.label] > RANK[a2.label] else 1
        return take(
            "stricter_wins", idx, f"annotator {idx + 1} is stricter ({anns[idx].label})", 1 - idx
        )
    # same non-Correct label, different corrections: the judge
    if judge is None:
        return keep_mt(
            "judge", "needs_review", "no judge configured; the rules cannot decide; MT kept"
        )
    try:
        jc = judge.choose(
            lang, english, mt, a1.corrected or "", a2.corrected or "", key=f"{lang}:{vid}"
        )
    except JudgeError as exc:
        return keep_mt("judge", "needs_review", f"judge reply rejected ({exc}); MT kept")
    extra = {"judge_choice": jc.choice, "rationale": jc.rationale}
    if jc.choice == "second":
        return take("judge", 1, "judge chose annotator 2", 0, **extra)
    what = (
        "judge chose annotator 1"
        if jc.choice == "first"
        else "judge: equivalent, annotator 1's text taken"
    )
    return take("judge", 0, what, 1, **extra)


def resolve(
    lang: str,
    english: Mapping[str, str],
    mt: Mapping[str, str],
    annotations: Iterable[Annotation],
    judge: Judge | None = None,
) -> list[Resolution]:
    """One :class:`Resolution` per variant of ``mt``, by variant_id (rules: module docstring).

    ``english`` must hold every variant of ``mt``. Annotations of another language or of a variant
    not in ``mt``, two annotations by one annotator, or more than two on an item raise ValueError
    (:func:`load_annotations` quarantines those)."""
    language(lang)
    missing = sorted(set(mt) - set(english))
    if missing:
        raise ValueError(f"no English text for {len(missing)} variant(s): {', '.join(missing[:5])}")
    by_item: dict[str, list[Annotation]] = defaultdict(list)
    rank: dict[str, int] = {}
    for a in annotations:
        if a.lang != lang:
            raise ValueError(f"annotation for {a.lang!r} passed to resolve({lang!r})")
        if a.variant_id not in mt:
            raise ValueError(f"annotation for unknown variant {a.variant_id!r}")
        if any(b.annotator == a.annotator for b in by_item[a.variant_id]):
            raise ValueError(f"two annotations by {a.annotator!r} on {a.variant_id}")
        by_item[a.variant_id].append(a)
        if len(by_item[a.variant_id]) > 2:
            raise ValueError(f"more than two annotations on {a.variant_id}")
        rank.setdefault(a.annotator, len(rank))
    out = []
    for vid in sorted(mt):
        anns = sorted(by_item.get(vid, []), key=lambda a: rank[a.annotator])
        out.append(_resolve_item(lang, vid, english[vid], mt[vid], anns, judge))
    return out


def _fmt(v: Any, digits: int = 1) -> str:
    if v is None:
        return "n/a"
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return str(v)


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def report_markdown(
    lang: str,
    resolutions: Sequence[Resolution],
    stats: Mapping[str, Any],
    rejected: Sequence[Rejected],
    judge_info: Mapping[str, Any] | None = None,
) -> str:
    """The per-language resolution report: methods and statuses, the Table 9 row, items needing
    review, and the quarantined rows of the annotation file."""
    name = language(lang).name
    status = Counter(r.status for r in resolutions)
    methods = Counter(r.method for r in resolutions)
    out = [f"# Post-edit resolution: {name} ({lang})", ""]
    out.append(
        f"{len(resolutions)} variants: " + ", ".join(f"{status[s]} {s}" for s in STATUSES) + "."
    )
    if status["unreviewed"] == len(resolutions):
        out.append(
            "No annotations for this language: every variant keeps its machine translation (unreviewed)."
        )
    out += ["", "## Resolution methods", ""]
    out += markdown.table(["method", "items"], [(m, methods[m]) for m in METHODS], "lr")
    jc = stats.get("judge_choices") or {}
    if jc:
        choices = ", ".join(f"{k} {jc[k]}" for k in ("first", "second", "equivalent") if k in jc)
        out += ["", f"Judge outcomes: {choices} (equivalent takes annotator 1's text)."]
    if judge_info:
        out += [
            "",
            "Judge: " + ", ".join(f"{k}={v}" for k, v in judge_info.items() if k != "client"),
        ]
    header = [
        "items",
        "annotated",
        "% Correct",
        "% Phrasing",
        "corr. rate",
        "agreement",
        "alpha",
        "kappa",
        "chrF",
        "% judge",
    ]
    row = [str(stats.get("n_items", "n/a")), str(stats.get("n_annotated", "n/a"))]
    row += [
        _fmt(stats.get(k))
        for k in ("pct_correct", "pct_phrasing", "correction_rate", "exact_agreement")
    ]
    row += [_fmt(stats.get(k), 2) for k in ("alpha", "kappa")]
    row += [_fmt(stats.get(k)) for k in ("chrf", "pct_judge")]
    out += ["", "## Annotation statistics (Table 9)", ""]
    out += markdown.table(header, [row], "r" * len(header))
    pw = stats.get("pairwise") or {}
    if pw:
        out += [
            "",
            "Pairwise (Fig. 8): "
            + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in pw.items())
            + ".",
        ]
    if stats.get("reasons"):
        out += [
            "",
            "Correction reasons: "
            + ", ".join(f"{k} {v}" for k, v in stats["reasons"].items())
            + ".",
        ]
    review = [r for r in resolutions if r.status == "needs_review"]
    out += ["", f"## Needs review ({len(review)})", ""]
    if review:
        rows = [
            (r.variant_id, r.method, _cell(" / ".join(r.labels)), _cell(r.detail or ""))
            for r in review
        ]
        out += markdown.table(["variant", "method", "labels", "detail"], rows)
    else:
        out.append("None.")
    out += ["", f"## Rejected annotation rows ({len(rejected)})", ""]
    if rejected:
        rows = [
            (
                r.line,
                r.reason,
                _cell(r.row.get("variant_id", "")),
                _cell(r.row.get("annotator", "")),
            )
            for r in rejected
        ]
        out += markdown.table(["line", "reason", "variant", "annotator"], rows, "rlll")
    else:
        out.append("None.")
    return "\n".join(out) + "\n"
