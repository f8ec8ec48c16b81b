"""The byte-level filter of the scan changes no result: the plan and the audit with it equal those without it.

The filter (bot.engine.read.BYTE_FILTER) leaves out, before any decode or
pattern, prose-only files that are ASCII text without a digit, dot, digit
sequence: every version form holds one.  Compared whole: the plan's JSON
(pins, edits, flags, files), its findings and new contents, the mentions
accounting when the plan has one, and the audit; on the shipped sample and
on generated trees holding the shapes a filter could get wrong.
"""

from __future__ import annotations

import random

import pytest

from bot import engine
from bot.commands.demo import copy_template
from bot.engine import read as readmod
from bot.errors import BotError
from bot.sample import build_upstream_repo
from bot.template import scan as scanmod
from bot.upstream.git import GitSource


@pytest.fixture(scope="module")
def upstream(tmp_path_factory):
    return GitSource(build_upstream_repo(tmp_path_factory.mktemp("up") / "executorch.git"))


def _whole(plan) -> dict:
    out = plan.to_json()
    out["findings"] = sorted(repr(f) for f in plan.findings)
    out["contents"] = {k: v.decode("utf-8", "replace") for k, v in sorted(plan.contents.items())}
    mentions = getattr(plan, "mentions", None)
    if mentions is not None:
        out["mentions"] = mentions.to_json() if hasattr(mentions, "to_json") else repr(mentions)
    return out


def _both(monkeypatch, fn):
    """``fn()`` with the filter, then without it: (result, result) or (error text, error text)."""
    out = []
    for on in (True, False):
        monkeypatch.setattr(readmod, "BYTE_FILTER", on)
        try:
            out.append(fn())
        except BotError as exc:
            out.append(f"{type(exc).__name__}: {exc}")
    return out


def _audit_json(repo):
    a = engine.audit(repo)
    return a.to_json()


#: Files a filter could get wrong: each must give the same result with and without it.
TRICKY = {
    # names ExecuTorch, no version at all: the filter leaves it out, nothing is lost
    "docs/no_version.md": "The firmware runs the ExecuTorch runtime on the NPU.\n",
    # floats and a version with a suffix the guard rejects
    "docs/floats.md": "ExecuTorch scales by 0.5f and 1.0e-6 here; see ExecuTorch 1.4.0rc1x.\n",
    # every moved form, one a line
    "docs/forms.md": ("Use ExecuTorch 1.4.0, v1.4.0, 1.4.0-local and ExecuTorch 1.4 with torch==2.13.0 "
                      "for ExecuTorch.\n\nExecuTorch\n1.4.0\n"),
    # a version only in a non-ASCII line (the filter must not skip non-ASCII text)
    "docs/unicode.md": "ExecuTorch \u0661.\u0664.\u0660 \u2014 built with ExecuTorch 1.4.0 \u00e9t\u00e9.\n",
    # Unicode digits only: a \\d pattern matches them, the byte filter must not skip the file
    "docs/arabic_digits.md": "ExecuTorch \u0661.\u0664.\u0660\n",
    # C header with includes only (most vendored headers), and one with a define
    "include/executorch/runtime/part.h": "#pragma once\n#include <executorch/runtime/core/error.h>\n",
    "include/executorch/version.h": '#pragma once\n#define ET_VERSION_STRING "1.4.0"\n',
    "include/other/version.h": '#define MY_EXECUTORCH_PACK_VERSION "1.4.0"\n',
    # history file naming an old release and a Python version
    "CHANGELOG.md": "# Changes\n\n## 2025-01-01\n\n- moved to ExecuTorch 1.3.0 (Python 3.10)\n",
    # a digit.digit that is not a version near the word
    "docs/table.md": "| ExecuTorch | yes |\n| speed | 3.5 fps |\n",
    # text without the word: never loaded, with or without the filter
    "docs/plain.txt": "nothing to see 1.4.0\n",
}


def _tricky_tree(dest, extra: dict[str, str | bytes] | None = None):
    tpl = copy_template(dest)
    for rel, text in {**TRICKY, **(extra or {})}.items():
        p = tpl / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            p.write_bytes(text)
        else:
            p.write_text(text, encoding="utf-8")
    return tpl


def _generated_tree(dest, seed: int, files: int = 150):
    """The sample plus ``files`` random prose-like files mixing the word, versions, floats and plain text."""
    rnd = random.Random(seed)
    tpl = copy_template(dest)
    words = ["ExecuTorch", "executorch", "EXECUTORCH", "the", "runtime", "pack", "torch", "torchao",
             "ethos-u-vela", "tosa-tools", "Python", "version", "release", "v", "==", "@", "PyTorch::ExecuTorch@",
             "release/", "-local", "tag", "#", "//", "/*", "*/", "\n", "\n\n", "`", "|"]
    values = ["1.4.0", "1.4", "1.5.1", "1.3.0", "2.13.0", "0.14.0", "4.4.0", "0.5f", "1.0e-6", "3.10", "42",
              "1.4.0-local", "1.4.0rc1", "v1.4.0", "2025.07.0", "1.2.3.4"]
    for i in range(files):
        suffix = rnd.choice([".md", ".txt", ".h", ".c", ".cpp", ".py", ".rst", ".cmake"])
        toks = []
        for _ in range(rnd.randrange(5, 60)):
            r = rnd.random()
            toks.append(rnd.choice(values) if r < 0.25 else rnd.choice(words))
        if rnd.random() < 0.4:  # a third of the files: no digit at all
            toks = [t for t in toks if not any(c.isdigit() for c in t)]
        p = tpl / "gen" / f"d{i % 7}" / f"f{i}{suffix}"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(" ".join(toks) + "\n", encoding="utf-8")
    return tpl


def test_filter_leaves_out_versionless_ascii_only():
    assert scanmod.may_name_version(b"ExecuTorch runtime, no version") is False
    assert scanmod.may_name_version(b"#include <executorch/x.h>\nint a = 5;\n") is False
    assert scanmod.may_name_version(b"ExecuTorch 1.4") is True
    assert scanmod.may_name_version(b"x = 0.5f;") is True  # conservative: a float keeps the file
    assert scanmod.may_name_version("ExecuTorch \u0661.\u0664".encode()) is True  # not ASCII: kept
    assert scanmod.may_name_version(b"v1.") is False


def test_plan_of_the_sample_is_the_same_with_and_without_the_filter(tmp_path, monkeypatch, upstream):
    tpl = copy_template(tmp_path / "t")
    with_filter, without = _both(monkeypatch, lambda: _whole(engine.plan(tpl, upstream)))
    assert with_filter == without
    assert with_filter["edits"]  # the comparison is of a real bump


def test_plan_and_audit_of_tricky_files_are_the_same_with_and_without_the_filter(tmp_path, monkeypatch, upstream):
    tpl = _tricky_tree(tmp_path / "t")
    with_filter, without = _both(monkeypatch, lambda: _whole(engine.plan(tpl, upstream)))
    assert with_filter == without
    assert isinstance(with_filter, dict)
    paths = {e["path"] for e in with_filter["edits"]}
    assert "docs/forms.md" in paths  # the moved forms were read and moved
    a, b = _both(monkeypatch, lambda: _audit_json(tpl))
    assert a == b


def test_a_refused_file_is_refused_with_and_without_the_filter(tmp_path, monkeypatch, upstream):
    # NUL bytes in a file naming ExecuTorch: refused (exit 2) either way, even without a version
    tpl = _tricky_tree(tmp_path / "t", {"docs/nul.md": b"ExecuTorch runtime\0 notes\n"})
    with_filter, without = _both(monkeypatch, lambda: _whole(engine.plan(tpl, upstream)))
    assert with_filter == without
    assert isinstance(with_filter, str) and with_filter.startswith("TemplateError")
    # not UTF-8 and naming ExecuTorch, without a version: refused either way
    tpl2 = _tricky_tree(tmp_path / "t2", {"docs/latin1.md": "ExecuTorch d\u00e9j\u00e0 vu\n".encode("latin-1")})
    a, b = _both(monkeypatch, lambda: _whole(engine.plan(tpl2, upstream)))
    assert a == b and isinstance(a, str)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_plan_of_generated_trees_is_the_same_with_and_without_the_filter(tmp_path, monkeypatch, upstream, seed):
    tpl = _generated_tree(tmp_path / "t", seed)
    with_filter, without = _both(monkeypatch, lambda: _whole(engine.plan(tpl, upstream)))
    assert with_filter == without
    assert isinstance(with_filter, dict) and with_filter["edits"]
    monkeypatch.setattr(readmod, "BYTE_FILTER", True)
    left_out = len(engine.read_template(tpl).files)
    monkeypatch.setattr(readmod, "BYTE_FILTER", False)
    assert len(engine.read_template(tpl).files) > left_out  # the filter was put to work


def test_the_filter_does_leave_files_out(tmp_path, monkeypatch):
    tpl = _tricky_tree(tmp_path / "t")
    monkeypatch.setattr(readmod, "BYTE_FILTER", True)
    on = {f.doc.path for f in engine.read_template(tpl).files}
    monkeypatch.setattr(readmod, "BYTE_FILTER", False)
    off = {f.doc.path for f in engine.read_template(tpl).files}
    assert off - on == {"docs/no_version.md", "include/executorch/runtime/part.h"}
