"""A form is skipped only when its match cannot be in the text: the cheap tests before the forms run
(each form's literals, the label's hint in the version windows) never lose a mention that the form's
own pattern finds.

The reference is the same search without any of those tests: every form over every prose region.
"""

from __future__ import annotations

import random

import pytest

from bot import engine
from bot.commands.demo import copy_template
from bot.engine import read as readmod
from bot.template.prose import forms as F
from bot.template.prose.regions import regions_of
from bot.template.prose.sentences import Context
from bot.textfile import TextDocument
from test_scan_git_quiet_files import _both, _whole, patient, upstream  # noqa: F401


def _every_form(path: str, text: str) -> tuple:
    """The mentions of every form over every region, nothing skipped (the reference)."""
    doc, ctx = TextDocument(path=path, text=text), Context(text)
    found, taken = [], set()
    for form, rx, weak, pack_form, _ in F._FORMS:
        for lo, hi in regions_of(path, text):
            for m in rx.finditer(text, lo, hi):
                group = "v" if m.group("v") is not None else "v2"
                s, e = m.span(group)
                if not taken.isdisjoint(range(s, e)) or (weak and not ctx.paragraph_mentions_executorch(s)):
                    continue
                exact = not (form in ("PyTorch::ExecuTorch@", "@version") and m.group("op"))
                taken.update(range(s, e))
                found.append(F.Mention(form, s, e, m.group(group), doc.line_of(s), exact, m.group(0), pack_form))
    return tuple(sorted(found, key=lambda x: x.start))


def _mentions(text: str, path: str = "docs/a.md") -> list:
    return [(m.form, m.version, m.line, m.text) for m in F.find_mentions(TextDocument(path=path, text=text))]


@pytest.mark.parametrize("text, form, version, match", [
    ("ExecuTorch=1.4.0\n", "label", "1.4.0", "ExecuTorch=1.4.0"),
    ("EXECUTORCH=v1.4.0\n", "label", "1.4.0", "EXECUTORCH=v1.4.0"),
    ("ExecuTorch release : 1.4.0\n", "label", "1.4.0", "ExecuTorch release : 1.4.0"),
    ("ExecuTorch release=1.4.0\n", "label", "1.4.0", "ExecuTorch release=1.4.0"),
    ("ExecuTorch pack : 1.4.0\n", "label", "1.4.0", "ExecuTorch pack : 1.4.0"),
    ("ExecuTorch\t: 1.4.0\n", "label", "1.4.0", "ExecuTorch\t: 1.4.0"),
    ("ExecuTorch version\t= 1.4.0\n", "label", "1.4.0", "ExecuTorch version\t= 1.4.0"),
    # re.I matches ſ with s, ı and İ with i: str.lower() does not
    ("ExecuTorch relea\u017fe: 1.4.0\n", "label", "1.4.0", "ExecuTorch relea\u017fe: 1.4.0"),
    ("ExecuTorch vers\u0131on: 1.4.0\n", "label", "1.4.0", "ExecuTorch vers\u0131on: 1.4.0"),
    ("see pytorch/executorch/relea\u017fes/tag/v1.4.0 now\n", "release-url", "1.4.0",
     "executorch/relea\u017fes/tag/v1.4.0"),
    # the source form's archive look-ahead on a release tag path
    ("get pytorch/executorch/releases/tag/v1.4.0.zip\n", "source-url", "1.4.0",
     "executorch/releases/tag/v1.4.0"),
])
def test_a_form_the_cheap_tests_once_skipped_is_found(text, form, version, match):
    F._find_mentions.cache_clear()
    assert _mentions(text) == [(form, version, 1, match)]


PIECES = ["ExecuTorch", "EXECUTORCH", "executorch", "1.4.0", "1.4", "v1.4.0", "\u0661.\u0664.\u0660", " ", " ",
          "\n", "\r\n", "\r", "\f", "\t", "#", "//", "/*", "*/", '"""', "'", '"', "REM ", "::", "version",
          "release", "pack", "verſion", "vers\u0131on", "VERS\u0130ON", "pac\u212a", "tag", "@", "==", "|", ":",
          "=", "-local", "rc1", "-", ".", "+", "a", "**", "__", "`", "PyTorch::ExecuTorch@", "release/",
          "executorch/releases/tag/", "executorch/archive/", "pypi.org/project/executorch/", "executorch-",
          "-cp311", ".zip", "git checkout ", "-b ", "#[[", "]]", "x:", "- ", "run: |\n  "]
PATHS = ["a.py", "a.c", "CMakeLists.txt", "a.sh", "a.yml", ".github/workflows/w.yml", "a.bat", "a.md",
         "requirements.txt", "a.rst", "a.txt"]


@pytest.mark.parametrize("seed", range(4))
def test_the_mentions_are_those_of_every_form_over_every_region(seed):
    rnd = random.Random(seed)
    for _ in range(2500):
        text = "".join(rnd.choice(PIECES) for _ in range(rnd.randrange(2, 30)))
        path = rnd.choice(PATHS)
        F._find_mentions.cache_clear()
        assert F._find_mentions(path, text) == _every_form(path, text), (path, text)


def test_a_label_without_a_space_is_moved_by_the_plan(tmp_path, monkeypatch, upstream):
    tpl = copy_template(tmp_path / "t")
    (tpl / "docs").mkdir()
    (tpl / "docs" / "env.md").write_text("Set the variable:\n\n    ExecuTorch=1.4.0\n")
    with_git, walk = _both(monkeypatch, lambda: _whole(engine.plan(tpl, upstream)))
    assert isinstance(with_git, dict) and with_git == walk
    edits = [(e["path"], e["line"], e["old"], e["new"]) for e in with_git["edits"] if e["path"] == "docs/env.md"]
    assert edits == [("docs/env.md", 3, "1.4.0", "1.5.1")]
    assert readmod.GIT_QUIET_FILES is False   # _both ends with the walk
