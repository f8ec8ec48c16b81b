"""Which upstream file a pin's source names: package metadata before a nightly-named script variable."""

from __future__ import annotations

import shutil

from bot.model import Flag, ResolvedPin
from bot.sample import UPSTREAM_DIR
from bot.upstream.pins import resolve_pinset
from bot.upstream.source import DirectorySource


def test_pyproject_dependency_wins_over_a_nightly_named_variable(tmp_path):
    shutil.copytree(UPSTREAM_DIR / "v1.5.1", tmp_path / "v1.5.1")
    py = tmp_path / "v1.5.1/pyproject.toml"
    py.write_text(py.read_text().replace('"pyyaml",', '"pyyaml",\n  "torchao==0.19.1",'))
    got = resolve_pinset(DirectorySource(tmp_path), "v1.5.1")
    assert got.get("torchao") == ResolvedPin("torchao", "0.19.1", "pyproject.toml [project.dependencies] @ v1.5.1",
                                             spec="==0.19.1")
    assert Flag("source-disagreement", "torchao: pyproject.toml [project.dependencies] @ v1.5.1 says 0.19.1 but "
                "install_requirements.py TORCHAO_NIGHTLY_VERSION @ v1.5.1 says 0.19.0; using 0.19.1",
                path="pyproject.toml", blocking=False) in got.flags


def test_without_metadata_the_nightly_variable_is_still_the_source(tmp_path):
    shutil.copytree(UPSTREAM_DIR / "v1.5.1", tmp_path / "v1.5.1")
    got = resolve_pinset(DirectorySource(tmp_path), "v1.5.1")
    assert got.get("torchao").source == "install_requirements.py TORCHAO_NIGHTLY_VERSION @ v1.5.1"
