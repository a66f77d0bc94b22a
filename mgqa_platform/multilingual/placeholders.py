"""Template slots: ``{entity_A}``, ``{category_B}``, ``{value}``... must survive translation
untouched.

Every source placeholder must come back exactly once, no new one may appear, and braces must stay
balanced (paper section 3.5). :func:`problems` lists what is wrong with a translation, as short
codes with the slot, e.g. ``missing:{entity_A}``, ``duplicated:{value}``,
``unexpected:{entidad_A}``, ``unbalanced_braces``.

A translated slot may carry a grammar spec (:mod:`~mgqa_platform.multilingual.grammar`):
``{category_A:def}`` counts as ``{category_A}``; ``{category_A:=placed}`` (an agreeing word alone)
does not count, but must name a slot of the source; ``{rank_type:~category_A}`` (a parameter word
agreeing with a category) counts as ``{rank_type}``, and the slot it agrees with must be one of the
source.
"""

from __future__ import annotations

import re
from collections import Counter

PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?::([^{}]*))?\}")


def placeholders(text: str) -> list[str]:
    """Slot names in order of appearance: ``"From {entity_A} to {entity_B}"`` -> ``["entity_A",
    "entity_B"]``; ``{category_A:def}`` is ``category_A``; an agreement-only reference
    ``{category_A:=placed}`` is left out."""
    return [
        m.group(1) for m in PLACEHOLDER.finditer(text) if not (m.group(2) or "").startswith("=")
    ]


def agreement_refs(text: str) -> list[str]:
    """Slots referenced only for agreement (``{category_A:=placed}`` -> ``category_A``), in
    order."""
    return [m.group(1) for m in PLACEHOLDER.finditer(text) if (m.group(2) or "").startswith("=")]


def agreement_targets(text: str) -> list[str]:
    """Slots a parameter word agrees with (``{rank_type:~category_A}`` -> ``category_A``), in
    order."""
    return [
        m.group(2)[1:] for m in PLACEHOLDER.finditer(text) if (m.group(2) or "").startswith("~")
    ]


def problems(source: str, target: str | None) -> list[str]:
    """Why ``target`` is not a valid translation of template ``source`` as far as slots go ([] when
    fine)."""
    if target is None or not target.strip():
        return ["empty"]
    want, got = Counter(placeholders(source)), Counter(placeholders(target))
    out = [f"missing:{{{p}}}" for p in sorted(want) if got[p] == 0]
    out += [f"duplicated:{{{p}}}" for p in sorted(want) if got[p] > want[p]]
    out += [f"unexpected:{{{p}}}" for p in sorted(got) if p not in want]
    refs = set(agreement_refs(target)) | set(agreement_targets(target))
    out += [f"unexpected:{{{p}}}" for p in sorted(refs) if p not in want]
    stripped = PLACEHOLDER.sub("", target)
    if "{" in stripped or "}" in stripped:
        out.append("unbalanced_braces")
    return out
