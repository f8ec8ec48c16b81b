"""The values of :mod:`bot.model` behave as the frozen dataclasses they replace.

Each class is compared with a frozen ``@dataclass`` declaring the same fields
and defaults: construction (positional and keyword, defaults), equality
(only with a value of the same class), hashing, ``repr``, refused assignment
and deletion, and :func:`bot.model.replace`.
"""

from __future__ import annotations

import dataclasses
from typing import Optional

import pytest

from bot import model
from bot.model import Bump, CheckResult, Edit, Finding, Flag, ManagerResult, PinChange, PinSet, ResolvedPin


@dataclasses.dataclass(frozen=True)
class FlagDC:
    code: str
    message: str
    path: Optional[str] = None
    line: Optional[int] = None
    blocking: bool = True


@dataclasses.dataclass(frozen=True)
class CheckResultDC:
    name: str
    status: str
    detail: str = ""
    data: dict = dataclasses.field(default_factory=dict, compare=False, hash=False)


#: (class, positional arguments of a full value) for every value class of bot.model
FULL = [
    (Flag, ("leftover", "a.md still names 1.4.0", "a.md", 3, False)),
    (ResolvedPin, ("torch", "2.9.0", "torch_pin.py @ v1.5.1", None, "==2.9.0")),
    (PinSet, ("v1.5.1", "1.5.1", "1.5.1", (ResolvedPin("torch", "2.9.0"),), (), ">=3.10",
              (Flag("x", "y"),))),
    (PinChange, ("torch", "2.8.0", "2.9.0", "torch_pin.py")),
    (Bump, ("1.4.0", "1.5.1", "1.4.0", "1.5.1", "v1.4.0", "v1.5.1", (PinChange("torch", "2.8.0", "2.9.0", "x"),),
            (("torch", "2.8.0"),))),
    (Finding, ("a.txt", 2, "requirement", "executorch", "1.4.0", False, "executorch>=1.4.0")),
    (Edit, ("a.txt", 10, 15, "1.4.0", "1.5.1", 2, "requirement", "pin")),
    (ManagerResult, ((Edit("a", 0, 1, "1", "2", 1, "prose"),), (Flag("x", "y"),))),
    (CheckResult, ("archive", "fail", "PDSC missing", {"entries": 3})),
]


def test_flag_is_built_compared_hashed_and_shown_as_the_frozen_dataclass_is():
    for args, kwargs in [(("c", "m"), {}), (("c", "m", "p", 4, False), {}),
                         (("c",), {"message": "m", "line": 7}), ((), {"code": "c", "message": "m", "blocking": False})]:
        mine, theirs = Flag(*args, **kwargs), FlagDC(*args, **kwargs)
        assert repr(mine) == repr(theirs).replace("FlagDC(", "Flag(")
        assert [getattr(mine, f.name) for f in dataclasses.fields(FlagDC)] == list(dataclasses.astuple(theirs))
        assert hash(mine) == hash(theirs)
        assert mine == Flag(*args, **kwargs) and not mine != Flag(*args, **kwargs)
    assert Flag("c", "m") != Flag("c", "m", line=1)
    with pytest.raises(TypeError):
        Flag("c")  # message has no default, as in the dataclass
    with pytest.raises(TypeError):
        Flag("c", "m", colour="red")


@pytest.mark.parametrize("cls,args", FULL, ids=[c.__name__ for c, _ in FULL])
def test_every_value_compares_by_class_and_fields_and_refuses_assignment(cls, args):
    value = cls(*args)
    twin = cls(**dict(zip(cls.__slots__, args)))
    assert value == twin and hash(value) == hash(twin)
    assert [getattr(value, name) for name in cls.__slots__] == list(args)
    assert repr(value) == f"{cls.__name__}(" + ", ".join(f"{n}={a!r}" for n, a in zip(cls.__slots__, args)) + ")"
    assert value != args                       # never equal to the tuple of its fields
    assert {value: 1}[twin] == 1
    name = cls.__slots__[0]
    with pytest.raises(AttributeError) as exc:
        setattr(value, name, "other")
    assert isinstance(exc.value, model.FrozenInstanceError)
    with pytest.raises(AttributeError):
        delattr(value, name)
    with pytest.raises(AttributeError):
        value.not_a_field = 1                  # slots: no attribute outside the fields
    assert getattr(value, name) == args[0]


def test_values_of_two_classes_with_equal_fields_are_not_equal():
    assert PinChange("torch", "1", "2", "s") != ResolvedPin("torch", "1", "2", "s")
    assert Flag("c", "m").__eq__(FlagDC("c", "m")) is NotImplemented


def test_check_result_data_is_neither_compared_nor_hashed_and_defaults_to_a_new_dict():
    a, b = CheckResult("archive", "pass", "ok", {"n": 1}), CheckResult("archive", "pass", "ok", {"n": 2})
    assert a == b and hash(a) == hash(b)
    assert (a == b, hash(a) == hash(b)) == (CheckResultDC("archive", "pass", "ok", {"n": 1})
                                           == CheckResultDC("archive", "pass", "ok", {"n": 2}), True)
    assert a != CheckResult("archive", "fail", "ok", {"n": 1})
    first, second = CheckResult("x", "pass"), CheckResult("x", "pass")
    assert first.data == {} and first.data is not second.data
    assert repr(a) == repr(CheckResultDC("archive", "pass", "ok", {"n": 1})).replace("CheckResultDC(", "CheckResult(")


def test_replace_copies_a_value_with_the_named_fields_changed():
    bump = Bump("1.4.0", "1.5.1", "1.4.0", "1.5.1", "v1.4.0", "v1.5.1")
    moved = model.replace(bump, restated=(("torch", "2.8.0"),), new_tag="v1.5.2")
    assert moved == Bump("1.4.0", "1.5.1", "1.4.0", "1.5.1", "v1.4.0", "v1.5.2", (), (("torch", "2.8.0"),))
    assert bump.new_tag == "v1.5.1" and bump.restated == ()
    assert model.replace(bump) == bump
    with pytest.raises(TypeError):
        model.replace(bump, colour="red")


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
