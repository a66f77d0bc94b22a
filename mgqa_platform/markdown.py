"""Markdown tables, the one way every report, dataset card and asset description writes them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any


def table(
    header: Sequence[str], rows: Iterable[Sequence[Any]], align: str | Sequence[str] = ""
) -> list[str]:
    """Lines of a GitHub Markdown table: ``| a | b |``, the rule, then one line per row (cells through ``str``).

    ``align`` gives one character per column, ``l`` (``---``) or ``r`` (``---:``); the default is left for all.
    A cell is written as it is: escape ``|`` in it beforehand where it may hold one.
    """
    align = align or "l" * len(header)
    if len(align) != len(header):
        raise ValueError(f"align has {len(align)} entries for {len(header)} columns")
    rule = "|" + "".join("---:|" if a == "r" else "---|" for a in align)
    return [
        "| " + " | ".join(header) + " |",
        rule,
        *("| " + " | ".join(str(c) for c in r) + " |" for r in rows),
    ]
