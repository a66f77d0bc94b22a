"""Dagster assets of the MGQA code location, one module per pipeline stage (thin: they call
mgqa_platform).

``definitions`` loads every asset of this package with ``dagster.load_assets_from_package_module``.
"""

import warnings

import dagster as dg

# The input files are observable source assets (their data version is the file's hash). Dagster 1.13
# marks the decorator beta and warns once per asset at import; the CLI and the UI would print five
# identical warnings.
warnings.filterwarnings("ignore", message=".*observable_source_asset.*", category=dg.BetaWarning)
# Great Expectations imports pyspark when it is installed (it is, for MGQA_ENGINE=spark), and
# pyspark 4.3 warns at import that it does not fully support pandas 3; our Spark stages exchange
# Arrow batches, not pandas frames.
warnings.filterwarnings(
    "ignore", message="PySpark does not yet fully support pandas", category=FutureWarning
)
