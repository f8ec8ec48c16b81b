"""Upstream changes that matter between two tags: the .pte schema, selected components, Arm backends, ancestry.

The upstream history is generated here: the sample tag folders plus invented
schema, kernel and backend files (v1.4.0 -> v1.5.1 changes all three; v1.5.1
-> v1.5.2 changes only schema comments and a README), turned into a git
repository by ``bot.sample.build_upstream_repo``.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from bot.sample import UPSTREAM_DIR, build_upstream_repo, git_env
from bot.upstream.changes import (BackendChange, ComponentChange, SchemaChange, component_paths,
                                  pack_to_upstream, schema_tokens, upstream_changes)
from bot.upstream.git import GitSource
from bot.upstream.source import DirectorySource

SCHEMA_V1 = "// Program schema\ntable Program { version: uint; }\nroot_type Program;\n"
SCHEMA_V2 = "/* Program schema, v2 */\ntable Program { version: uint; segments: [uint]; }\nroot_type Program;\n"
SCHEMA_V2_COMMENTS = ("// Program schema, v2 (wording)\ntable   Program {\n  version: uint;  // kept\n"
                      "  segments: [uint];\n}\n\nroot_type Program;\n")
SAMPLE_CHANGED = ["backends/arm/requirements-arm-ethos-u.txt", "backends/arm/requirements-arm-tosa.txt",
                  "install_requirements.py", "pyproject.toml", "torch_pin.py", "version.txt"]

EXTRA = {
    "v1.4.0": {
        "schema/program.fbs": SCHEMA_V1,
        "schema/scalar_type.fbs": "enum ScalarType : byte { Byte = 0 }\n",
        "kernels/portable/cpu/op_add.cpp": "int add() { return 1; }\n",
        "backends/cortex_m/ops/op_quantize_per_tensor.cpp": "int q() { return 0; }\n",
        "backends/arm/_passes/fuse.py": "class OldPass:\n    pass\n\n\nclass KeepPass:\n    pass\n",
        "backends/arm/operators/op_old.py": "OP = 'old'\n",
        "runtime/core/evalue.cpp": "int evalue;\n",
        "README.md": "ExecuTorch\n",
    },
    "v1.5.1": {
        "schema/program.fbs": SCHEMA_V2,
        "schema/scalar_type.fbs": "enum ScalarType : byte { Byte = 0 }\n",
        "kernels/portable/cpu/op_add.cpp": "int add() { return 2; }\n",
        "backends/cortex_m/ops/op_quantize_per_tensor.cpp": "int q() { return 0; }\n",
        "backends/cortex_m/ops/op_new_op.cpp": "int n() { return 0; }\n",
        "backends/arm/_passes/fuse.py": "class KeepPass:\n    pass\n\n\nclass FuseNewPass:\n    pass\n",
        "runtime/core/evalue.cpp": "int evalue;\n",
        "README.md": "ExecuTorch\n",
    },
}
EXTRA["v1.5.2"] = dict(EXTRA["v1.5.1"], **{"schema/program.fbs": SCHEMA_V2_COMMENTS, "README.md": "ExecuTorch 1.5.2\n"})

SELECTED = [("Machine Learning:ExecuTorch Operators:Portable add", ("kernels/portable/cpu/op_add.cpp",), True),
            ("Machine Learning:ExecuTorch Operators:Cortex-M quantize_per_tensor",
             ("backends/cortex_m/ops/op_quantize_per_tensor.cpp",), True),
            ("Machine Learning:ExecuTorch:Runtime", ("runtime/",), True)]


def write_tags(root: Path) -> Path:
    """Tag folders v1.4.0, v1.5.1 (the sample's pin files) and v1.5.2 (v1.5.1's pins) with the EXTRA files."""
    for tag, files in EXTRA.items():
        shutil.copytree(UPSTREAM_DIR / ("v1.5.1" if tag == "v1.5.2" else tag), root / tag)
        for folder in ("schema", "kernels", "runtime", "backends/cortex_m", "backends/arm/_passes"):
            shutil.rmtree(root / tag / folder, ignore_errors=True)
        for rel, text in files.items():
            (root / tag / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / tag / rel).write_text(text)
    return root


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    root = write_tags(tmp_path_factory.mktemp("tags"))
    repo = build_upstream_repo(tmp_path_factory.mktemp("up") / "executorch.git", root=root, bare=True)
    return root, GitSource(repo)


# ---------------------------------------------------------------- schema tokens
def test_schema_tokens_ignore_comments_and_white_space_only():
    assert schema_tokens(SCHEMA_V2) == schema_tokens(SCHEMA_V2_COMMENTS)
    assert schema_tokens(SCHEMA_V1) != schema_tokens(SCHEMA_V2)
    assert schema_tokens('attribute "a//b";') == ["attribute", '"a//b"', ";"]   # a string is not a comment


def test_schema_tokens_of_a_large_input_end():
    assert schema_tokens("a /*" + "*" * 200_000 + "\n") == ["a"]      # an unclosed comment runs to the end
    assert schema_tokens('"' + "x" * 200_000) == ['"' + "x" * 200_000]   # so does an unclosed string


# ---------------------------------------------------------------- source interface
def test_git_and_directory_sources_list_the_same_changed_paths(history):
    root, git = history
    want = sorted(SAMPLE_CHANGED + ["backends/arm/_passes/fuse.py", "backends/arm/operators/op_old.py",
                                    "backends/cortex_m/ops/op_new_op.cpp", "kernels/portable/cpu/op_add.cpp",
                                    "schema/program.fbs"])
    assert git.changed_paths("v1.4.0", "v1.5.1") == want
    assert DirectorySource(root).changed_paths("v1.4.0", "v1.5.1") == want
    assert git.changed_paths("v1.5.1", "v1.5.2") == ["README.md", "schema/program.fbs"]


def test_git_ancestry_and_commit_count(history):
    _root, git = history
    # build_upstream_repo: one commit per tag, plus the rc commit just before v1.5.1
    assert git.ancestry("v1.4.0", "v1.5.1") == (True, 2)
    assert git.ancestry("v1.4.0", "v1.5.2") == (True, 3)


def test_a_tag_on_a_release_branch_is_not_an_ancestor(tmp_path):
    env = git_env()
    repo = tmp_path / "up"
    repo.mkdir()

    def git(*a):
        subprocess.run(["git", *a], cwd=repo, env=env, check=True, capture_output=True)
    git("init", "-q", "-b", "main")
    for name, branch in (("a", None), ("b", None)):
        (repo / name).write_text(name)
        git("add", name)
        git("commit", "-qm", name)
    git("tag", "v1.4.0")
    git("checkout", "-qb", "release/1.4", "HEAD~1")
    (repo / "fix").write_text("fix")
    git("add", "fix")
    git("commit", "-qm", "fix")
    git("tag", "v1.4.1")
    src = GitSource(repo)
    assert src.ancestry("v1.4.0", "v1.4.1") == (False, 1)
    assert src.changed_paths("v1.4.0", "v1.4.1") == ["b", "fix"]


def test_an_unknown_tag_is_an_upstream_error(history):
    from bot.errors import UpstreamError
    _root, git = history
    with pytest.raises(UpstreamError, match="'v9.9.9' does not exist"):
        git.changed_paths("v1.4.0", "v9.9.9")


def test_a_source_that_cannot_list_paths_leaves_the_changes_unknown(history):
    root, _git = history

    class Plain(DirectorySource):
        def changed_paths(self, old_tag, new_tag):
            return None
    ch = upstream_changes(Plain(root), "v1.4.0", "v1.5.1", SELECTED)
    assert (ch.paths, ch.schema, ch.components, ch.backends, ch.error) == (None, [], [], [], None)


# ---------------------------------------------------------------- what changed
def test_schema_components_and_backends_between_tags_with_changes(history):
    _root, git = history
    ch = upstream_changes(git, "v1.4.0", "v1.5.1", SELECTED)
    assert ch.schema == [SchemaChange("schema/program.fbs", "edited")] and ch.schema_changed
    assert ch.components == [
        ComponentChange(*SELECTED[0][:2], ("kernels/portable/cpu/op_add.cpp",), True),
        ComponentChange(*SELECTED[1][:2], (), True),
        ComponentChange(*SELECTED[2][:2], (), True)]
    assert ch.backends == [
        BackendChange("backends/arm/", ("backends/arm/_passes/fuse.py", "backends/arm/operators/op_old.py",
                                        "backends/arm/requirements-arm-ethos-u.txt",
                                        "backends/arm/requirements-arm-tosa.txt"),
                      passes_added=("FuseNewPass",), passes_removed=("OldPass",), operators_removed=("old",)),
        BackendChange("backends/cortex_m/", ("backends/cortex_m/ops/op_new_op.cpp",), operators_added=("new_op",))]
    assert (ch.ancestor, ch.commits) == (True, 2)


def test_only_schema_comments_changed_is_not_a_schema_change(history):
    _root, git = history
    ch = upstream_changes(git, "v1.5.1", "v1.5.2", SELECTED)
    assert ch.schema == [SchemaChange("schema/program.fbs", "comments")] and not ch.schema_changed
    assert [c.changed for c in ch.components] == [(), (), ()] and ch.backends == []


def test_an_added_or_removed_schema_file_is_a_real_change(tmp_path):
    root = write_tags(tmp_path)
    (root / "v1.5.1/schema/scalar_type.fbs").unlink()
    ch = upstream_changes(DirectorySource(root), "v1.4.0", "v1.5.1")
    assert ch.schema == [SchemaChange("schema/program.fbs", "edited"), SchemaChange("schema/scalar_type.fbs", "removed")]


def test_a_python_file_that_does_not_parse_is_named_not_guessed(tmp_path):
    root = write_tags(tmp_path)
    (root / "v1.5.1/backends/arm/_passes/fuse.py").write_text("class Broken(:\n")
    ch = upstream_changes(DirectorySource(root), "v1.4.0", "v1.5.1")
    arm = ch.backends[0]
    assert arm.unread == ("backends/arm/_passes/fuse.py",) and arm.passes_added == () and arm.passes_removed == ()


# ---------------------------------------------------------------- component -> upstream paths
def test_pack_file_names_map_to_upstream_paths():
    assert pack_to_upstream("src/kernels/portable/cpu/op_add.cpp") == "kernels/portable/cpu/op_add.cpp"
    assert pack_to_upstream("include/executorch/runtime/core/evalue.h") == "runtime/core/evalue.h"
    assert pack_to_upstream("include/") is None and pack_to_upstream("include/flatbuffers/base.h") is None


def test_component_paths_come_from_the_pdsc_file_lists_when_a_pdsc_is_given():
    from bot.pack.baseline import Selected
    from bot.pack.pdsc import parse_pdsc
    from bot.sample.packgen import PackSpec, pdsc_text

    pdsc = parse_pdsc(pdsc_text(PackSpec()).encode(), "PyTorch.ExecuTorch.pdsc")
    sel = [Selected("a.clayer.yml", 3, "Machine Learning:ExecuTorch Operators:Portable add", "Machine Learning",
                    "ExecuTorch Operators", "Portable add"),
           Selected("a.clayer.yml", 4, "x", "Machine Learning", "ExecuTorch Operators", "Portable nothere")]
    assert component_paths(sel, pdsc) == [
        ("Machine Learning:ExecuTorch Operators:Portable add", ("kernels/portable/cpu/op_add.cpp",), False),
        ("Machine Learning:ExecuTorch Operators:Portable nothere",
         ("kernels/portable/cpu/op_nothere.cpp", "kernels/portable/cpu/op_nothere.h",
          "kernels/portable/cpu/op__nothere.cpp", "kernels/portable/cpu/op__nothere.h"), True)]
