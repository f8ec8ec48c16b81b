"""No URL that is not the bot's own becomes a link: foreign text through bot/inert.py carries no autolink start.

GitHub's autolinker (GFM spec, "Autolinks (extension)") starts a link at
``www.``, ``http://``, ``https://``, ``mailto:`` or ``xmpp:``, and works on
the text after entities and backslash escapes are decoded: escaping the
dots is not enough (``https://evil%2Eexample/`` has none; ``https://evil。example/``
uses an ideographic full stop).  :func:`autolinks` decodes like GitHub and
looks for those starts; each case goes through the PDSC ``<url>`` check's
detail as the PR body shows it, and through a compile result's last line.
"""

from __future__ import annotations

import html
import re

import pytest

from bot import inert
from bot.pack.checks import CheckResult
from bot.report.pack import pack_section

AUTOLINK = re.compile(r"(?i)(?:^|(?<=[\s*_~(]))(?:https?://|www\.|mailto:|xmpp:)[^\s<]")

FOREIGN = [
    "https://evil%2Eexample/", "https://evil\u3002example/x", "HTTPS://EVIL.example/a?b=c",
    "http://127.0.0.1:8080/", "www.evil.example", "WWW\u3002evil\u3002example", "mailto:a@evil.example",
    "xmpp:a@evil.example", "(https://evil.example)", "*https://evil.example*", "_www.evil.example_",
]


def autolinks(markdown: str) -> list[str]:
    """The autolink starts GitHub would find in ``markdown`` (backslash escapes and entities decoded first)."""
    text = html.unescape(re.sub(r"\\(.)", r"\1", markdown))
    return AUTOLINK.findall(text)


def test_the_detector_finds_each_form_before_the_neutraliser():
    assert [u for u in FOREIGN if not autolinks(f"see {u}")] == ["WWW\u3002evil\u3002example"]


@pytest.mark.parametrize("url", FOREIGN)
def test_a_foreign_url_is_no_link_in_a_sentence(url):
    assert autolinks(inert.markdown(f"the pack says {url} and more")) == []


@pytest.mark.parametrize("url", FOREIGN)
def test_a_pdsc_url_is_no_link_in_the_pr_body(url):
    class Report:
        pack, version = "PyTorch.ExecuTorch.1.5.1.pack", "1.5.1"
        checks = [CheckResult("url", "fail", f"P.pdsc:3: <url> is {url}, expected "
                                             "https://github.com/pytorch/executorch/releases/download/v1.5.1/")]
    body = pack_section(Report())
    assert autolinks(body) == []
    assert "P\\.pdsc:3: &lt;url&gt; is " in body


@pytest.mark.parametrize("url", FOREIGN)
def test_a_compile_result_line_is_no_link(url):
    assert autolinks(inert.markdown(f"error: see {url} for details", cap=300)) == []


def test_the_text_still_reads_the_same_once_rendered():
    """Only invisible zero-width spaces are added: a reader sees the URL as written."""
    shown = html.unescape(re.sub(r"\\(.)", r"\1", inert.markdown("https://evil%2Eexample/ www.x.example")))
    assert shown.replace("\u200b", "") == "https://evil%2Eexample/ www.x.example"
