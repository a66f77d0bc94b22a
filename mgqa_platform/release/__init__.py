"""The release: question Parquet files per language and split, entity sites as GeoParquet, and a
dataset card.

Layout of a release folder (loadable with Hugging Face ``datasets``: one config per language, splits
``large`` and ``small``)::

    README.md               dataset card; YAML front matter lists one config per language
    ATTRIBUTION.md          sources and licences of the inputs
    SHA256SUMS              sha256 of every other file, by relative path
    entity_sites.parquet    GeoParquet of every entity bound in a released question
    data/<lang>/large.parquet, data/<lang>/small.parquet

Every writer is deterministic (same inputs, byte-identical files) and atomic (temp file +
``os.replace``)."""
