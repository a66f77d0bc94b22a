"""The executor registry written out in mgqa_platform.questions.executors: one per catalog name."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

from mgqa_platform.questions import executors
from mgqa_platform.questions.catalog import default_catalog
from mgqa_platform.questions.executor import Executor
from mgqa_platform.questions.executors import CLASSES, EXECUTORS, distance, registry


def test_registry_holds_every_executor_the_catalog_names_and_nothing_else():
    named = {s.executor for s in default_catalog().sub_templates if s.executor}
    assert set(EXECUTORS) == named


def test_no_executor_is_listed_twice():
    assert len(set(CLASSES)) == len(CLASSES) == len(EXECUTORS)
    assert [type(e) for e in EXECUTORS.values()] == list(CLASSES)
    assert all(name == e.name for name, e in EXECUTORS.items())


def test_every_executor_class_of_the_modules_is_listed():
    defined = set()
    for info in pkgutil.iter_modules(executors.__path__):
        module = importlib.import_module(f"{executors.__name__}.{info.name}")
        defined |= {
            cls
            for _, cls in inspect.getmembers(module, inspect.isclass)
            if issubclass(cls, Executor) and cls.__module__ == module.__name__ and cls.name
        }
    assert defined == set(CLASSES)


def test_registry_refuses_a_name_twice_or_no_name():
    class Twin(distance.PairDistance):
        pass

    with pytest.raises(ValueError, match="distance.pair"):
        registry([distance.PairDistance, Twin])
    with pytest.raises(ValueError, match="already taken"):
        registry([distance.PairDistance, distance.PairDistance])
    with pytest.raises(ValueError, match="empty"):
        registry([Executor])


def test_registry_is_read_only():
    with pytest.raises(TypeError):
        EXECUTORS["distance.pair"] = EXECUTORS["distance.pair"]  # type: ignore[index]
