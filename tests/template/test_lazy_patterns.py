"""Patterns compiled on first use (bot.lazyre): same answers as re.compile, nothing compiled at import."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from bot.lazyre import LazyPattern, lazy

ROOT = Path(__file__).resolve().parents[2]


def test_a_lazy_pattern_answers_like_the_compiled_one():
    rx, ref = lazy(r"(?P<v>\d+)\.(\d+)", re.I), re.compile(r"(?P<v>\d+)\.(\d+)", re.I)
    text = "a 1.4 b 22.7"
    assert [m.span("v") for m in rx.finditer(text)] == [m.span("v") for m in ref.finditer(text)]
    assert rx.search(text).group(0) == "1.4"
    assert rx.match(text) is None and rx.fullmatch("3.4").group(2) == "4"
    assert rx.sub("X", text) == "a X b X" and rx.findall(text) == [("1", "4"), ("22", "7")]
    assert (rx.pattern, rx.flags, rx.groups, dict(rx.groupindex)) == (ref.pattern, ref.flags, 2, {"v": 1})
    assert rx.search(text, 5).group(0) == "22.7"  # pos argument, as a compiled pattern takes it


def test_nothing_is_compiled_before_first_use_and_an_invalid_pattern_fails_then():
    bad = LazyPattern(r"(")
    with pytest.raises(re.error):
        bad.search("x")
    with pytest.raises(AttributeError):
        lazy("x").no_such_attribute  # noqa: B018


def test_the_costly_module_patterns_are_lazy_until_used():
    probe = ("from bot.engine.pythons import PY_VERSION\nfrom bot.template.prose.sentences import MEASURE\n"
             "from bot.pack import checks\n"
             "print(type(PY_VERSION).__name__, type(MEASURE).__name__, type(checks._SEMVER).__name__, "
             "PY_VERSION.match('3.10') is not None, MEASURE.search('22 fps') is not None)\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert out.split() == ["LazyPattern", "LazyPattern", "LazyPattern", "True", "True"]
