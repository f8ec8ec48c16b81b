"""Adversarial regression tests for the upstream datasources (pins at a tag, tags, sources).

Inputs are upstream trees as they can really look at a tag (a trailing
backslash at the end of a requirement file, ``===`` pins, a package named
twice, a ``TORCH_VERSION`` that is not a version string, tags that are odd
objects); the expected values are the rules of DESIGN.md: never a guess,
never an internal error, always the file, the line and the tag.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bot.sample import build_upstream_repo, git_env
from bot.upstream.pins import parse_requirement_file, plan_changes, resolve_pinset
from bot.upstream.git import GitSource
from bot.upstream.source import DirectorySource
from helpers import run_cli, snapshot

TOSA = "backends/arm/requirements-arm-tosa.txt"
ETHOS = "backends/arm/requirements-arm-ethos-u.txt"


def write(root: Path, tag: str, path: str, text: str) -> None:
    p = root / tag / path
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)


def test_continuation_at_end_of_file_keeps_the_last_requirement():
    """pip joins a trailing backslash at EOF with nothing; the last requirement used to vanish."""
    reqs = parse_requirement_file(b"ml_dtypes == 0.5.1\ntosa-tools == 2026.8.0 \\", TOSA, "v1.5.1")
    assert [(r.name, r.version) for r in reqs] == [("ml-dtypes", "0.5.1"), ("tosa-tools", "2026.8.0")]


@pytest.mark.parametrize("line", ["ethos-u-vela === 5.2.0-custom\n", "ethos-u-vela ===\n"])
def test_arbitrary_equality_pin_upstream_is_unresolved_not_an_internal_error(tags, line):
    write(tags, "v1.5.1", ETHOS, line)
    write(tags, "v1.5.1", "pyproject.toml", "[project]\nname = 'executorch'\n")
    src = DirectorySource(tags)
    target = resolve_pinset(src, "v1.5.1")
    vela = target.get("ethos-u-vela")
    assert not vela.resolved and "===" in vela.reason
    changes, flags = plan_changes(resolve_pinset(src, "v1.4.0"), target)
    assert [f.code for f in flags if f.blocking] == ["unresolved-pin"]


def test_arbitrary_equality_tosa_pin_through_the_cli(tags, template, capsys):
    write(tags, "v1.5.1", TOSA, "ml_dtypes === \ntosa-tools == 2026.8.0\n")
    before = snapshot(template)
    code = _update(capsys, template, tags)[0]
    assert code == 1  # flagged, nothing written; no internal error (exit 2 from the last-resort handler)
    assert snapshot(template) == before


@pytest.mark.parametrize("path", [TOSA, ETHOS])
def test_package_pinned_twice_with_different_versions_is_not_guessed(tags, path):
    name = "tosa-tools" if path == TOSA else "ethos-u-vela"
    write(tags, "v1.5.1", path, f"{name} == 2026.8.0\n{name} == 2026.9.0\n")
    write(tags, "v1.5.1", "pyproject.toml", "[project]\nname = 'executorch'\n")
    src = DirectorySource(tags)
    target = resolve_pinset(src, "v1.5.1")
    pin = target.get(name)
    assert not pin.resolved
    assert "2026.8.0" in pin.reason and "2026.9.0" in pin.reason and f"{path}:2" in pin.reason


def test_same_package_twice_with_the_same_version_resolves(tags):
    write(tags, "v1.5.1", TOSA, "tosa-tools == 2026.8.0 ; python_version < '3.12'\n"
                                 "tosa-tools == 2026.8.0 ; python_version >= '3.12'\n")
    assert resolve_pinset(DirectorySource(tags), "v1.5.1").get("tosa-tools").version == "2026.8.0"


@pytest.mark.parametrize("value", ["2.14", "'latest'", "b'2.14.0'", "'2.14.0 ; evil'"])
def test_unusable_torch_version_is_flagged_when_a_later_source_is_used(tags, value):
    """torch_pin.py holds TORCH_VERSION but not a version: falling back silently was a guess."""
    write(tags, "v1.5.1", "torch_pin.py", f"TORCH_VERSION = {value}\n")
    target = resolve_pinset(DirectorySource(tags), "v1.5.1")
    assert target.get("torch").version == "2.14.0"  # install_requirements.py's torch==2.14.0
    msgs = [f.message for f in target.flags if f.code == "source-unusable"]
    assert len(msgs) == 1 and "torch_pin.py" in msgs[0] and "TORCH_VERSION" in msgs[0], target.flags


def _update(capsys, template, upstream, *extra):
    return run_cli(capsys, "update", "--repo", template, "--upstream", upstream, *extra)


def test_unusable_vela_requirement_is_flagged_when_the_pyproject_extra_is_used(tags):
    write(tags, "v1.5.1", ETHOS, "ethos-u-vela === 5.2.0-custom\n")
    target = resolve_pinset(DirectorySource(tags), "v1.5.1")
    assert target.get("ethos-u-vela").version == "5.2.0"  # the pyproject ethos_u extra
    assert [f.path for f in target.flags if f.code == "source-unusable"] == [ETHOS]


def test_tags_of_a_tree_or_a_blob_are_not_releases(tmp_path):
    """A ``v2.0.0`` tag of a tree became the default target; a tag of a blob read as 'every file absent'."""
    repo = build_upstream_repo(tmp_path / "executorch.git", bare=True)

    def git(*args):
        return subprocess.run(["git", f"--git-dir={repo}", *args], env=git_env(), check=True,
                              capture_output=True, text=True).stdout.strip()

    tree, blob = git("rev-parse", "v1.5.1^{tree}"), git("rev-parse", "v1.5.1:torch_pin.py")
    git("tag", "v1.7.0", blob)
    git("tag", "-a", "-m", "tree", "v2.0.0", tree)
    git("tag", "-a", "-m", "nested", "v1.6.0", "v1.5.1")
    with GitSource(repo) as src:
        assert "v2.0.0" not in src.tags() and "v1.7.0" not in src.tags()
        assert {"v1.4.0", "v1.5.1", "v1.6.0"} <= set(src.tags())
        assert resolve_pinset(src, "v1.6.0").get("torch").version == "2.14.0"
