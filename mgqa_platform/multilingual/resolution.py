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


@dataclass(frozen=True)
class _Item:
    """One variant to resolve: its language and id, the English source, the machine translation and
    the variant's annotations (none, one or two)."""

    lang: str
    vid: str
    english: str
    mt: str
    anns: Sequence[Annotation]

    def base(self) -> dict[str, Any]:
        """The fields every resolution of the item carries."""
        return {
            "lang": self.lang,
            "variant_id": self.vid,
            "labels": tuple(a.label for a in self.anns),
            "annotators": tuple(a.annotator for a in self.anns),
        }

    def keep_mt(self, method: str, status: str, detail: str | None, **kw: Any) -> Resolution:
        """The MT kept; ``needs_review`` (with the reason added) when the MT breaks slots."""
        mt_problems = slot_problems(self.english, self.mt)
        if mt_problems:
            status = "needs_review"
            detail = "; ".join(
                x for x in (detail, f"MT breaks slots ({', '.join(mt_problems)})") if x
            )
        return Resolution(
            text=self.mt,
            method=method,
            status=status,
            detail=detail,
            source="mt",
            **self.base(),
            **kw,
        )

    def annotator(self, method: str, idx: int, detail: str | None, **kw: Any) -> Resolution:
        """Annotator ``idx``'s correction, resolved."""
        return Resolution(
            text=self.anns[idx].corrected or "",
            method=method,
            status="resolved",
            detail=detail,
            source=f"annotator{idx + 1}",
            **self.base(),
            **kw,
        )

    def take(
        self, method: str, idx: int, detail: str | None, fallback: int | None, **kw: Any
    ) -> Resolution:
        """Annotator ``idx``'s correction if its slots are intact, else ``fallback``'s, else MT."""
        bad = slot_problems(self.english, self.anns[idx].corrected or "")
        if not bad:
            return self.annotator(method, idx, detail, **kw)
        why = f"annotator {idx + 1}'s correction breaks slots ({', '.join(bad)})"
        if fallback is not None and self.anns[fallback].corrected is not None:
            alt_bad = slot_problems(self.english, self.anns[fallback].corrected or "")
            if not alt_bad:
                took = f"{why}; took annotator {fallback + 1}'s instead"
                return self.annotator(method, fallback, took, **kw)
            why += f"; annotator {fallback + 1}'s too ({', '.join(alt_bad)})"
        return self.keep_mt(method, "needs_review", f"{why}; MT kept", **kw)


def _resolve_item(
    lang: str, vid: str, english: str, mt: str, anns: Sequence[Annotation], judge: Judge | None
) -> Resolution:
    """The resolution of one variant by the rules (none, one or two annotations; both correct,
    one-sided, identical corrections, stricter wins), else by ``judge``."""
    item = _Item(lang, vid, english, mt, anns)
    if not anns:
        mt_problems = slot_problems(english, mt)
        det = f"MT breaks slots ({', '.join(mt_problems)})" if mt_problems else None
        return Resolution(
            text=mt,
            method="unreviewed",
            status="unreviewed",
            detail=det,
            source="mt",
            **item.base(),
        )
    if len(anns) == 1:
        if anns[0].label == CORRECT:
            return item.keep_mt("one_sided", "resolved", "single annotation: Correct")
        return item.take("one_sided", 0, "single annotation", None)
    a1, a2 = anns
    if a1.label == CORRECT and a2.label == CORRECT:
        return item.keep_mt("keep_original", "resolved", None)
    if a1.label == CORRECT or a2.label == CORRECT:
        idx = 0 if a1.label != CORRECT else 1
        return item.take("one_sided", idx, f"only annotator {idx + 1} corrected", None)
    if a1.corrected == a2.corrected:  # both stored normalised (NFC + whitespace collapse)
        return item.take("identical_correction", 0, None, None)
    if a1.label != a2.label:
        idx = 0 if RANK[a1.label] > RANK[a2.label] else 1
        stricter = f"annotator {idx + 1} is stricter ({anns[idx].label})"
        return item.take("stricter_wins", idx, stricter, 1 - idx)
    return _judged(item, judge)  # same non-Correct label, different corrections


def _judged(item: _Item, judge: Judge | None) -> Resolution:
    """The resolution of two different corrections under the same label: the judge's choice (MT
    kept, for review, without a judge or on a rejected reply)."""
    if judge is None:
        return item.keep_mt(
            "judge", "needs_review", "no judge configured; the rules cannot decide; MT kept"
        )
    a1, a2 = item.anns
    try:
        jc = judge.choose(
            item.lang,
            item.english,
            item.mt,
            a1.corrected or "",
            a2.corrected or "",
            key=f"{item.lang}:{item.vid}",
        )
    except JudgeError as exc:
        return item.keep_mt("judge", "needs_review", f"judge reply rejected ({exc}); MT kept")
    extra = {"judge_choice": jc.choice, "rationale": jc.rationale}
    if jc.choice == "second":
        return item.take("judge", 1, "judge chose annotator 2", 0, **extra)
    what = (
        "judge chose annotator 1"
        if jc.choice == "first"
        else "judge: equivalent, annotator 1's text taken"
    )
    return item.take("judge", 0, what, 1, **extra)


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
    out = _methods_section(lang, resolutions, stats, judge_info)
    out += _statistics_section(stats)
    out += _review_section(resolutions)
    out += _rejected_section(rejected)
    return "\n".join(out) + "\n"


def _methods_section(
    lang: str,
    resolutions: Sequence[Resolution],
    stats: Mapping[str, Any],
    judge_info: Mapping[str, Any] | None,
) -> list[str]:
    """The report's title, counts by status, the table of methods and the judge's outcomes."""
    name = language(lang).name
    status = Counter(r.status for r in resolutions)
    methods = Counter(r.method for r in resolutions)
    out = [f"# Post-edit resolution: {name} ({lang})", ""]
    out.append(
        f"{len(resolutions)} variants: " + ", ".join(f"{status[s]} {s}" for s in STATUSES) + "."
    )
    if status["unreviewed"] == len(resolutions):
        out.append(
            "No annotations for this language: every variant keeps its machine translation "
            "(unreviewed)."
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
    return out


def _statistics_section(stats: Mapping[str, Any]) -> list[str]:
    """The annotation statistics (the Table 9 row), the pairwise figures and the reasons."""
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
    out = ["", "## Annotation statistics (Table 9)", ""]
    out += markdown.table(header, [row], "r" * len(header))
    pw = stats.get("pairwise") or {}
    if pw:
        pairs = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in pw.items())
        out += ["", f"Pairwise (Fig. 8): {pairs}."]
    if stats.get("reasons"):
        reasons = ", ".join(f"{k} {v}" for k, v in stats["reasons"].items())
        out += ["", f"Correction reasons: {reasons}."]
    return out


def _review_section(resolutions: Sequence[Resolution]) -> list[str]:
    """The items that need review, as a table (``None.`` when there is none)."""
    review = [r for r in resolutions if r.status == "needs_review"]
    rows = [
        (r.variant_id, r.method, _cell(" / ".join(r.labels)), _cell(r.detail or "")) for r in review
    ]
    out = ["", f"## Needs review ({len(review)})", ""]
    if not rows:
        return [*out, "None."]
    return out + markdown.table(["variant", "method", "labels", "detail"], rows)


def _rejected_section(rejected: Sequence[Rejected]) -> list[str]:
    """The rejected annotation rows, as a table (``None.`` when there is none)."""
    rows = [
        (r.line, r.reason, _cell(r.row.get("variant_id", "")), _cell(r.row.get("annotator", "")))
        for r in rejected
    ]
    out = ["", f"## Rejected annotation rows ({len(rejected)})", ""]
    if not rows:
        return [*out, "None."]
    return out + markdown.table(["line", "reason", "variant", "annotator"], rows, "rlll")
