"""The Python pins a bump writes and the flags it raises (``plan_changes``), asserted whole:
every change's name, old, new and source, every flag's code, message, path, line and blocking,
and the whole usage error of a bad ``--set``."""

from __future__ import annotations

import pytest

from bot.errors import UsageError
from bot.model import Flag, PinChange, PinSet, ResolvedPin
from bot.upstream.pins import plan_changes
from helpers import assert_flags

TOSA = "backends/arm/requirements-arm-tosa.txt"


def pinset(tag: str, torch="2.13.0", torchao="0.18.0", vela="5.1.0", tosa=()) -> PinSet:
    def main(name, version):
        if version is None:
            return ResolvedPin(name, None, None, reason=f"no exact pin at {tag}: only a range ({name}>=1)",
                               spec=">=1")
        return ResolvedPin(name, version, f"{name} source @ {tag}", spec=f"=={version}")
    return PinSet(tag=tag, executorch=tag[1:], pack=tag[1:],
                  pins=(main("torch", torch), main("torchao", torchao), main("ethos-u-vela", vela)),
                  tosa=tuple(tosa))


def tosa_pin(tag: str, name: str, version, spec=None) -> ResolvedPin:
    if version is None:
        return ResolvedPin(name, None, f"{TOSA} @ {tag}", reason=f"{TOSA} @ {tag}: pinned by a URL", spec=spec)
    return ResolvedPin(name, version, f"{TOSA} @ {tag}", spec=spec or f"=={version}")


OLD = pinset("v1.4.0", tosa=[tosa_pin("v1.4.0", "tosa-tools", "2026.5.0"), tosa_pin("v1.4.0", "ml-dtypes", "0.5.1"),
                             tosa_pin("v1.4.0", "flatbuffers", None, spec="git+https://x/flatbuffers")])


def test_a_bump_lists_every_main_pin_then_only_changed_tosa_pins():
    new = pinset("v1.5.1", torch="2.14.0", torchao="0.19.0", vela="5.1.0",
                 tosa=[tosa_pin("v1.5.1", "tosa-tools", "2026.8.0"), tosa_pin("v1.5.1", "ml-dtypes", "0.5.1.0"),
                       tosa_pin("v1.5.1", "flatbuffers", None, spec="git+https://x/flatbuffers"),
                       tosa_pin("v1.5.1", "pybind11", "2.13.0")])
    changes, flags = plan_changes(OLD, new)
    assert changes == (
        PinChange("executorch", "1.4.0", "1.5.1", "release tag v1.5.1"),
        PinChange("torch", "2.13.0", "2.14.0", "torch source @ v1.5.1"),
        PinChange("torchao", "0.18.0", "0.19.0", "torchao source @ v1.5.1"),
        PinChange("ethos-u-vela", "5.1.0", "5.1.0", "ethos-u-vela source @ v1.5.1"),
        PinChange("tosa-tools", "2026.5.0", "2026.8.0", f"{TOSA} @ v1.5.1"),
        PinChange("pybind11", None, "2.13.0", f"{TOSA} @ v1.5.1"),
    )
    assert flags == ()


def test_a_tosa_pin_upstream_dropped_is_a_whole_non_blocking_flag():
    new = pinset("v1.5.1", tosa=[tosa_pin("v1.5.1", "tosa-tools", "2026.5.0")])
    changes, flags = plan_changes(OLD, new)
    assert [c.name for c in changes] == ["executorch", "torch", "torchao", "ethos-u-vela"]
    assert_flags(flags,
                 Flag("removed-pin", f"ml-dtypes: {TOSA} no longer names it at v1.5.1 (it was 0.5.1 at v1.4.0); "
                      "left alone", path=TOSA, line=None, blocking=False),
                 Flag("removed-pin", f"flatbuffers: {TOSA} no longer names it at v1.5.1 (it was "
                      "git+https://x/flatbuffers at v1.4.0); left alone", path=TOSA, line=None, blocking=False))


def test_an_unresolved_main_pin_is_a_whole_blocking_flag_and_no_change():
    changes, flags = plan_changes(pinset("v1.4.0"), pinset("v1.5.1", torchao=None))
    assert [c.name for c in changes] == ["executorch", "torch", "ethos-u-vela"]
    assert_flags(flags,
                 Flag("unresolved-pin", "torchao: cannot resolve the pin at v1.5.1: no exact pin at v1.5.1: only a "
                      "range (torchao>=1); pass --set torchao=VERSION", path=None, line=None, blocking=True))


def test_a_tosa_pin_that_became_unresolved_is_a_blocking_flag():
    old = pinset("v1.4.0", tosa=[tosa_pin("v1.4.0", "tosa-tools", "2026.5.0")])
    new = pinset("v1.5.1", tosa=[tosa_pin("v1.5.1", "tosa-tools", None, spec="git+https://x/tosa")])
    changes, flags = plan_changes(old, new)
    assert [c.name for c in changes] == ["executorch", "torch", "torchao", "ethos-u-vela"]
    assert_flags(flags, Flag("unresolved-pin", f"tosa-tools: cannot resolve the pin at v1.5.1: {TOSA} @ v1.5.1: "
                             "pinned by a URL; pass --set tosa-tools=VERSION", blocking=True))


def test_a_tosa_pin_unresolved_differently_on_both_tags_is_flagged():
    old = pinset("v1.4.0", tosa=[tosa_pin("v1.4.0", "tosa-tools", None, spec="git+https://x/tosa@a")])
    new = pinset("v1.5.1", tosa=[tosa_pin("v1.5.1", "tosa-tools", None, spec="git+https://x/tosa@b")])
    _, flags = plan_changes(old, new)
    assert [(f.code, f.blocking) for f in flags] == [("unresolved-pin", True)]


def test_a_new_unresolved_tosa_pin_is_flagged():
    new = pinset("v1.5.1", tosa=[tosa_pin("v1.5.1", "tosa-tools", None, spec="git+https://x/tosa")])
    _, flags = plan_changes(pinset("v1.4.0"), new)
    assert [(f.code, f.blocking) for f in flags] == [("unresolved-pin", True)]


def test_a_set_value_replacing_a_resolved_one_is_a_whole_non_blocking_flag():
    changes, flags = plan_changes(pinset("v1.4.0"), pinset("v1.5.1", torch="2.14.0"), {"Torch": " 2.14.1 "})
    assert changes[1] == PinChange("torch", "2.13.0", "2.14.1", "--set")
    assert_flags(flags, Flag("set-override", "torch: --set 2.14.1 replaces 2.14.0 from torch source @ v1.5.1",
                             path=None, line=None, blocking=False))


def test_a_set_value_equal_to_the_resolved_one_is_not_flagged():
    changes, flags = plan_changes(pinset("v1.4.0"), pinset("v1.5.1", torch="2.14.0"), {"torch": "2.14"})
    assert changes[1] == PinChange("torch", "2.13.0", "2.14", "--set")
    assert flags == ()


def test_without_a_current_tag_tosa_is_a_whole_blocking_flag_and_set_still_applies():
    new = pinset("v1.5.1", tosa=[tosa_pin("v1.5.1", "tosa-tools", "2026.8.0")])
    changes, flags = plan_changes(None, new, {"tosa_tools": "2026.9.0"})
    assert changes[-1] == PinChange("tosa-tools", None, "2026.9.0", "--set")
    assert_flags(flags,
                 Flag("set-override", f"tosa-tools: --set 2026.9.0 replaces 2026.8.0 from {TOSA} @ v1.5.1",
                      blocking=False),
                 Flag("tosa-unknown", "the template's ExecuTorch version has no tag upstream, so the TOSA pins that "
                      f"changed up to v1.5.1 cannot be computed ({TOSA}); check them or pass --set NAME=VERSION",
                      path=TOSA, line=None, blocking=True))


def test_without_a_current_tag_and_no_tosa_upstream_nothing_is_flagged():
    changes, flags = plan_changes(None, pinset("v1.5.1"))
    assert changes[0] == PinChange("executorch", None, "1.5.1", "release tag v1.5.1")
    assert flags == ()


@pytest.mark.parametrize("sets, message", [
    ({"ExecuTorch": "1.5.1"}, "--set executorch=...: choose the ExecuTorch version with --version"),
    ({"numpy": "2.0.0"}, "--set numpy=2.0.0: numpy is not a pin the bump writes (known: ethos-u-vela, flatbuffers, "
                         "ml-dtypes, torch, torchao, tosa-tools)"),
    ({"torch": "latest"}, "--set torch=latest: 'latest' is not a version"),
])
def test_a_bad_set_is_a_whole_usage_error(sets, message):
    with pytest.raises(UsageError) as info:
        plan_changes(OLD, pinset("v1.5.1", tosa=OLD.tosa), sets)
    assert (info.value.message, info.value.path, info.value.line, info.value.exit_code) == (message, None, None, 2)


def test_a_main_pin_the_target_does_not_list_is_unresolved_with_a_reason():
    target = PinSet(tag="v1.5.1", executorch="1.5.1", pack="1.5.1",
                    pins=(ResolvedPin("torchao", "0.19.0", "s"), ResolvedPin("ethos-u-vela", None, None)))
    changes, flags = plan_changes(pinset("v1.4.0"), target)
    assert [c.name for c in changes] == ["executorch", "torchao"]
    assert_flags(flags,
                 Flag("unresolved-pin", "torch: cannot resolve the pin at v1.5.1: no source names it; "
                      "pass --set torch=VERSION", blocking=True),
                 Flag("unresolved-pin", "ethos-u-vela: cannot resolve the pin at v1.5.1: no source names it; "
                      "pass --set ethos-u-vela=VERSION", blocking=True))


def test_a_tosa_pin_resolved_before_and_unresolved_now_with_the_same_spec_is_flagged():
    old = pinset("v1.4.0", tosa=[tosa_pin("v1.4.0", "tosa-tools", "2026.5.0")])
    new = pinset("v1.5.1", tosa=[ResolvedPin("tosa-tools", None, f"{TOSA} @ v1.5.1", spec="==2026.5.0",
                                             reason="pinned differently on several lines")])
    _, flags = plan_changes(old, new)
    assert_flags(flags, Flag("unresolved-pin", "tosa-tools: cannot resolve the pin at v1.5.1: pinned differently "
                             "on several lines; pass --set tosa-tools=VERSION", blocking=True))
