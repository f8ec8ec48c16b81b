"""A bump to a release candidate writes each spelling where it belongs: upstream's version
(``1.5.0rc1``) after "ExecuTorch", the pack's SemVer (``1.5.0-rc1``) in a pack reference
(rules: bot/template/prose/__init__.py; Bump.new_executorch and Bump.new_pack)."""

from __future__ import annotations

from bot.model import Bump, Edit, PinChange
from bot.template.prose.manager import ProseManager
from bot.textfile import TextDocument

TO_RC = Bump("1.4.0", "1.5.0rc1", "1.4.0", "1.5.0-rc1", "v1.4.0", "v1.5.0-rc1",
             (PinChange("executorch", "1.4.0", "1.5.0rc1", "release tag v1.5.0-rc1"),))


def test_the_pack_reference_gets_the_pack_version_and_the_text_the_upstream_one():
    result = ProseManager().update(TextDocument.from_bytes(
        "README.md", b"# A\n\nInstall ExecuTorch 1.4.0 and PyTorch::ExecuTorch@1.4.0.\n"), TO_RC)
    assert result.edits == (
        Edit("README.md", 24, 29, "1.4.0", "1.5.0rc1", 3, "prose",
             'prose: "ExecuTorch X" in text names the current ExecuTorch 1.4.0'),
        Edit("README.md", 54, 59, "1.4.0", "1.5.0-rc1", 3, "prose",
             "prose: pack reference PyTorch::ExecuTorch@X names the current ExecuTorch 1.4.0"),
    )
    assert result.flags == ()
