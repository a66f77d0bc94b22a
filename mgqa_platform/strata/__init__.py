"""Strata: country, World Bank income tier and population-density tier of every entity (paper §3.2,
A.2)."""
