"""Dagster resources of the MGQA code location.

Every setting a deployment changes is a resource field bound to an environment variable
(``Annotated[T, dg.EnvVar("MGQA_...")]``, see :mod:`mgqa_dagster.resources.env`), read when a run
initializes the resource; each field declares its default, which points at the bundled sample so
that the embedded default runs offline. :class:`~mgqa_dagster.resources.paths.PathsResource` holds
the platform's own folders and is nested in every resource that needs one. docs/configuration.md
lists every variable.
"""
