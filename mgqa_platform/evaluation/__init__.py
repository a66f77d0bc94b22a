"""Evaluation: Table 12 scoring, baselines, the compute-grounded reference solver and model runners.

Plain Python (no Dagster import). Nothing here opens the warehouse except the ``load_*`` helpers
that read released question records; scoring, the solver and the runners work on records alone.
"""
