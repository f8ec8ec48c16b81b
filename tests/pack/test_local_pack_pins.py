"""A template on a locally built pack (``PyTorch::ExecuTorch@1.4.0-local`` with a ``path:``): the managers' side.

The pin, the ``path:`` naming the unpacked pack and the lock file move together and keep
the label (``@1.5.1-local``, ``PyTorch.ExecuTorch.1.5.1-local``).
"""

from __future__ import annotations

import pytest

from bot.model import Bump
from bot.template.cmsis import CmsisManager, path_version_span
from bot.template.lockfile import LockfileManager
from bot.textfile import TextDocument

LOCAL_BUMP = Bump(old_executorch="1.4.0", new_executorch="1.5.1", old_pack="1.4.0-local",
                  new_pack="1.5.1-local", old_tag="v1.4.0", new_tag="v1.5.1", changes=())


def _bump(manager, raw: bytes, path: str):
    doc = TextDocument.from_bytes(path, raw)
    result = manager.update(doc, LOCAL_BUMP)
    new = doc.apply(list(result.edits))
    manager.check(doc, TextDocument.from_bytes(path, new), list(result.edits))
    return result, new


def test_pin_and_path_move_keeping_the_label():
    raw = (b"solution:\n  packs:\n    - pack: ARM::CMSIS\n"
           b"    - pack: PyTorch::ExecuTorch@1.4.0-local   # built here\n"
           b"      path: ../packs/PyTorch.ExecuTorch.1.4.0-local\n")
    result, new = _bump(CmsisManager(), raw, "app.csolution.yml")
    assert new == raw.replace(b"1.4.0-local", b"1.5.1-local")
    assert result.flags == ()
    assert [(e.kind, e.old, e.new, e.line) for e in result.edits] == [
        ("pack-pin", "1.4.0-local", "1.5.1-local", 4), ("pack-path", "1.4.0-local", "1.5.1-local", 5)]


def test_quoted_path_with_a_trailing_slash_moves():
    raw = (b"project:\n  packs:\n    - pack: 'PyTorch::ExecuTorch@1.4.0-local'\n"
           b"      path: \"./PyTorch.ExecuTorch.1.4.0-local/\"\n")
    _, new = _bump(CmsisManager(), raw, "app.cproject.yml")
    assert new == raw.replace(b"1.4.0-local", b"1.5.1-local")


def test_path_not_naming_the_version_is_left_and_flagged():
    raw = b"solution:\n  packs:\n    - pack: PyTorch::ExecuTorch@1.4.0-local\n      path: ./packs/executorch\n"
    result, new = _bump(CmsisManager(), raw, "app.csolution.yml")
    assert new == raw.replace(b"@1.4.0-local", b"@1.5.1-local")
    [flag] = result.flags
    assert (flag.code, flag.line, flag.blocking) == ("pack-path", 3, False)


def test_lock_file_moves_keeping_the_label():
    raw = (b"cbuild-pack:\n  resolved-packs:\n    - resolved-pack: PyTorch::ExecuTorch@1.4.0-local\n"
           b"      selected-by-pack:\n        - PyTorch::ExecuTorch@1.4.0-local\n")
    result, new = _bump(LockfileManager(), raw, "app.cbuild-pack.yml")
    assert new == raw.replace(b"1.4.0-local", b"1.5.1-local")
    assert result.flags == ()


@pytest.mark.parametrize("text, version, span", [
    ("../packs/PyTorch.ExecuTorch.1.4.0-local", "1.4.0-local", (28, 39)),
    ("PyTorch.ExecuTorch.1.4.0-local/", "1.4.0-local", (19, 30)),
    ("out/PyTorch.ExecuTorch.1.4.0.pack", "1.4.0", (23, 28)),
    ("../packs/PyTorch.ExecuTorch.1.4.0-local.2", "1.4.0-local", None),
    ("../packs/MyPyTorch.ExecuTorch.1.4.0-local", "1.4.0-local", None),
    ("./packs/executorch", "1.4.0-local", None),
])
def test_path_version_span(text, version, span):
    assert path_version_span(text, version) == span
