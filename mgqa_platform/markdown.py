"""Markdown tables, the one way every report, dataset card and asset description writes them;
images inlined for asset metadata."""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any


def table(
    header: Sequence[str], rows: Iterable[Sequence[Any]], align: str | Sequence[str] = ""
) -> list[str]:
    """Lines of a GitHub Markdown table: ``| a | b |``, the rule, then one line per row (cells
    through ``str``).

    ``align`` gives one character per column, ``l`` (``---``) or ``r`` (``---:``); the default is
    left for all. A cell is written as it is: escape ``|`` in it beforehand where it may hold one.
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


#: A Markdown image whose target is a relative file name: ``![alt](name.png)``.
_RELATIVE_IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)\s:]+\.png)\)")


def embed_images(text: str, folder: str | Path) -> str:
    """``text`` with every relative PNG image (``![alt](name.png)``) replaced by a base64 data URI
    of ``folder/name.png``, so the Markdown shows its charts wherever it is rendered (the Dagster
    UI has no file server). A missing file raises ``FileNotFoundError`` naming it."""

    def inline(m: re.Match) -> str:
        data = base64.b64encode((Path(folder) / m.group(2)).read_bytes()).decode("ascii")
        return f"![{m.group(1)}](data:image/png;base64,{data})"

    return _RELATIVE_IMAGE.sub(inline, text)
