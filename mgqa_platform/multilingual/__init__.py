"""Multilingual stages: template translation, post-edit resolution, re-instantiation per language.

Plain Python, no Dagster import. ``languages`` fixes the 17 languages; ``placeholders`` the slot rules every
translation must keep; ``memory`` and ``google_translate`` are the two translators; ``postedit`` resolves human
annotations; ``instantiate`` re-renders the English questions in each language.
"""
