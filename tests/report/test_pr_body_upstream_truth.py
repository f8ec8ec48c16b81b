"""Every claim of the PR body's upstream section is what git and the pack say.

The fixture is shaped like ExecuTorch 1.3 -> 1.4 (written here, not copied): Arm operator files renamed with
small edits (``op_cat.py`` -> ``op_tosa_concat.py``, ``op_permute.py`` -> ``op_tosa_transpose.py``), a VGF
backend file changed beside the EthosU backend's own unchanged files in ``backends/arm/runtime/``, a test-only
``DummyPass`` in ``backends/arm/test/``, a real new pass, codegen and kernel tests changed, and a pack whose PDSC
``<file>`` lists name each component's own files (Kernel Registration: the generated
``src/registration/RegisterAllKernels.cpp`` only).  The body-truth test re-derives each claim from
``git diff -M`` and the PDSC, independently of the bot's code.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from bot.pack.baseline import Selected
from bot.pack.pdsc import parse_pdsc
from bot.report.upstream import upstream_section
from bot.sample import UPSTREAM_DIR, build_upstream_repo, git_env
from bot.sample.packgen import PackSpec, pdsc_text
from bot.upstream.changes import component_paths, is_test_path, upstream_changes
from bot.upstream.git import GitSource
from bot.upstream.source import DirectorySource

OP_BODY = ("from .node_visitor import NodeVisitor, register_node_visitor\n\n\n"
           "@register_node_visitor\nclass {cls}(NodeVisitor):\n    target = \"{target}\"\n\n"
           "    def define_node(self, node, tosa_graph, inputs, output):\n"
           "        attr = self.build_attribute(node)\n        tosa_graph.addOperator(self.tosa_op, inputs, output, attr)\n"
           "        self.validate_inputs(inputs)\n        self.validate_output(output)\n        return output\n")

OLD = {
    "backends/arm/operators/op_cat.py": OP_BODY.format(cls="CatVisitor", target="aten.cat.default"),
    "backends/arm/operators/op_permute.py": OP_BODY.format(cls="PermuteVisitor", target="aten.permute_copy.default"),
    "backends/arm/operators/op_add.py": OP_BODY.format(cls="AddVisitor", target="aten.add.Tensor"),
    "backends/arm/runtime/EthosUBackend.cpp": "// EthosU backend\nint ethosu_init() { return 0; }\n",
    "backends/arm/runtime/VelaBinStream.cpp": "// Vela bin stream\nint vela_read() { return 0; }\n",
    "backends/arm/runtime/VGFBackend.cpp": "// VGF backend\nint vgf_init() { return 0; }\n",
    "backends/arm/_passes/decompose.py": "class DecomposeThingPass:\n    pass\n",
    "backends/arm/test/misc/test_partition.py": "def test_partition():\n    assert True\n",
    "codegen/gen.py": "GEN = 1\n",
    "kernels/test/op_add_test.cpp": "int t = 1;\n",
    "runtime/core/evalue.cpp": "int evalue;\n",
}
NEW = dict(OLD)
del NEW["backends/arm/operators/op_cat.py"], NEW["backends/arm/operators/op_permute.py"]
NEW.update({
    "backends/arm/operators/op_tosa_concat.py": OP_BODY.format(cls="ConcatVisitor", target="tosa.CONCAT.default"),
    "backends/arm/operators/op_tosa_transpose.py": OP_BODY.format(cls="TransposeVisitor",
                                                                  target="tosa.TRANSPOSE.default"),
    "backends/arm/operators/op_mul.py": "MUL = 'new and unlike any other file'\n",
    "backends/arm/runtime/VGFBackend.cpp": "// VGF backend, v2\nint vgf_init() { return 1; }\nint vgf_run();\n",
    "backends/arm/_passes/fuse_new.py": "class FuseNewThingPass:\n    pass\n",
    "backends/arm/test/misc/test_partition.py": ("class DummyPass:\n    pass\n\n\nclass DummyTargetedPass:\n    pass\n\n\n"
                                                 "def test_partition():\n    assert True\n"),
    "backends/arm/test/ops/op_fake.py": "FAKE = 1\n",
    "codegen/gen.py": "GEN = 2\n",
    "kernels/test/op_add_test.cpp": "int t = 2;\n",
})

# The template selects these; the pack's PDSC (bot.sample.packgen) names their own files.
SELECTED = [("Machine Learning", "ExecuTorch", "Runtime"), ("Machine Learning", "ExecuTorch", "Backend EthosU"),
            ("Machine Learning", "ExecuTorch", "Kernel Registration"),
            ("Machine Learning", "ExecuTorch Operators", "Portable add")]


def write_tags(root: Path) -> Path:
    for tag, files in (("v1.4.0", OLD), ("v1.5.1", NEW)):
        shutil.copytree(UPSTREAM_DIR / tag, root / tag)
        shutil.rmtree(root / tag / "backends" / "arm" / "runtime", ignore_errors=True)
        for rel, text in files.items():
            (root / tag / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / tag / rel).write_text(text)
    return root


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    root = write_tags(tmp_path_factory.mktemp("tags"))
    repo = build_upstream_repo(tmp_path_factory.mktemp("up") / "executorch.git", root=root, bare=True)
    pdsc = parse_pdsc(pdsc_text(PackSpec()).encode(), "PyTorch.ExecuTorch.pdsc")
    sel = [Selected("ai_layer.clayer.yml", i + 3, ":".join(s), *s) for i, s in enumerate(SELECTED)]
    return root, repo, pdsc, sel


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", f"--git-dir={repo}", *args], check=True, capture_output=True, text=True,
                          env=git_env()).stdout


def test_renames_are_detected_as_renames_by_git_and_counted_once(world):
    _root, repo, pdsc, sel = world
    ch = upstream_changes(GitSource(repo), "v1.4.0", "v1.5.1", component_paths(sel, pdsc))
    assert ("backends/arm/operators/op_cat.py", "backends/arm/operators/op_tosa_concat.py") in ch.renames
    assert ch.files_changed == len(ch.paths) - len(ch.renames)
    arm = next(b for b in ch.backends if b.folder == "backends/arm/")
    assert arm.operators_renamed == (("cat", "tosa_concat"), ("permute", "tosa_transpose"))
    assert arm.operators_added == ("mul",) and arm.operators_removed == ()
    assert "backends/arm/operators/op_cat.py" not in arm.files     # the pair is one file, under its new path
    assert "backends/arm/operators/op_tosa_concat.py" in arm.files


def test_test_only_classes_are_not_passes_and_test_files_not_operators(world):
    _root, repo, pdsc, sel = world
    ch = upstream_changes(GitSource(repo), "v1.4.0", "v1.5.1", component_paths(sel, pdsc))
    arm = next(b for b in ch.backends if b.folder == "backends/arm/")
    assert arm.passes_added == ("FuseNewThingPass", "FuseQuantizedActivationPass")   # the second: the sample's
    assert "fake" not in arm.operators_added
    assert arm.tests == sum(1 for p in arm.files if is_test_path(p)) == 2


def test_components_change_by_the_pack_file_lists_not_by_folder(world):
    _root, repo, pdsc, sel = world
    ch = upstream_changes(GitSource(repo), "v1.4.0", "v1.5.1", component_paths(sel, pdsc))
    by = {c.ident.rsplit(":", 1)[1]: c for c in ch.components}
    assert by["Backend EthosU"].changed == ()          # VGFBackend.cpp changed beside it, not its own file
    assert by["Backend EthosU"].paths == ("backends/arm/runtime/EthosUBackend.cpp",)
    assert by["Kernel Registration"].changed == () and by["Kernel Registration"].paths == ()
    assert by["Kernel Registration"].generated == "src/registration/RegisterAllKernels.cpp"
    assert by["Portable add"].changed == ("kernels/portable/cpu/op_add.cpp",)


def test_without_a_pdsc_the_convention_keeps_the_vgf_backend_and_codegen_out(world):
    _root, repo, _pdsc, sel = world
    ch = upstream_changes(GitSource(repo), "v1.4.0", "v1.5.1", component_paths(sel, None))
    by = {c.ident.rsplit(":", 1)[1]: c for c in ch.components}
    assert by["Backend EthosU"].by_convention and by["Backend EthosU"].changed == ()
    assert by["Kernel Registration"].changed == ()
    section = upstream_section(ch, "pytorch/executorch", "https://github.com")
    assert "VGFBackend" not in section.split("#### Arm backends")[0]
    assert "codegen/gen.py" not in section


def test_a_source_without_similarity_detection_says_so(world):
    root, _repo, pdsc, sel = world
    ch = upstream_changes(DirectorySource(root), "v1.4.0", "v1.5.1", component_paths(sel, pdsc))
    assert ch.renames == [] and ch.rename_method == "identical content only"
    section = upstream_section(ch, "pytorch/executorch", "https://github.com")
    assert "renames found with identical content only" in section


def test_a_record_without_the_rename_keys_reads_as_not_detected():
    from bot.report.record import _changes_from

    ch = _changes_from({"old_tag": "v1.4.0", "new_tag": "v1.5.1", "paths": ["a", "b"],
                        "backends": [{"folder": "backends/arm/", "files": ["a"]}],
                        "components": [{"ident": "x", "paths": ["a"], "changed": ["a"]}]})
    assert ch.renames is None and ch.files_changed == 2 and ch.backends[0].renamed == ()
    section = upstream_section(ch, "pytorch/executorch", "https://github.com")
    assert "renames not detected by this upstream source" in section


def test_the_record_keeps_renames_and_generated_components(world):
    import json

    from bot.report.record import _changes_from, _changes_json

    _root, repo, pdsc, sel = world
    ch = upstream_changes(GitSource(repo), "v1.4.0", "v1.5.1", component_paths(sel, pdsc))
    back = _changes_from(json.loads(json.dumps(_changes_json(ch))))
    assert back == ch


# ---------------------------------------------------------------- the body-truth test
def _git_truth(repo: Path) -> dict:
    rows = [r.split("\t") for r in git(repo, "diff", "-M", "--name-status", "refs/tags/v1.4.0",
                                       "refs/tags/v1.5.1").splitlines()]
    renames = {(r[1], r[2]) for r in rows if r[0].startswith("R")}
    changed = set(git(repo, "diff", "--no-renames", "--name-only", "refs/tags/v1.4.0",
                      "refs/tags/v1.5.1").split())
    return {"rows": rows, "renames": renames, "changed": changed}


def _pdsc_files(pdsc, csub: str) -> set[str]:
    comp = next(c for c in pdsc.components if (c.csub or "") == csub)
    return {f.name[len("src/"):] for f in comp.files if f.name.startswith("src/")}


def _pdsc_other(pdsc, csub: str) -> list[str]:
    comp = next(c for c in pdsc.components if (c.csub or "") == csub)
    return [f.name for f in comp.files if not f.name.startswith(("src/", "include/executorch/")) or f.name == "src/"]


def test_every_claim_of_the_upstream_section_matches_git_and_the_pack(world):
    _root, repo, pdsc, sel = world
    ch = upstream_changes(GitSource(repo), "v1.4.0", "v1.5.1", component_paths(sel, pdsc))
    body = upstream_section(ch, "pytorch/executorch", "https://github.com")
    truth = _git_truth(repo)

    # "N files changed between the tags (R renames, each counted once ...)": git diff -M's own count
    m = re.search(r"^(\d+) files changed between the tags \((\d+) renamed files counted once; renames found with "
                  r"`git diff -M`", body, re.M)
    assert m and int(m.group(1)) == len(truth["rows"]) and int(m.group(2)) == len(truth["renames"])

    # "K of the N components ... has/have upstream source files that changed": from the PDSC <file> lists
    m = re.search(r"^(\d+) of the (\d+) ExecuTorch components the template selects (?:has|have) upstream source "
                  r"files that changed \(paths from the pack's `<file>` lists\)", body, re.M)
    own = {s[2]: _pdsc_files(pdsc, s[2]) - {"registration/RegisterAllKernels.cpp"} for s in SELECTED}
    touched = [k for k, files in own.items() if files & truth["changed"]]
    assert m and int(m.group(1)) == len(touched) == 1 and int(m.group(2)) == len(SELECTED)
    for csub, files in own.items():
        line = next(x for x in body.splitlines() if x.startswith(f"- `Machine Learning:") and x.split("`")[1]
                    .endswith(":" + csub))
        named = set(re.findall(r"`([^`]+)`", line.split(": ", 1)[1]))
        if files & truth["changed"]:
            assert named == files & truth["changed"], line
        elif csub == "Kernel Registration":
            assert "no upstream source file: the pack build generates `src/registration/RegisterAllKernels.cpp`" in line
        elif _pdsc_other(pdsc, csub):    # e.g. the Runtime's include/ folder entry: its changes are not known
            assert line.endswith("(pack files no single upstream path stands for) not compared"), line
            assert all(f"`{n}`" in line for n in _pdsc_other(pdsc, csub)), line
        else:
            assert line.endswith(": unchanged"), line

    # Arm backends: the file count counts a rename once; tests counted apart; renames shown as renames
    arm_rows = [r for r in truth["rows"] if r[-1].startswith("backends/arm/")]
    arm_tests = [r for r in arm_rows if is_test_path(r[-1])]
    arm_line = next(x for x in body.splitlines() if x.startswith("- `backends/arm/`"))
    m = re.match(r"- `backends/arm/`: (\d+) files changed \((\d+) test files\)", arm_line)
    assert m and int(m.group(1)) == len(arm_rows) and int(m.group(2)) == len(arm_tests)
    op_renames = sorted((Path(a).stem[3:], Path(b).stem[3:]) for a, b in truth["renames"]
                        if Path(a).name.startswith("op_") and not is_test_path(b))
    shown = re.findall(r"`op_(\w+)` → `op_(\w+)`", arm_line)
    assert sorted(shown) == op_renames == [("cat", "tosa_concat"), ("permute", "tosa_transpose")]
    assert "operator sources removed" not in arm_line
    added_ops = {Path(r[-1]).stem[3:] for r in arm_rows if r[0] == "A" and Path(r[-1]).name.startswith("op_")
                 and not is_test_path(r[-1])}
    assert re.search(r"operator sources added: (.*?)(;|$)", arm_line).group(1) == ", ".join(
        f"`op_{x}`" for x in sorted(added_ops))

    # passes: classes named ...Pass in non-test Python files only
    assert "DummyPass" not in body and "DummyTargetedPass" not in body
    assert "pass classes added: `FuseNewThingPass`, `FuseQuantizedActivationPass`" in arm_line


# ---------------------------------------------------------------- the whole body, through the workflow's commands
def bump_body(world, tmp_path, capsys) -> str:
    """The PR body of the sample template (with Backend EthosU and Kernel Registration selected too) bumped on the
    real-shaped upstream, made as the pull-request job makes it: ``update --plan-file --pack`` then ``publish
    --plan-file --pack --baseline --pack-url --dry-run``."""
    from bot.commands.demo import copy_template
    from helpers import run_cli
    from packgen import make_pack

    _root, repo, _pdsc, _sel = world
    template = copy_template(tmp_path / "template")
    layer = template / "ai_layer" / "ai_layer.clayer.yml"
    layer.write_text(layer.read_text() + "    - component: Machine Learning:ExecuTorch:Backend EthosU\n"
                                         "    - component: Machine Learning:ExecuTorch:Kernel Registration\n")
    for cmd in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "template"]):
        subprocess.run(["git", *cmd], cwd=template, check=True, env=git_env(), capture_output=True)
    from bot.sample.packgen import DEMO_OPS
    pack = make_pack(tmp_path / "pack", PackSpec(operators=DEMO_OPS))
    baseline = make_pack(tmp_path / "baseline", PackSpec(version="1.4.0", operators=DEMO_OPS[:-1]))
    plan = tmp_path / "plan.json"
    rc, _o, err = run_cli(capsys, "update", "--repo", template, "--upstream", repo, "--allow-flagged",
                          "--plan-file", plan, "--pack", pack.parent)
    assert rc == 0, err
    rc, out, err = run_cli(capsys, "publish", "--repo", template, "--plan-file", plan, "--pack", pack.parent,
                           "--baseline", baseline, "--pack-url",
                           "https://github.com/pytorch/executorch/releases/download/v1.5.1/PyTorch.ExecuTorch.1.5.1.pack",
                           "--upstream", "github:pytorch/executorch", "--pack-index-url", "off", "--dry-run")
    assert rc == 0, err
    return re.split(r"\nBump ExecuTorch to 1\.5\.1(?: \(blocked: [^()]*\))?\n\n", out, maxsplit=1)[1]


def test_the_whole_body_of_a_real_shaped_bump_says_what_git_and_the_pack_say(world, tmp_path, capsys):
    body = bump_body(world, tmp_path, capsys)
    _root, repo, pdsc, _sel = world
    truth = _git_truth(repo)
    up = body.split("### Upstream changes that matter", 1)[1].split("\n### ", 1)[0]
    m = re.search(r"^(\d+) files changed between the tags \((\d+) renamed files counted once", up, re.M)
    assert m and int(m.group(1)) == len(truth["rows"]) and int(m.group(2)) == len(truth["renames"])
    comps = up.split("#### Components the template selects", 1)[1].split("####", 1)[0]
    assert "(paths from the pack's `<file>` lists" in comps
    assert "VGFBackend" not in comps and "codegen/" not in comps and "kernels/test/" not in comps
    ethos = next(x for x in comps.splitlines() if x.startswith("- `Machine Learning:ExecuTorch:Backend EthosU`"))
    assert ethos.endswith(": unchanged")
    runtime = next(x for x in comps.splitlines() if x.startswith("- `Machine Learning:ExecuTorch:Runtime`"))
    assert runtime.endswith("`include/` (pack files no single upstream path stands for) not compared")
    assert "`Machine Learning:ExecuTorch:Kernel Registration`: no upstream source file" in comps
    assert "`op_cat` → `op_tosa_concat`" in up and "operator sources removed" not in up
    assert "DummyPass" not in body and "607751&#8203;" not in body and "&#8203;" not in up
    assert "nothing here blocks the merge" in body and "Blocked" not in body   # the good pack: not blocked
    assert "**Not proven by this pull request**" in body


def test_identical_content_pairs_one_to_one_only():
    from bot.upstream.source import exact_renames

    assert exact_renames({"a/op_cat.py": "s1", "a/x.py": "s2", "a/y.py": "s2"},
                         {"a/op_tosa_concat.py": "s1", "b/x.py": "s2", "b/z.py": "s3"}) == [
        ("a/op_cat.py", "a/op_tosa_concat.py")]      # s2 was two files: not guessed
