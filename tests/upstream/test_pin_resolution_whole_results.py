"""What upstream pins at a tag (``resolve_pinset``), asserted whole: each pin's version, source, spec
or reason, and each flag's code, message, path, line and blocking (ExecuTorch's pin files at tags v1.0.0 to v1.4.1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.errors import UpstreamError
from bot.model import Flag, ResolvedPin
from bot.upstream.pins import resolve_pinset
from bot.upstream.source import DirectorySource
from helpers import assert_flags


def tag(root: Path, name: str, files: dict[str, str]) -> DirectorySource:
    for rel, text in files.items():
        p = root / name / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return DirectorySource(root)


def test_a_torch_version_that_is_not_a_string_and_no_other_source_is_unresolved_with_every_note(tmp_path):
    src = tag(tmp_path, "v1.5.1", {"torch_pin.py": "TORCH_VERSION = get()\n"})
    ps = resolve_pinset(src, "v1.5.1")
    assert ps.get("torch") == ResolvedPin(
        "torch", None, None, reason="no exact pin at v1.5.1: torch_pin.py TORCH_VERSION @ v1.5.1 is get(), not a "
        "version string; install_requirements.py is absent; pyproject.toml is absent")
    assert ps.flags == ()


TOSA = "backends/arm/requirements-arm-tosa.txt"
ETHOS = "backends/arm/requirements-arm-ethos-u.txt"


def test_a_release_candidate_pin_set_is_whole(tmp_path):
    src = tag(tmp_path, "v1.5.0-rc2", {
        "torch_pin.py": 'TORCH_VERSION = "2.11.0"\n',
        "install_requirements.py": 'REQS = ["torch==2.10.0", "torchao==0.19.0"]\nTORCHAO_NIGHTLY_VERSION = "0.20.0"\n',
        "pyproject.toml": '[project]\nrequires-python = ">=3.10"\ndependencies = ["torch==2.9.0", "torchao==0.19"]\n'
                          '[project.optional-dependencies]\nethos_u = ["ethos-u-vela==5.2.0"]\n',
        TOSA: "ml_dtypes==0.5.1\ntosa-tools==1\ntosa-tools==2\nml_dtypes==0.5.1 ; python_version > '3'\n",
    })
    ps = resolve_pinset(src, "v1.5.0-rc2")
    at = "@ v1.5.0-rc2"
    assert (ps.tag, ps.executorch, ps.pack, ps.requires_python) == ("v1.5.0-rc2", "1.5.0rc2", "1.5.0-rc2", ">=3.10")
    assert ps.pins == (
        ResolvedPin("torch", "2.11.0", f"torch_pin.py TORCH_VERSION {at}", spec="==2.11.0"),
        ResolvedPin("torchao", "0.19.0", f"install_requirements.py {at}", spec="==0.19.0"),
        ResolvedPin("ethos-u-vela", "5.2.0", f"pyproject.toml [project.optional-dependencies] ethos_u {at}",
                    spec="==5.2.0"))
    assert ps.tosa == (
        ResolvedPin("ml-dtypes", "0.5.1", f"{TOSA} {at}", spec="==0.5.1"),
        ResolvedPin("tosa-tools", None, f"{TOSA} {at}", spec="==1",
                    reason=f"{TOSA} {at}: pinned differently on several lines {at} ({TOSA}:2 ==1, {TOSA}:3 ==2)"))
    assert_flags(ps.flags,
                 Flag("source-disagreement", f"torch: torch_pin.py TORCH_VERSION {at} says 2.11.0 but "
                      f"install_requirements.py {at} says 2.10.0; using 2.11.0", path="torch_pin.py", blocking=False),
                 Flag("source-disagreement", f"torch: torch_pin.py TORCH_VERSION {at} says 2.11.0 but "
                      f"pyproject.toml [project.dependencies] {at} says 2.9.0; using 2.11.0", path="torch_pin.py",
                      blocking=False))


def test_an_unusable_first_source_is_a_whole_non_blocking_flag(tmp_path):
    src = tag(tmp_path, "v1.5.1", {"torch_pin.py": "TORCH_VERSION = get()\n",
                                   "install_requirements.py": 'R = ["torch==2.14.0"]\n'})
    ps = resolve_pinset(src, "v1.5.1")
    assert ps.get("torch") == ResolvedPin("torch", "2.14.0", "install_requirements.py @ v1.5.1", spec="==2.14.0")
    assert_flags(ps.flags, Flag("source-unusable", "torch: torch_pin.py TORCH_VERSION @ v1.5.1 is get(), not a "
                                "version string; using 2.14.0 from install_requirements.py @ v1.5.1",
                                path="torch_pin.py", blocking=False))


def test_vela_from_its_requirement_file_disagreeing_with_the_extra_is_flagged_whole(tmp_path):
    src = tag(tmp_path, "v1.5.1", {ETHOS: "ethos-u-vela == 5.2.0\n",
                                   "pyproject.toml": '[project.optional-dependencies]\n"ethos-u" = ["numpy", '
                                                     '"ethos-u-vela==5.1.0", "ethos-u-vela==5.0.0"]\n'})
    ps = resolve_pinset(src, "v1.5.1")
    assert ps.get("ethos-u-vela") == ResolvedPin("ethos-u-vela", "5.2.0", f"{ETHOS} @ v1.5.1", spec="== 5.2.0")
    assert_flags(ps.flags, Flag("source-disagreement", f"ethos-u-vela: {ETHOS} @ v1.5.1 says 5.2.0 but "
                                "pyproject.toml [project.optional-dependencies] ethos-u @ v1.5.1 says 5.1.0; using 5.2.0",
                                path=ETHOS, blocking=False))


def test_pins_no_file_names_are_unresolved_with_every_reason(tmp_path):
    src = tag(tmp_path, "v1.5.1", {ETHOS: "numpy==2\n", "install_requirements.py": "X = 1\n",
                                   "pyproject.toml": '[project]\ndependencies = ["numpy"]\n'})
    ps = resolve_pinset(src, "v1.5.1")
    assert ps.pins == (
        ResolvedPin("torch", None, reason="no exact pin at v1.5.1: torch_pin.py is absent; install_requirements.py "
                    "has no torch requirement; pyproject.toml [project.dependencies] has no torch"),
        ResolvedPin("torchao", None, reason="no exact pin at v1.5.1: install_requirements.py has no torchao "
                    "requirement; pyproject.toml [project.dependencies] has no torchao"),
        ResolvedPin("ethos-u-vela", None, reason=f"no exact pin at v1.5.1: {ETHOS} does not name ethos-u-vela"))
    assert (ps.tosa, ps.flags, ps.requires_python) == ((), (), None)


def test_torchao_from_the_nightly_constant_names_it_in_the_source(tmp_path):
    src = tag(tmp_path, "v1.4.0", {"install_requirements.py": 'TORCHAO_NIGHTLY_VERSION = "0.18.0"\n',
                                   "torch_pin.py": "X = 1\n"})
    ps = resolve_pinset(src, "v1.4.0")
    assert ps.get("torchao") == ResolvedPin("torchao", "0.18.0", "install_requirements.py TORCHAO_NIGHTLY_VERSION @ v1.4.0",
                                            spec="==0.18.0")
    assert ps.get("torch").reason == ("no exact pin at v1.4.0: torch_pin.py has no TORCH_VERSION; install_requirements.py "
                                      "has no torch requirement; pyproject.toml is absent")


def test_a_tag_that_is_not_a_release_is_a_whole_error(tmp_path):
    src = tag(tmp_path, "main", {"torch_pin.py": 'TORCH_VERSION = "2.14.0"\n'})
    with pytest.raises(UpstreamError) as info:
        resolve_pinset(src, "main")
    err = info.value
    assert (err.message, err.path, err.line, err.exit_code) == (
        f"'main' is not a release tag (vX.Y.Z or vX.Y.Z-rcN) in {src.describe()}", None, None, 2)


def test_each_pin_file_is_read_once_per_tag(tmp_path):
    src = tag(tmp_path, "v1.5.1", {"torch_pin.py": 'TORCH_VERSION = "2.14.0"\n',
                                   "install_requirements.py": 'R = ["torch==2.14.0"]\n',
                                   "pyproject.toml": '[project]\ndependencies = ["torchao==0.19.0"]\n'})
    reads = []

    class Counting(DirectorySource):
        def read(self, t, path):
            reads.append((t, path))
            return super().read(t, path)

    resolve_pinset(Counting(tmp_path), "v1.5.1")
    assert sorted(reads) == sorted(set(reads))
    assert {p for _, p in reads} == {"torch_pin.py", "install_requirements.py", "pyproject.toml",
                                     ETHOS, TOSA}


def test_an_exact_torch_requirement_wins_over_a_range_before_it(tmp_path):
    src = tag(tmp_path, "v1.5.1", {"install_requirements.py": 'R = ["torch>=2", "torch==2.14.0"]\n'})
    ps = resolve_pinset(src, "v1.5.1")
    assert ps.get("torch") == ResolvedPin("torch", "2.14.0", "install_requirements.py @ v1.5.1", spec="==2.14.0")
    assert ps.flags == ()


def test_only_the_first_of_several_ranges_is_the_unusable_source(tmp_path):
    src = tag(tmp_path, "v1.5.1", {"install_requirements.py": 'R = ["torch>=2", "torch<3"]\n',
                                   "pyproject.toml": '[project]\ndependencies = ["torch==2.14.0", "torch==2.13.0"]\n'})
    ps = resolve_pinset(src, "v1.5.1")
    assert ps.get("torch") == ResolvedPin("torch", "2.14.0", "pyproject.toml [project.dependencies] @ v1.5.1",
                                          spec="==2.14.0")
    assert_flags(ps.flags, Flag("source-unusable", "torch: install_requirements.py @ v1.5.1: only a range (torch>=2); "
                                "using 2.14.0 from pyproject.toml [project.dependencies] @ v1.5.1",
                                path="install_requirements.py", blocking=False))


def test_only_the_first_vela_of_the_extra_is_read(tmp_path):
    src = tag(tmp_path, "v1.5.1", {"pyproject.toml": '[project.optional-dependencies]\nethos-u = '
                                                     '["ethos-u-vela==5.1.0", "ethos-u-vela==5.0.0"]\n'})
    ps = resolve_pinset(src, "v1.5.1")
    assert ps.get("ethos-u-vela").version == "5.1.0"
    assert ps.flags == ()


def test_vela_pinned_differently_on_two_lines_is_unresolved_naming_both(tmp_path):
    src = tag(tmp_path, "v1.5.1", {ETHOS: "ethos-u-vela==5.2.0 ; python_version < '3.12'\n"
                                          "ethos-u-vela==5.1.0 ; python_version >= '3.12'\n"})
    ps = resolve_pinset(src, "v1.5.1")
    assert ps.get("ethos-u-vela") == ResolvedPin(
        "ethos-u-vela", None, reason=f"no exact pin at v1.5.1: {ETHOS} @ v1.5.1: pinned differently on several "
        f"lines @ v1.5.1 ({ETHOS}:1 ==5.2.0, {ETHOS}:2 ==5.1.0)")


def test_the_unresolved_line_of_a_package_pinned_twice_is_its_first_line():
    from bot.upstream.pinfiles import ReqLine
    from bot.upstream.pins import _single
    reqs = [ReqLine("numpy", "2", "==2", line=1), ReqLine("tosa-tools", "1", "==1", line=2),
            ReqLine("tosa-tools", None, "git+https://h/t", url="git+https://h/t", line=3)]
    assert _single(reqs, "tosa-tools", "req.txt", "v1") == ReqLine(
        "tosa-tools", None, "==1", line=2,
        problem="pinned differently on several lines @ v1 (req.txt:2 ==1, req.txt:3 git+https://h/t)")
    assert _single(reqs, "numpy", "req.txt", "v1") == reqs[0]
    assert _single(reqs, "torch", "req.txt", "v1") is None


def test_two_disagreeing_values_from_one_later_source_are_one_flag(tmp_path):
    src = tag(tmp_path, "v1.5.1", {"torch_pin.py": 'TORCH_VERSION = "2.11.0"\n',
                                   "install_requirements.py": 'R = ["torch==2.10.0", "torch==2.9.0"]\n'})
    assert_flags(resolve_pinset(src, "v1.5.1").flags, Flag(
        "source-disagreement", "torch: torch_pin.py TORCH_VERSION @ v1.5.1 says 2.11.0 but install_requirements.py "
        "@ v1.5.1 says 2.10.0; using 2.11.0", path="torch_pin.py", blocking=False))


def test_a_tosa_package_named_twice_in_a_row_does_not_hide_the_next_one(tmp_path):
    src = tag(tmp_path, "v1.5.1", {TOSA: "ml_dtypes==0.5.1\nml_dtypes==0.5.1 ; python_version > '3'\ntosa-tools==2026.8.0\n"})
    assert [(p.name, p.version) for p in resolve_pinset(src, "v1.5.1").tosa] == [
        ("ml-dtypes", "0.5.1"), ("tosa-tools", "2026.8.0")]
