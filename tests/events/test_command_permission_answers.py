"""The permission API decides who may command the bot, and an odd answer fails closed: a JSON array or string
instead of the object, or a permission word GitHub does not use, is no permission (-1, nothing run), never an
internal error; the log names it as 'none', never the foreign text."""

from __future__ import annotations

import pytest

from eventworld import World
from fakegithub import TEMPLATE, Fault
from webhook_payloads import comment_event

pytestmark = pytest.mark.needs("webhooks")

NONE = {"action": "none", "version": "", "pr": ""}


@pytest.fixture
def w(tmp_path, monkeypatch, capsys):
    world = World(tmp_path, monkeypatch, capsys)
    yield world
    world.fake.stop()


@pytest.mark.parametrize("answer", [["admin"], "admin", None,
                                    {"permission": "admin\n::error::pwned", "role_name": "Admin "},
                                    {"permission": ["admin"], "role_name": {"x": "admin"}}])
def test_an_odd_permission_answer_is_no_permission(w, answer):
    w.fake.faults.append(Fault("GET", r"/collaborators/mallory/permission$", 200, answer, times=3))
    code, out, err, outputs = w.command("issue_comment", comment_event(TEMPLATE, w.pr["number"],
                                                                       "/executorch-pack-bot recheck", login="mallory"))
    assert (code, outputs) == (0, NONE), err
    assert "internal error" not in err and "::error::pwned" not in out + err
    assert "mallory may not command the bot (none permission)" in out + err
