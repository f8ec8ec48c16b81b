"""torchvision/torchaudio pins are tied to a torch release upstream does not pin: they are flagged
when torch moves, never changed.
"""

from __future__ import annotations

import json

from helpers import update as _update


def test_torchvision_and_torchaudio_pins_are_flagged_not_changed(template, upstream_repo, capsys):
    req = template / "requirements.txt"
    req.write_text(req.read_text() + "torchaudio==2.13.0\n")
    rc, out, err = _update(capsys, template, upstream_repo, "--json")
    assert rc == 0, err
    comp = [f for f in json.loads(out)["flags"] if f["code"] == "companion-pin"]
    assert [(f["path"], f["line"], f["blocking"]) for f in comp] == [
        ("requirements.txt", 7, False), ("requirements.txt", 12, False)]
    assert "torchvision==0.28.0" in comp[0]["message"] and "torch 2.14.0" in comp[0]["message"]
    text = req.read_text()
    assert "torchvision==0.28.0\n" in text and "torchaudio==2.13.0\n" in text
