"""The prose forms are searched only around versions, and find what a search of the whole text finds.

bot.template.prose.forms.version_windows gives the spans around each digit, dot, digit (the line
before to the line after); a text in which no form matches inside them gets no mention and no
comment scan.  Checked on seeded random texts made of the forms' own pieces, line breaks (LF, CRLF),
tables, comments and look-alikes: every match of every form in the whole text lies inside one
window, and a search inside the windows finds a match whenever the whole text has one.
"""

from __future__ import annotations

import random

import pytest

from bot.template.prose import forms
from bot.template.prose.forms import _FORMS, find_mentions, version_windows
from bot.textfile import TextDocument

PIECES = ["ExecuTorch", "executorch", "EXECUTORCH", " ", " ", "\t", "\n", "\r\n", "\n\n", "// ", "# ", ":: ",
          "|", "| ", "**", "`", ":", "=", "==", "@", "@^", "@~", "v", "version ", "release ", "pack ", "tag ",
          "git checkout ", "--branch ", "-b ", "release/", "-local", "PyTorch::ExecuTorch@", "PyTorch.ExecuTorch.",
          ".pack", "executorch/releases/download/", "executorch/tree/", "executorch/archive/", ".tar.gz",
          "pypi.org/project/executorch/", "executorch-", "-cp311", "1.4.0", "1.4", "1.5.1", "0.5f", "2.13.0",
          "1.4.0rc1", "11.4.0.1", "\u0661.\u0664.\u0660", "x", "the", "_", ".", "-", "/", "3"]


def _text(rnd: random.Random) -> str:
    return "".join(rnd.choice(PIECES) for _ in range(rnd.randrange(1, 80)))


@pytest.mark.parametrize("seed", range(8))
def test_every_match_of_every_form_lies_in_a_window(seed):
    rnd = random.Random(seed)
    checked = 0
    for _ in range(1200):
        text = _text(rnd)
        windows = version_windows(text)
        assert windows == sorted(windows) and all(a < b for a, b in windows)
        assert all(windows[i][1] < windows[i + 1][0] for i in range(len(windows) - 1))   # merged
        for _name, rx, *_ in _FORMS:
            whole = list(rx.finditer(text))
            for m in whole:
                assert any(lo <= m.start() and m.end() <= hi for lo, hi in windows), (text, m)
                checked += 1
            if whole:
                assert any(rx.search(text, lo, hi) for lo, hi in windows), text
    assert checked > 100


def test_windows_of_a_small_text():
    text = "a\nExecuTorch\n1.4.0 is here\nend\nmore\nx 0.5f\n"
    # "1.4.0" on line 3: lines 2-4; "0.5" on line 6: lines 5-6 (the end)
    assert version_windows(text) == [(2, len(text))]    # touching windows are one
    assert version_windows("no digits here") == []
    assert version_windows("1.4") == [(0, 3)]
    assert version_windows("a\nb\n1.4\nc\nd\n") == [(2, 10)]
    assert version_windows("a\nb\n1.4\nc\nd\n2.0\n") == [(2, 16)]          # overlapping windows merge
    assert version_windows("a\nb\n1.4\nc\nd\ne\nf\n2.0") == [(2, 10), (14, 19)]


@pytest.mark.parametrize("seed", range(4))
def test_mentions_are_those_of_a_search_of_the_whole_text(seed, monkeypatch):
    rnd = random.Random(100 + seed)
    texts = [_text(rnd) for _ in range(300)]
    windowed = [find_mentions(TextDocument(f"d{i}.md", t)) for i, t in enumerate(texts)]
    forms._find_mentions.cache_clear()
    monkeypatch.setattr(forms, "version_windows", lambda text: [(0, len(text))] if forms._DIGIT_DOT_DIGIT.search(
        text) else [])
    whole = [find_mentions(TextDocument(f"d{i}.md", t)) for i, t in enumerate(texts)]
    forms._find_mentions.cache_clear()
    assert windowed == whole
    assert sum(map(len, whole)) > 50
