"""Which versions the accounting searches for (docs/mentions.md, "What is tracked"), in their fixed order and
under the first subject that names each: ExecuTorch's old version and forms, the template's own values of the
derived pins that move, every conda-level spec, and the full ExecuTorch versions the prose names."""

from __future__ import annotations

from bot.engine.mentions import tracked_versions
from bot.model import Bump, Finding, PinChange
from helpers import minor_bump, patch_bump
from mentionkit import template


def req(name, version, exact=True, kind="requirement"):
    return Finding("requirements.txt", 1, kind, name, version, exact=exact)


def prose(name, version, exact=True):
    return Finding("README.md", 1, "prose", name, version, exact=exact)


def test_a_minor_bump_tracks_the_old_version_its_major_minor_and_the_old_values_of_the_moving_pins():
    assert tracked_versions(template(), minor_bump()) == [
        ("ExecuTorch", "1.4.0"), ("ExecuTorch", "1.4"), ("torch", "2.13.0"), ("torchao", "0.18.0"),
        ("flatbuffers", "24.3.25")]


def test_a_patch_bump_does_not_track_major_minor_and_the_pack_form_is_tracked_when_it_differs():
    assert tracked_versions(template(), patch_bump()) == [("ExecuTorch", "1.5.0")]
    bump = Bump("1.0.0rc1", "1.0.0", "1.0.0-rc1", "1.0.0", "v1.0.0-rc1", "v1.0.0")
    assert tracked_versions(template(), bump) == [("ExecuTorch", "1.0.0rc1"), ("ExecuTorch", "1.0.0-rc1")]


def test_a_pack_only_change_still_moves():
    bump = Bump("1.4.0", "1.4.0", "1.4.0", "1.4.1", "v1.4.0", "v1.4.0")
    assert tracked_versions(template(), bump) == [("ExecuTorch", "1.4.0")]


def test_a_bump_that_keeps_executorch_tracks_the_moving_pins_and_the_prose_history_but_not_its_version():
    bump = Bump("1.4.0", "1.4.0", "1.4.0", "1.4.0", "v1.4.0", "v1.4.0",
                (PinChange("torch", "2.13.0", "2.14.0", "x"),))
    tpl = template(findings=[prose("ExecuTorch", "1.3.0"), prose("ExecuTorch", "1.4.0")])
    assert tracked_versions(tpl, bump) == [("torch", "2.13.0"), ("ExecuTorch", "1.3.0")]


def test_the_templates_own_pin_values_replace_the_changes_old_value():
    tpl = template(findings=[req("Torch", "2.12.0"), req("torch", "2.12.0"), req("torch", "2.11.0"),
                             req("torch", "2.10.0", exact=False), req("torch", None),
                             req("torchao", "0.17.0", kind="unmanaged-requirement"),
                             req("flatbuffers", "25.1.0")])  # already at its new value: nothing to find
    assert tracked_versions(tpl, minor_bump()) == [
        ("ExecuTorch", "1.4.0"), ("ExecuTorch", "1.4"), ("torch", "2.12.0"), ("torch", "2.11.0"),
        ("torchao", "0.17.0")]


def test_a_change_without_an_old_value_or_of_executorch_adds_nothing():
    bump = Bump("1.4.0", "1.5.1", "1.4.0", "1.5.1", "v1.4.0", "v1.5.1",
                (PinChange("executorch", "1.3.0", "1.5.1", "x"), PinChange("Ethos_U.Vela", None, "5.2.0", "x"),
                 PinChange("Ethos_U.Vela", "5.1.0", "5.2.0", "x"), PinChange("torch", "2.14.0", "2.14.0", "x")))
    assert tracked_versions(template(findings=[req("executorch", "1.3.0")]), bump) == [
        ("ExecuTorch", "1.4.0"), ("ExecuTorch", "1.4"), ("ethos-u-vela", "5.1.0")]


def test_conda_level_specs_are_tracked_when_they_name_a_version():
    tpl = template(findings=[Finding("environment.yml", 3, "conda-pin", "pytorch", "2.13.0"),
                             Finding("environment.yml", 4, "conda-pin", "numpy", ">=1.26"),
                             Finding("environment.yml", 5, "conda-pin", "executorch", None),
                             Finding("environment.yml", 6, "conda-pin", "python", "3.11.9")])
    assert tracked_versions(tpl, minor_bump()) == [
        ("ExecuTorch", "1.4.0"), ("ExecuTorch", "1.4"), ("torch", "2.13.0"), ("torchao", "0.18.0"),
        ("flatbuffers", "24.3.25"), ("python", "3.11.9")]


def test_prose_versions_are_full_releases_named_in_an_executorch_context():
    tpl = template(findings=[prose("ExecuTorch", "1.3.0"), prose("ExecuTorch", "1.3"), prose("v", "v1.2.0"),
                             prose("@version", "1.1.0", exact=False), prose("@version", "1.0.0"),
                             prose("ExecuTorch", "1.5.1"), prose("ExecuTorch", "1.3.0"),
                             prose("ExecuTorch", "0.9.0", exact=False), prose("ExecuTorch", None),
                             Finding("a.yml", 1, "pack-pin", "ARM::X", "1.2.3")])
    assert tracked_versions(tpl, minor_bump()) == [
        ("ExecuTorch", "1.4.0"), ("ExecuTorch", "1.4"), ("torch", "2.13.0"), ("torchao", "0.18.0"),
        ("flatbuffers", "24.3.25"), ("ExecuTorch", "1.3.0"), ("ExecuTorch", "1.0.0"), ("ExecuTorch", "0.9.0")]
    assert tracked_versions(tpl, minor_bump(), pinned_only=True) == [
        ("ExecuTorch", "1.4.0"), ("ExecuTorch", "1.4"), ("torch", "2.13.0"), ("torchao", "0.18.0"),
        ("flatbuffers", "24.3.25")]


def test_a_version_is_tracked_once_under_the_first_subject_that_names_it():
    tpl = template(findings=[req("torchao", "2.13.0"), prose("ExecuTorch", "2.13.0"),
                             Finding("environment.yml", 3, "conda-pin", "pytorch", "2.13.0")])
    assert tracked_versions(tpl, minor_bump()) == [
        ("ExecuTorch", "1.4.0"), ("ExecuTorch", "1.4"), ("torch", "2.13.0"), ("flatbuffers", "24.3.25")]
