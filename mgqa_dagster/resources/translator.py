"""The template translator: the bundled translation memory (offline) or Google Cloud Translation
v3."""

from __future__ import annotations

from typing import Annotated, Literal

import dagster as dg

from mgqa_dagster.resources.env import EnvConfigurableResource
from mgqa_platform.multilingual.translate import MemoryTranslator, Translator


class TranslatorResource(EnvConfigurableResource):
    """Which translator the multilingual stage uses (docs/multilingual.md).

    ``memory`` (default, offline): the bundled translation memory (``memory_dir`` empty = the
    bundled ``mgqa_platform/data/translations``), ``draft`` quality. ``google``: Cloud Translation
    v3 in project ``project_id`` (``MGQA_GOOGLE_PROJECT``) at ``location``, with ``model`` empty for
    the default NMT model or e.g. ``general/translation-llm``; credentials are Application Default
    Credentials (``GOOGLE_APPLICATION_CREDENTIALS``), read by the client library, never stored here.
    ``endpoint`` overrides the API host (``http://127.0.0.1:PORT`` for a local fake or emulator,
    without credentials). ``engine`` is the string recorded as asset metadata (``memory`` /
    ``google:<model or default>``).
    """

    mode: Annotated[Literal["memory", "google"], dg.EnvVar("MGQA_TRANSLATOR")] = "memory"
    project_id: Annotated[str, dg.EnvVar("MGQA_GOOGLE_PROJECT")] = ""
    location: Annotated[str, dg.EnvVar("MGQA_GOOGLE_LOCATION")] = "global"
    model: Annotated[str, dg.EnvVar("MGQA_GOOGLE_MODEL")] = ""
    endpoint: Annotated[str, dg.EnvVar("MGQA_TRANSLATOR_ENDPOINT")] = ""
    memory_dir: Annotated[str, dg.EnvVar("MGQA_TRANSLATION_MEMORY")] = ""
    batch_size: int = 100
    max_retries: int = 5

    @property
    def engine(self) -> str:
        return "memory" if self.mode == "memory" else f"google:{self.model or 'default'}"

    def get_translator(self) -> Translator:
        if self.mode == "memory":
            return MemoryTranslator(self.memory_dir or None)
        if not self.project_id:
            raise ValueError(
                "translator mode 'google' needs a Google Cloud project id: set MGQA_GOOGLE_PROJECT "
                "(or project_id), or use MGQA_TRANSLATOR=memory for the bundled translation memory"
            )
        from mgqa_platform.multilingual.google_translate import (
            GoogleTranslator,  # the client library, on demand
        )

        return GoogleTranslator(
            self.project_id,
            self.location or "global",
            self.model or None,
            batch_size=self.batch_size,
            max_retries=self.max_retries,
            endpoint=self.endpoint or None,
        )
