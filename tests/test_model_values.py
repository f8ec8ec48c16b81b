"""The shared values of :mod:`bot.model` (records of :mod:`bot.record`): what the code relies on.

Every record class is also compared field by field with a real dataclass in
tests/test_record_classes.py; this file checks the model's own rules.
"""

from __future__ import annotations

import pytest

from bot.model import Bump, CheckResult, Flag, PinChange, PinSet, ResolvedPin
from bot.record import FrozenInstanceError, replace


def test_flag_defaults_equality_hash_and_repr():
    flag = Flag("leftover", "a.md still names 1.4.0")
    assert (flag.path, flag.line, flag.blocking) == (None, None, True)
    assert flag == Flag(code="leftover", message="a.md still names 1.4.0", blocking=True)
    assert flag != Flag("leftover", "a.md still names 1.4.0", blocking=False)
    assert len({flag, Flag("leftover", "a.md still names 1.4.0")}) == 1
    assert repr(flag) == "Flag(code='leftover', message='a.md still names 1.4.0', path=None, line=None, blocking=True)"
    with pytest.raises(FrozenInstanceError):
        flag.blocking = False
    with pytest.raises(TypeError):
        Flag("leftover")


def test_values_of_two_classes_with_equal_fields_are_not_equal():
    assert PinChange("torch", "1", "2", "s") != ResolvedPin("torch", "1", "2", "s")
    assert PinChange("torch", "1", "2", "s") != ("torch", "1", "2", "s")


def test_check_result_data_is_neither_compared_nor_hashed_and_defaults_to_a_new_dict():
    a, b = CheckResult("archive", "pass", "ok", {"n": 1}), CheckResult("archive", "pass", "ok", {"n": 2})
    assert a == b and hash(a) == hash(b)
    assert a != CheckResult("archive", "fail", "ok", {"n": 1})
    first, second = CheckResult("x", "pass"), CheckResult("x", "pass")
    assert first.data == {} and first.data is not second.data


def test_replace_moves_a_bump_to_another_value():
    bump = Bump("1.4.0", "1.5.1", "1.4.0", "1.5.1", "v1.4.0", "v1.5.1")
    moved = replace(bump, restated=(("torch", "2.8.0"),), new_tag="v1.5.2")
    assert moved == Bump("1.4.0", "1.5.1", "1.4.0", "1.5.1", "v1.4.0", "v1.5.2", (), (("torch", "2.8.0"),))
    assert (bump.new_tag, bump.restated) == ("v1.5.1", ())


def test_values_keep_their_methods():
    ps = PinSet("v1.5.1", "1.5.1", "1.5.1", pins=(ResolvedPin("torch", "2.9.0"),),
                tosa=(ResolvedPin("tosa-tools", None, reason="range"),))
    assert ps.get("Torch") == ResolvedPin("torch", "2.9.0") and ps.get("TOSA_tools").resolved is False
    assert ps.get("torchao") is None
    bump = Bump("1.4.0", "1.5.1", "1.4.0", "1.5.1", "v1.4.0", "v1.5.1", (PinChange("ethos-u-vela", "4.0", "4.1", "s"),))
    assert bump.change_for("Ethos_U.Vela").new == "4.1" and bump.major_minor_changed is True
    assert Flag("c", "m", "p", 2, False).to_json() == {"code": "c", "message": "m", "path": "p", "line": 2,
                                                       "blocking": False}
    assert CheckResult("a", "pass").to_json() == {"name": "a", "status": "pass", "detail": ""}
