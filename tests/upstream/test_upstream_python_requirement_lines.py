"""Requirement strings in upstream Python (install_requirements.py) read whole: an operator with no
version is an unresolved line with its problem, a ``name @ URL`` string is a URL pin, each with its
line and, for an f-string, the module constant it used (bot/upstream/pinfiles.py parse_python)."""

from __future__ import annotations

from bot.upstream.pinfiles import ReqLine, parse_python

URL = "git+https://example.com/tosa.git@v1"


def test_empty_operators_and_url_requirements_are_read_with_their_line_and_constant():
    src = (f'V = ""\nURL = "{URL}"\nREQS = [f"ethos-u-vela==={{V}}", "ethos-u-vela ===",\n'
           f'  "tosa-tools @ {URL}", f"tosa-tools @ {{URL}}"]\n')
    facts = parse_python(src.encode(), "install_requirements.py", "v1.5.1")
    assert facts.requirements == [
        ReqLine("ethos-u-vela", None, "===", line=3, via="V",
                problem="the operator === has no version ('ethos-u-vela===')"),
        ReqLine("ethos-u-vela", None, "===", line=3, problem="the operator === has no version ('ethos-u-vela ===')"),
        ReqLine("tosa-tools", None, f"@ {URL}", url=URL, line=4),
        ReqLine("tosa-tools", None, f"@ {URL}", url=URL, line=4, via="URL"),
    ]
