"""Pin-set resolution at every layout of ExecuTorch's pin files at tags v1.0.0 to v1.4.1, and the changes between two pin sets."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bot.errors import UpstreamError, UsageError
from bot.model import PinSet, ResolvedPin
from bot.sample import UPSTREAM_DIR, build_upstream_repo
from bot.upstream.pinfiles import parse_requirement_file
from bot.upstream.pins import plan_changes, resolve_pinset
from bot.upstream.git import GitSource
from bot.upstream.source import DirectorySource

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "upstream"
TOSA = "backends/arm/requirements-arm-tosa.txt"
ETHOS = "backends/arm/requirements-arm-ethos-u.txt"


@pytest.fixture(scope="module")
def tag_root(tmp_path_factory) -> Path:
    """Every layout in one folder of tag folders: the test fixtures (v1.0.0..v1.3.0) and the sample (v1.4.0, v1.5.1)."""
    root = tmp_path_factory.mktemp("tags")
    for src in (FIXTURES, UPSTREAM_DIR):
        for d in src.iterdir():
            if d.is_dir():
                shutil.copytree(d, root / d.name)
    return root


@pytest.fixture(scope="module", params=["directory", "git"])
def source(request, tag_root, tmp_path_factory):
    if request.param == "directory":
        yield DirectorySource(tag_root)
    else:
        repo = build_upstream_repo(tmp_path_factory.mktemp("git") / "executorch", root=tag_root, bare=True)
        with GitSource(repo) as src:
            yield src


def pin(ps: PinSet, name: str) -> ResolvedPin:
    p = ps.get(name)
    assert p is not None, name
    return p


# ---------------------------------------------------------------- ExecuTorch's pin files at tags v1.0.0 to v1.4.1, row by row

def test_v1_0_0_literal_torch_pyproject_torchao_and_git_url_tosa(source):
    ps = resolve_pinset(source, "v1.0.0")
    assert (ps.executorch, ps.pack) == ("1.0.0", "1.0.0")
    assert pin(ps, "torch").version == "2.9.0"
    assert pin(ps, "torch").source == "install_requirements.py @ v1.0.0"
    assert "torch_pin.py is absent" not in (pin(ps, "torch").reason or "")
    assert pin(ps, "torchao").version == "0.14.0"
    assert pin(ps, "torchao").source == "pyproject.toml [project.dependencies] @ v1.0.0"
    assert pin(ps, "ethos-u-vela").version == "4.4.1"
    assert pin(ps, "ethos-u-vela").source == f"{ETHOS} @ v1.0.0"
    assert [(p.name, p.version) for p in ps.tosa] == [
        ("ml-dtypes", "0.5.1"), ("flatbuffers", "24.3.25"), ("tosa-tools", None)]
    tosa_tools = pin(ps, "tosa-tools")
    assert "URL" in tosa_tools.reason and "@v2025.07.1" in tosa_tools.reason
    assert ps.requires_python == ">=3.10,<3.13"
    assert ps.flags == ()


def test_v1_1_0_torch_sources_disagree_first_wins_and_is_flagged(source):
    ps = resolve_pinset(source, "v1.1.0")
    torch = pin(ps, "torch")
    assert torch.version == "2.11.0"
    assert torch.source == "torch_pin.py TORCH_VERSION @ v1.1.0"
    [flag] = ps.flags
    assert flag.code == "source-disagreement" and flag.blocking is False
    assert "2.11.0" in flag.message and "2.10.0" in flag.message
    assert "torch_pin.py" in flag.message and "install_requirements.py" in flag.message
    assert pin(ps, "torchao").version == "0.15.0"
    assert pin(ps, "ethos-u-vela").version == "4.5.0"
    assert [p.name for p in ps.tosa] == ["ml-dtypes", "flatbuffers"]
    assert ps.get("tosa-tools") is None
    assert ps.requires_python == ">=3.10,<3.14"


def test_v1_2_0_torchao_range_only_is_unresolved(source):
    ps = resolve_pinset(source, "v1.2.0")
    assert pin(ps, "torch").version == "2.11.0" and ps.flags == ()  # both torch sources agree
    torchao = pin(ps, "torchao")
    assert torchao.version is None and not torchao.resolved
    assert "torchao>=0.17.0" in torchao.reason and "v1.2.0" in torchao.reason
    assert pin(ps, "ethos-u-vela").version == "5.0.0"
    assert [(p.name, p.version) for p in ps.tosa] == [
        ("ml-dtypes", "0.5.1"), ("flatbuffers", "24.3.25"), ("pybind11", "2.13.6")]


def test_v1_3_0_commented_lines_are_not_read(source):
    ps = resolve_pinset(source, "v1.3.0")
    assert pin(ps, "torch").version == "2.12.0"  # not the commented-out 2.13.0
    assert ps.flags == ()  # "torch==9.9.9" in a comment is not a second source
    assert pin(ps, "torchao").resolved is False
    assert pin(ps, "tosa-tools").version == "2026.2.1"
    assert pin(ps, "tosa-tools").spec == "== 2026.2.1"
    assert pin(ps, "ethos-u-vela").version == "5.0.0"


@pytest.mark.parametrize("tag, torch, torchao, vela, tosa_tools", [
    ("v1.4.0", "2.13.0", "0.18.0", "5.1.0", "2026.5.0"),
    ("v1.5.1", "2.14.0", "0.19.0", "5.2.0", "2026.8.0"),
])
def test_v1_4_layout_sample(source, tag, torch, torchao, vela, tosa_tools):
    ps = resolve_pinset(source, tag)
    assert pin(ps, "torch").version == torch
    assert pin(ps, "torch").source == f"torch_pin.py TORCH_VERSION @ {tag}"
    assert pin(ps, "torchao").version == torchao
    assert pin(ps, "torchao").source == f"install_requirements.py TORCHAO_NIGHTLY_VERSION @ {tag}"
    assert pin(ps, "ethos-u-vela").version == vela  # the requirement file and the ethos_u extra agree
    assert ps.flags == ()
    assert {p.name: p.version for p in ps.tosa} == {
        "ml-dtypes": "0.5.1", "flatbuffers": "24.3.25", "tosa-tools": tosa_tools}
    assert ps.requires_python == ">=3.10,<3.15"


# ---------------------------------------------------------------- other sources, odd files

def write_tag(root: Path, tag: str, files: dict[str, str]) -> DirectorySource:
    for rel, text in files.items():
        p = root / tag / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    (root / tag).mkdir(parents=True, exist_ok=True)
    return DirectorySource(root)


def test_pyproject_fallbacks_for_torch_and_vela(tmp_path):
    src = write_tag(tmp_path, "v2.0.0", {
        "pyproject.toml": '[project]\ndependencies = ["torch==2.20.0"]\n'
                          '[project.optional-dependencies]\nethos-u = ["ethos_u_vela==6.0.0"]\n'})
    ps = resolve_pinset(src, "v2.0.0")
    assert pin(ps, "torch").version == "2.20.0"
    assert pin(ps, "torch").source == "pyproject.toml [project.dependencies] @ v2.0.0"
    assert pin(ps, "ethos-u-vela").version == "6.0.0"
    assert pin(ps, "ethos-u-vela").source == "pyproject.toml [project.optional-dependencies] ethos-u @ v2.0.0"


def test_torchao_literal_and_bare_constant(tmp_path):
    src = write_tag(tmp_path, "v2.0.0", {"install_requirements.py": 'X = ["torchao==0.30.0"]\n'})
    write_tag(tmp_path, "v2.1.0", {"install_requirements.py": 'TORCHAO_NIGHTLY_VERSION = "0.31.0"\n'})
    assert pin(resolve_pinset(src, "v2.0.0"), "torchao").source == "install_requirements.py @ v2.0.0"
    ao = pin(resolve_pinset(src, "v2.1.0"), "torchao")
    assert (ao.version, ao.source) == ("0.31.0", "install_requirements.py TORCHAO_NIGHTLY_VERSION @ v2.1.0")


def test_tag_without_any_pin_file_gives_unresolved_pins_not_a_crash(tmp_path):
    src = write_tag(tmp_path, "v2.0.0", {"README.md": "nothing here\n"})
    ps = resolve_pinset(src, "v2.0.0")
    assert [p.resolved for p in ps.pins] == [False, False, False]
    assert "torch_pin.py is absent" in pin(ps, "torch").reason
    assert ps.tosa == () and ps.requires_python is None


def test_malformed_torch_pin_names_file_line_and_tag(tmp_path):
    src = write_tag(tmp_path, "v2.0.0", {"torch_pin.py": '# pins\nTORCH_VERSION = "2.14.0\n'})
    with pytest.raises(UpstreamError) as exc:
        resolve_pinset(src, "v2.0.0")
    assert exc.value.path == "torch_pin.py" and exc.value.line == 2
    assert "v2.0.0" in str(exc.value) and str(exc.value).startswith("torch_pin.py:2:")
    assert exc.value.exit_code == 2


def test_malformed_pyproject_and_requirement_file(tmp_path):
    src = write_tag(tmp_path, "v2.0.0", {"pyproject.toml": "[project]\nname = \n"})
    write_tag(tmp_path, "v2.1.0", {TOSA: "ml_dtypes == 0.5.1\nflatbuffers === = 1\n"})
    with pytest.raises(UpstreamError) as exc:
        resolve_pinset(src, "v2.0.0")
    assert exc.value.path == "pyproject.toml" and exc.value.line == 2
    with pytest.raises(UpstreamError) as exc:
        resolve_pinset(src, "v2.1.0")
    assert exc.value.path == TOSA and exc.value.line == 2 and "v2.1.0" in exc.value.message


def test_odd_tag_is_refused(source):
    with pytest.raises(UpstreamError):
        resolve_pinset(source, "v1.2.0-rc1-test-android")


def test_requirement_file_syntax():
    text = (b"# comment\n\n-r other.txt\n--extra-index-url https://example.invalid/simple\n"
            b"ml_dtypes == 0.5.1 ; python_version >= '3.10'  # serializer\n"
            b"flatbuffers==24.3.25 \\\n    --hash=sha256:abc\n"
            b"git+https://example.invalid/x/tosa-serializer.git@v1.0#egg=tosa_serializer\n"
            b"numpy>=2\n")
    reqs = parse_requirement_file(text, TOSA, "v9.9.9")
    assert [(r.name, r.version, r.line) for r in reqs] == [
        ("ml-dtypes", "0.5.1", 5), ("flatbuffers", "24.3.25", 6), ("tosa-serializer", None, 8), ("numpy", None, 9)]
    assert reqs[2].url.startswith("git+https://")
    assert reqs[3].why_unresolved() == "only a range (numpy>=2)"


# ---------------------------------------------------------------- plan_changes

def test_plan_changes_sample_bump(source):
    changes, flags = plan_changes(resolve_pinset(source, "v1.4.0"), resolve_pinset(source, "v1.5.1"))
    assert [(c.name, c.old, c.new) for c in changes] == [
        ("executorch", "1.4.0", "1.5.1"), ("torch", "2.13.0", "2.14.0"), ("torchao", "0.18.0", "0.19.0"),
        ("ethos-u-vela", "5.1.0", "5.2.0"), ("tosa-tools", "2026.5.0", "2026.8.0")]
    assert changes[1].source == "torch_pin.py TORCH_VERSION @ v1.5.1"
    assert changes[-1].source == f"{TOSA} @ v1.5.1"
    assert flags == ()


def test_unchanged_tosa_pin_is_not_a_change(source):
    changes, _ = plan_changes(resolve_pinset(source, "v1.1.0"), resolve_pinset(source, "v1.2.0"))
    names = [c.name for c in changes]
    assert "ml-dtypes" not in names and "flatbuffers" not in names
    assert "pybind11" in names  # new at v1.2.0: old None
    assert [c for c in changes if c.name == "pybind11"][0].old is None


def test_git_url_tosa_pin_to_version_is_a_change(source):
    changes, _ = plan_changes(resolve_pinset(source, "v1.0.0"), resolve_pinset(source, "v1.3.0"), {"torchao": "0.17.0"})
    tt = [c for c in changes if c.name == "tosa-tools"]
    assert [(c.old, c.new) for c in tt] == [(None, "2026.2.1")]


def test_unresolved_target_pin_is_a_blocking_flag_and_no_change(source):
    changes, flags = plan_changes(resolve_pinset(source, "v1.1.0"), resolve_pinset(source, "v1.2.0"))
    assert "torchao" not in [c.name for c in changes]
    [flag] = [f for f in flags if f.code == "unresolved-pin"]
    assert flag.blocking and "torchao" in flag.message and "v1.2.0" in flag.message
    assert "torchao>=0.17.0" in flag.message and "--set torchao=" in flag.message


def test_set_supplies_an_unresolved_pin_in_any_spelling(source):
    changes, flags = plan_changes(resolve_pinset(source, "v1.1.0"), resolve_pinset(source, "v1.2.0"),
                                  {"TorchAO": "0.17.1"})
    [ao] = [c for c in changes if c.name == "torchao"]
    assert (ao.old, ao.new, ao.source) == ("0.15.0", "0.17.1", "--set")
    assert not [f for f in flags if f.code == "unresolved-pin"]


def test_set_overriding_a_resolved_value_is_noted(source):
    changes, flags = plan_changes(resolve_pinset(source, "v1.4.0"), resolve_pinset(source, "v1.5.1"),
                                  {"Ethos_U.Vela": "5.1.0"})
    assert [(c.new, c.source) for c in changes if c.name == "ethos-u-vela"] == [("5.1.0", "--set")]
    assert [f.code for f in flags] == ["set-override"] and not flags[0].blocking


@pytest.mark.parametrize("sets", [{"torch": "latest"}, {"numpy": "2.0.0"}, {"executorch": "1.5.1"}])
def test_bad_sets_are_usage_errors(source, sets):
    with pytest.raises(UsageError):
        plan_changes(resolve_pinset(source, "v1.4.0"), resolve_pinset(source, "v1.5.1"), sets)


def test_current_unknown_flags_tosa_and_keeps_main_pins(source):
    changes, flags = plan_changes(None, resolve_pinset(source, "v1.5.1"))
    assert [(c.name, c.old, c.new) for c in changes] == [
        ("executorch", None, "1.5.1"), ("torch", None, "2.14.0"), ("torchao", None, "0.19.0"),
        ("ethos-u-vela", None, "5.2.0")]
    [flag] = flags
    assert flag.code == "tosa-unknown" and flag.blocking and "cannot be computed" in flag.message


def test_removed_tosa_pin_is_noted(source):
    _, flags = plan_changes(resolve_pinset(source, "v1.0.0"), resolve_pinset(source, "v1.1.0"))
    assert [f.code for f in flags] == ["removed-pin"]
    assert "tosa-tools" in flags[0].message and not flags[0].blocking


def test_upstream_vela_downgrade_is_still_a_change(tmp_path):
    """pytorch/executorch PR #7160: upstream went back from Vela 4.1.0 to 4.0.0; the bot writes 4.0.0
    (PyPI never asked)."""
    common = {"torch_pin.py": 'TORCH_VERSION = "2.6.0"\n', "install_requirements.py": 'TORCHAO_NIGHTLY_VERSION = "0.8.0"\n'}
    src = write_tag(tmp_path, "v0.5.0", {**common, ETHOS: "ethos-u-vela == 4.1.0\n"})
    write_tag(tmp_path, "v0.5.1", {**common, ETHOS: "ethos-u-vela == 4.0.0\n"})
    changes, flags = plan_changes(resolve_pinset(src, "v0.5.0"), resolve_pinset(src, "v0.5.1"))
    [vela] = [c for c in changes if c.name == "ethos-u-vela"]
    assert (vela.old, vela.new) == ("4.1.0", "4.0.0")
    assert vela.source == f"{ETHOS} @ v0.5.1"
    assert flags == ()


def test_torch_version_that_is_not_a_version_is_unresolved(tmp_path):
    src = write_tag(tmp_path, "v2.0.0", {"torch_pin.py": 'TORCH_VERSION = "two.fourteen"\n'})
    torch = pin(resolve_pinset(src, "v2.0.0"), "torch")
    assert torch.version is None
    # was "... gives no exact version (torch==two.fourteen)": garbled
    assert "torch_pin.py TORCH_VERSION @ v2.0.0: 'two.fourteen' is not a version" in torch.reason


def test_same_unresolved_tosa_pin_on_both_tags_is_neither_change_nor_flag(source):
    v100 = resolve_pinset(source, "v1.0.0")
    changes, flags = plan_changes(v100, v100)
    assert "tosa-tools" not in [c.name for c in changes] and flags == ()
