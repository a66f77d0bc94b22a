"""Generate ``questions_en`` with this checkout's code on a copy of a built warehouse and compare
it, row by row, with the copy's own ``questions_en`` and ``question_discards`` (``run_id`` left
aside).

The built warehouse is only copied, never opened. Prints the counts, a hash over the sorted rows of
each side, and whether both tables are equal; exits 1 when they differ.

    .venv/bin/python scripts/compare_questions.py --warehouse ../main/.mgqa/warehouse.duckdb
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

from mgqa_platform import settings
from mgqa_platform.questions.catalog import default_catalog
from mgqa_platform.questions.generate import DEFAULT_SEED, generate, write_questions
from mgqa_platform.warehouse import connect


def table_lines(con, table: str, order: str, drop: tuple[str, ...] = ()) -> list[str]:
    """The rows of ``table`` in ``order``, each as sorted-key JSON without the columns ``drop``."""
    cur = con.execute(f"SELECT * FROM {table} ORDER BY {order}")
    names = [d[0] for d in cur.description]
    return [
        json.dumps(
            {k: v for k, v in zip(names, r, strict=True) if k not in drop},
            default=str,
            sort_keys=True,
        )
        for r in cur.fetchall()
    ]


def digest(lines: list[str]) -> str:
    """A short sha256 over ``lines``."""
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]


def compare(path: Path) -> dict:
    """Regenerate the questions of the warehouse at ``path`` (a copy: it is overwritten) and
    compare."""
    con = connect(str(path))
    discards = "kg, sub_template_id, stratum, reason"
    ref_q = table_lines(con, "questions_en", "question_id", ("run_id",))
    ref_d = table_lines(con, "question_discards", discards)
    (code_version,) = con.execute("SELECT any_value(code_version) FROM questions_en").fetchone()
    t0 = time.perf_counter()
    gen = generate(
        con, default_catalog(), settings.KGS, seed=DEFAULT_SEED, code_version=code_version
    )
    seconds = time.perf_counter() - t0
    write_questions(con, gen)
    new_q = table_lines(con, "questions_en", "question_id", ("run_id",))
    new_d = table_lines(con, "question_discards", discards)
    con.close()
    return {
        "seconds": round(seconds, 1),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "questions": [len(ref_q), len(new_q)],
        "questions_sha256": [digest(ref_q), digest(new_q)],
        "discards_sha256": [digest(ref_d), digest(new_d)],
        "same_questions": ref_q == new_q,
        "same_discards": ref_d == new_d,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--warehouse", default=".mgqa/warehouse.duckdb", help="a built warehouse")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "warehouse.duckdb"
        shutil.copyfile(args.warehouse, copy)
        result = compare(copy)
    print(json.dumps(result))
    sys.exit(0 if result["same_questions"] and result["same_discards"] else 1)


if __name__ == "__main__":
    main()
