"""The released splits (paper §3.7): ``large`` is every question; ``small`` is a canonical subset of
it.

``small`` keeps at most :data:`SMALL_PER_CELL` questions per (KG, SFID) cell, chosen by a seeded
hash of the question id (true-premise, false-premise and multimodal questions alike), so the same
large split always gives the same small split, and a question's membership does not depend on the
other questions of its cell beyond their rank.
"""

from __future__ import annotations

import duckdb

from mgqa_platform.warehouse import transaction

SMALL_PER_CELL = 200


def write_small_split(
    con: duckdb.DuckDBPyConnection, seed: int, per_cell: int = SMALL_PER_CELL
) -> int:
    """Replace ``split_small`` with the small split of ``questions_en``; returns its size."""
    with transaction(con):
        con.execute("DELETE FROM split_small")
        con.execute(
            "INSERT INTO split_small SELECT question_id, kg, sfid FROM questions_en "
            "QUALIFY row_number() OVER (PARTITION BY kg, "
            "sfid ORDER BY md5(? || '|' || question_id), question_id) <= ? "
            "ORDER BY question_id",
            [str(seed), int(per_cell)],
        )
    return int(con.execute("SELECT count(*) FROM split_small").fetchone()[0])
