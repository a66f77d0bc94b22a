"""The Spark engine (``MGQA_ENGINE=spark``): the heavy stages on Apache Spark, any master URL.

- :mod:`session`: a Spark session for offline runs (UTC, no UI, local dirs under the scratch
  folder);
- :mod:`geoparquet`: the partitioned GeoParquet datasets the stages write, read by DuckDB as views;
- :mod:`convert`: the per-entity geometry, H3 and attribute work of KG conversion, the very Python
  functions of :mod:`mgqa_platform.kg.convert` run inside ``mapInArrow``;
- :mod:`strata`: the strata join (entity -> country, density tier, income tier).

Nothing here imports pyspark at import time; the DuckDB engine never loads it.
"""
