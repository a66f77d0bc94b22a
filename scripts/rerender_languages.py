"""Re-render languages of a built warehouse with the working tree's memories and rules, then print
the error-detector table of the text the release would ship.

The warehouse is copied to a temporary folder (the original is never written); on the copy, each
language goes through the same stage functions the Dagster assets call: template translation from
the bundled memory (``stage.translate_language``), resolution without annotations
(``stage.resolve_language``, offline judge), re-instantiation of every English question
(``stage.localize_language``) and the offline post-edit ensemble (``stage.postedit_language`` with
the rule member). The table is then ``scripts/detect_errors.py``'s, over ``questions_postedited``
(``--table`` for the other one). Languages not named keep the copy's stored rows and are left out of
the table. Run from the repository root::

    .venv/bin/python scripts/rerender_languages.py --warehouse /path/to/warehouse.duckdb tur kat
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

from detect_errors import table  # scripts/detect_errors.py, beside this script

from mgqa_platform import report, warehouse
from mgqa_platform.languages import TARGETS
from mgqa_platform.multilingual import stage
from mgqa_platform.multilingual.ensemble import RuleMember
from mgqa_platform.multilingual.judge import OfflineJudge
from mgqa_platform.multilingual.translate import MemoryTranslator
from mgqa_platform.questions.catalog import default_catalog


def rerender(con, lang: str) -> None:
    """Translate, resolve, localize and post-edit ``lang`` on ``con`` with the offline defaults."""
    catalog = default_catalog()
    stage.translate_language(con, catalog, lang, MemoryTranslator())
    stage.resolve_language(con, lang, None, OfflineJudge())
    stage.localize_language(con, catalog, lang)
    stage.postedit_language(con, lang, [RuleMember()], "rules")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--warehouse", type=Path, required=True, help="a built warehouse (read only)")
    ap.add_argument(
        "--table",
        choices=("questions_localized", "questions_postedited"),
        default="questions_postedited",
    )
    ap.add_argument("--examples", type=int, default=0, help="flagged questions per detector")
    ap.add_argument("langs", nargs="+", choices=TARGETS, metavar="LANG")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="mgqa-rerender-") as tmp:
        copy = Path(tmp) / "warehouse.duckdb"
        shutil.copyfile(args.warehouse, copy)
        with warehouse.session(copy) as con:
            for lang in args.langs:
                rerender(con, lang)
            found = report.detector_rates(con, args.table, args.examples)
    print(table({lang: found[lang] for lang in args.langs if lang in found}, args.examples))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
