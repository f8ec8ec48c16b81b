"""Foreign text made inert before it reaches a log, an annotation or GitHub (bot/inert.py)."""

import re

import pytest

from bot import inert


@pytest.mark.parametrize("raw", [
    "measured by @octo-placeholder (see #12)",
    "@org/team GH-7 acme/fw#3",
    "commit 0123456789abcdef0123456789abcdef01234567",
    "<!-- hidden --> **VERIFIED SAFE** ![x](http://e.invalid/a.png) [link](http://e.invalid)",
])
def test_markdown_leaves_no_mention_reference_html_or_link(raw):
    out = inert.markdown(raw).replace(inert.ZWSP, "\u200b")   # the entity itself holds '#8203'
    assert "\n" not in out
    assert not re.search(r"@[A-Za-z0-9]", out)                      # every @ is followed by the ZWSP entity
    assert not re.search(r"(?i)(#|gh-)\d", out)
    assert not re.search(r"[0-9a-fA-F]{7,}", out)
    assert "<" not in out and ">" not in out.replace("&gt;", "")
    assert "**" not in out and "](" not in out


def test_markdown_exact_forms():
    assert inert.markdown("@a #1") == "@&#8203;a \\#&#8203;1"
    assert inert.markdown("a|b") == "a\\|b"
    assert inert.markdown("x < y & z") == "x &lt; y &amp; z"
    assert inert.markdown("1.5.1") == "1\\.5\\.1"


def test_code_span_fence_grows_with_backticks_and_pads():
    assert inert.code("plain") == "`plain`"
    assert inert.code("a`b") == "``a`b``"
    assert inert.code("`x`") == "`` `x` ``"
    assert inert.code("a|b", in_table=True) == "`a\\|b`"
    assert inert.code("") == ""
    assert inert.code(None) == ""


def test_everything_is_one_line_and_capped():
    raw = "a\nb\r\nc\u2028d\x1b[31m"
    for out in (inert.code(raw), inert.markdown(raw), inert.line(raw)):
        assert "\n" not in out and "\r" not in out and "\u2028" not in out and "\x1b" not in out
    long = "x" * 70_000
    assert len(inert.code(long, cap=100)) == 100 + 1 + 2
    assert inert.markdown(long, cap=10) == "x" * 10 + "…"
    assert inert.line(long, cap=5) == "xxxxx…"


@pytest.mark.parametrize("raw", ["::error ::spoof", "  ::warning file=a::x", "x\n::error::y"])
def test_line_never_starts_a_workflow_command(raw):
    out = inert.line(raw)
    assert not out.lstrip().startswith("::")
    assert "\n" not in out


def test_line_keeps_ordinary_text():
    assert inert.line("torch==2.14.0 (torch_pin.py)") == "torch==2.14.0 (torch_pin.py)"


def test_lines_caps_count_and_each_line():
    out = inert.lines("::error::a\n" * 50, max_lines=3)
    assert len(out) == 4 and out[-1] == "… 47 more lines"
    assert all(not x.startswith("::") for x in out)
