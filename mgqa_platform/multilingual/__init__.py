"""Multilingual stages: template translation, post-edit resolution, re-instantiation per language.

Plain Python, no Dagster import. The 17 languages are :mod:`mgqa_platform.languages`;
``placeholders`` the slot rules every translation must keep; ``memory`` and ``google_translate``
are the two translators;
``annotations`` reads the human post-edits, ``resolution`` resolves them into one text per variant
(with ``judge`` where the rules cannot decide) and ``agreement`` measures the annotation (Table 9);
``instantiate`` re-renders the English questions in each language, with the category nouns of
``grammar`` (gender, case forms, agreeing words by feature).
"""
