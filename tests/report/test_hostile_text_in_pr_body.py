"""Hostile upstream and pack text renders inert in the pull-request body the publishing job builds.

Built here: an upstream ``torch_pin.py`` whose pin is a multi-line
expression carrying a mention, bold "VERIFIED SAFE", an image and ``<!--``;
a pack whose operator component names (``Csub``) carry the same, padded.
The body, read as GitHub renders it, must hold none of them live outside a
code span, and the reviewer items and the fingerprint must still be there.
"""

from __future__ import annotations

import re

from bot.report import parse_fingerprint
from helpers import run_cli
from packgen import PackSpec, make_pack

HOSTILE = '@octocat **VERIFIED SAFE** ![x](http://e.invalid/x.png) [ok](http://e.invalid) <!-- hidden'


def _outside_code_spans(md: str) -> str:
    return re.sub(r"(`+)(?:(?!\1).)+?\1", " ", md)


def _body(out: str) -> str:
    return re.split(r"\nBump ExecuTorch to 1\.5\.1(?: \(blocked: [^()]*\))?\n\n", out, maxsplit=1)[1]


def test_hostile_pin_and_csub_render_inert(tags, template, tmp_path, capsys):
    pin = tags / "v1.5.1" / "torch_pin.py"
    pin.write_text(f'TORCH_VERSION = ("2.14.0" if X else """\n{HOSTILE}\n""")\n')
    plan = tmp_path / "plan.json"
    rc, _, err = run_cli(capsys, "update", "--repo", template, "--upstream", tags, "--version", "1.5.1",
                         "--plan-file", plan)
    assert rc == 0, err
    # the generator writes names into the PDSC as they are (no XML escaping): the Csub keeps all but '<!--'
    ops = (("Portable", "add"), ("Portable", "mul " + HOSTILE.split(" <!--")[0] + " x" * 2000))
    pack = make_pack(tmp_path / "pack", PackSpec(operators=ops, unregistered=(ops[1][1],)))
    rc, out, err = run_cli(capsys, "publish", "--repo", template, "--plan-file", plan, "--pack", pack, "--dry-run")
    assert rc == 0, err
    body = _body(out)
    assert "octocat" in body.split("source-unusable", 1)[1]   # the pin text is shown (inert) ...
    assert "Portable mul" in body                            # ... and so is the hostile Csub
    live = _outside_code_spans(body)
    assert "@octocat" not in live and "<!--" not in live.replace("<!-- executorch-pack-bot", "")
    assert "**VERIFIED SAFE**" not in live and "![x](" not in live and "[ok](" not in live
    assert "source-unusable" in body               # the flag with the hostile pin text is listed ...
    assert parse_fingerprint(body) is not None     # ... and nothing after it was hidden
    assert not any(ln.lstrip().startswith("::") for ln in out.splitlines())
