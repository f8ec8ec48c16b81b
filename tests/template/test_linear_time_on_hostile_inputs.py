"""Upstream and pack text is read in time linear in its size, whatever its shape.

Each hostile input is built here (runs of white space where a pattern used to
backtrack over them, a block of blank lines in ``<RTE_Components_h>``, many
long string constants).  The budget is a ratio to a linear scan of the same
input measured in the same run (a pure-Python pass over every character),
never a wall-clock constant: a quadratic pattern on these inputs costs
thousands of scans, the linear code a few.
"""

from __future__ import annotations

import time

import pytest

from bot.errors import UpstreamError
from bot.pack.pdsc import MAX_DEFINES_TEXT, PdscError, parse_pdsc
from bot.template.pep508 import empty_operator
from bot.upstream.pinfiles import MAX_REQUIREMENT, parse_pyproject, parse_python, parse_requirement_file

#: Most scans of the input the code under test may cost (the linear code costs 0-3 here; the
#: quadratic patterns it replaced cost 65 to many thousands on the same inputs).
BUDGET = 10


def _best(fn, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def _scan(text) -> int:
    n = 0
    for ch in text:
        n += ch == " " or ch == 32
    return n


def assert_linear(fn, text, budget: float = BUDGET):
    """``fn()`` costs at most ``budget`` linear scans of ``text``.

    The two are timed in turns (scan, fn, scan, fn ...), five rounds, and the best of each is
    compared, so a load spike from another process hits both or neither: the ratio, not a time,
    decides (a quadratic pattern on these inputs costs hundreds to thousands of scans).
    """
    ref = took = float("inf")
    for _ in range(5):
        ref = min(ref, _best(lambda: _scan(text), repeat=1))
        took = min(took, _best(fn, repeat=1))
    assert took <= budget * ref, f"{took:.4f} s is {took / ref:.0f} scans of the input (budget {budget})"


def test_requirement_lines_with_long_runs_of_spaces():
    # two white-space runs filling the per-line cap in each of 20 lines: '\s+--' split it quadratically
    pad = " " * (MAX_REQUIREMENT // 2 - 50)
    data = "".join(f"pkg{i}{pad}==1.{i}{pad}# note\n" for i in range(20)).encode()
    reqs = parse_requirement_file(data, "backends/arm/requirements-arm-tosa.txt", "v1.5.1")
    assert [(r.name, r.version) for r in reqs[:2]] == [("pkg0", "1.0"), ("pkg1", "1.1")]
    assert_linear(lambda: parse_requirement_file(data, "r.txt", "v1.5.1"), data)


def test_requirement_line_over_the_cap_is_refused_naming_the_line():
    data = b"ml_dtypes == 0.5.1\n" + b"x" + b" " * MAX_REQUIREMENT + b"==1\n"
    with pytest.raises(UpstreamError) as exc:
        parse_requirement_file(data, "backends/arm/requirements-arm-tosa.txt", "v1.5.1")
    assert (exc.value.path, exc.value.line) == ("backends/arm/requirements-arm-tosa.txt", 2)


def test_python_string_constants_full_of_spaces():
    # '^\s*NAME\s*(\[...\])?\s*(==...)' backtracked quadratically over 'torch<spaces>x'
    pad = " " * (MAX_REQUIREMENT - 20)
    src = "".join(f'C{i} = "torch{pad}x"\nS{i} = "{" " * 40_000}"\n' for i in range(10)) + 'T = "torch==2.14.0"\n'
    data = src.encode()
    facts = parse_python(data, "install_requirements.py", "v1.5.1")
    assert [(r.name, r.version) for r in facts.requirements] == [("torch", "2.14.0")]
    assert_linear(lambda: parse_python(data, "install_requirements.py", "v1.5.1"), data)


def test_many_module_level_assignments():
    # ast.get_source_segment split the whole file once per assignment
    data = "".join(f"V{i} = ({i} +\n {i})\n" for i in range(5_000)).encode()
    facts = parse_python(data, "torch_pin.py", "v1.5.1")
    assert facts.assigned["V7"] == "7 +  7"
    # ast.parse itself costs about 20 scans of a file of short lines; one split per assignment cost thousands
    assert_linear(lambda: parse_python(data, "torch_pin.py", "v1.5.1"), data, budget=200)


def test_requirement_head_with_spaces_and_no_operator():
    text = "a[" + "\n " * 50_000 + "\n"
    assert empty_operator(text) is None
    assert_linear(lambda: empty_operator(text), text)


def _pdsc(block: str) -> bytes:
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<package schemaVersion="1.7"><vendor>PyTorch</vendor>'
            '<name>ExecuTorch</name><components><component Cclass="Machine Learning" Cgroup="ExecuTorch" '
            f'Csub="Runtime" Cversion="1.5.1"><RTE_Components_h>{block}</RTE_Components_h></component>'
            '</components></package>\n').encode()


def test_rte_components_block_of_blank_lines():
    # '^\s*#' under re.M spanned the newlines from every line start and backtracked over all of them
    # when no '#' followed (30,000 lines: 8 s before; the cost grew with the square of the count)
    data = _pdsc("\n" * 30_000 + "/* end */\n  #define RTE_ML_EXECUTORCH_RUNTIME  1  \n" + "   \n" * 30_000 + "x")
    comp = parse_pdsc(data, "PyTorch.ExecuTorch.pdsc").components[0]
    assert comp.defines == ("RTE_ML_EXECUTORCH_RUNTIME=1",)
    assert_linear(lambda: parse_pdsc(data, "PyTorch.ExecuTorch.pdsc"), data)


def test_define_with_a_long_run_of_trailing_spaces():
    data = _pdsc("#define A" + " " * 100_000 + "x" + " " * 100_000 + "\n")
    assert parse_pdsc(data, "p.pdsc").components[0].defines == ("A=x",)
    assert_linear(lambda: parse_pdsc(data, "p.pdsc"), data)


def test_rte_components_block_over_the_cap_is_refused_naming_the_line():
    with pytest.raises(PdscError) as exc:
        parse_pdsc(_pdsc("\n" * (MAX_DEFINES_TEXT + 1)), "PyTorch.ExecuTorch.pdsc")
    assert (exc.value.path, exc.value.line) == ("PyTorch.ExecuTorch.pdsc", 2)


@pytest.mark.parametrize("src", [
    "X = " + "-" * 200_000 + "1\n",
    "X = " + "1+" * 200_000 + "1\n",
    "X = f" + "()" * 100_000 + "\n",
])
def test_deeply_nested_python_is_an_upstream_error_naming_the_file(src):
    with pytest.raises(UpstreamError) as exc:
        parse_python(src.encode(), "install_requirements.py", "v1.5.1")
    assert exc.value.path == "install_requirements.py"
    assert "nested too deeply" in exc.value.message


@pytest.mark.parametrize("src", ["a = " + "[" * 100_000 + "]" * 100_000, "a = " + "{x=" * 50_000 + "1" + "}" * 50_000])
def test_deeply_nested_toml_is_an_upstream_error_naming_the_file(src):
    with pytest.raises(UpstreamError) as exc:
        parse_pyproject(src.encode(), "pyproject.toml", "v1.5.1")
    assert exc.value.path == "pyproject.toml"
    assert "nested too deeply" in exc.value.message


def test_long_requires_python_is_refused():
    data = ('[project]\nname = "executorch"\nrequires-python = ">=3.10' + "," * 1000 + '"\n').encode()
    with pytest.raises(UpstreamError) as exc:
        parse_pyproject(data, "pyproject.toml", "v1.5.1")
    assert exc.value.path == "pyproject.toml" and "requires-python" in exc.value.message


def test_template_requirement_line_with_long_runs_of_spaces_and_no_comment():
    # pip's comment pattern '(^|\s+)#' retried '\s+' from every space of a run: 4 s for a 40 KB line
    from bot.template.requirements import parse
    from bot.textfile import TextDocument
    text = "torch" + " " * 20_000 + "==2.13.0" + " " * 20_000 + "x\n" + "executorch==1.4.0" + " " * 20_000 + "# pin\n"
    doc = TextDocument("requirements.txt", text)
    try:
        parse(doc)
    except Exception:
        pass   # the first line is not a requirement: only the time to say so matters here
    assert_linear(lambda: _parse_quietly(parse, doc), text)


def _parse_quietly(parse, doc):
    try:
        parse(doc)
    except Exception:
        pass


@pytest.mark.parametrize("text", [
    "cd executorch\n" + "git checkout " * 20000 + "abcdef1\n",                    # many verbs before one SHA
    "cd executorch\ngit checkout " + "abcdef1 " * 20000 + "# " * 20000 + "\n",    # many SHAs, a long comment
    "FetchContent_Declare(executorch\n" + "  GIT_TAG abcdef1 #" + " #" * 20000 + "\n)\n",
    "steps:\n  - with:\n      repository: pytorch/executorch\n" + "      ref: abcdef1  #\n" * 5000,
])
def test_commit_pins_in_long_lines_and_many_pins(text):
    """A template's CMake, script or workflow text with ExecuTorch commit pins is read in linear time.  The
    budget covers making a pin per line (5000 workflow pins took 11 scans on a loaded machine); a quadratic
    read costs thousands."""
    from bot.template.commitpins import find_commit_pins
    from bot.template.scripts import ExecutorchRefs
    from bot.textfile import TextDocument
    doc = TextDocument("CMakeLists.txt", text)
    assert_linear(lambda: [find_commit_pins(doc, kind, ExecutorchRefs(text)) for kind in ("cmake", "workflow")], text,
                  budget=40)


def test_many_git_commands_with_shas_in_a_script():
    """One pin per 21-character line: the budget covers making 20000 pins (a few scans each); the nearest
    ``cd`` line above each command, looked for from the start of the text, cost thousands of scans."""
    from bot.template.commitpins import find_commit_pins
    from bot.template.scripts import ExecutorchRefs
    from bot.textfile import TextDocument
    text = "git clone https://github.com/pytorch/executorch.git\ncd executorch\n" + "git checkout abcdef1\n" * 20000
    doc = TextDocument("setup.sh", text)
    assert len(find_commit_pins(doc, "script", ExecutorchRefs(text))) == 20000
    assert_linear(lambda: find_commit_pins(doc, "script", ExecutorchRefs(text)), text, budget=40)


def test_dashboard_body_of_newlines_and_blanks_for_the_ticked_box():
    # '^\s*[-*] \[[xX]\] Check now' under re.M retried '\s*' across lines from every line start: 32k newlines, 3.2 s
    from bot.events.dashboard import _TICKED
    text = "\n" * 32_000 + " " * 32_000 + "- [ ] Check now\n"
    assert _TICKED.search(text) is None
    assert _TICKED.search("\n\n   - [x] Check now (tick)") is not None
    assert_linear(lambda: _TICKED.search(text), text)


def test_gitmodules_path_line_with_a_long_run_of_spaces(tmp_path):
    # '^\s*path\s*=\s*(.+?)\s*$' under re.M: the lazy value and '\s*$' retried each other, 40k spaces 3.1 s
    from bot.template.submodules import declared_paths
    text = '[submodule "sdk"]\n\tpath = sdk' + " " * 40_000 + "x\n\tpath =" + " " * 40_000 + "\n  path = board/bsp  \n"
    (tmp_path / ".gitmodules").write_text(text)
    assert declared_paths(tmp_path) == frozenset({"sdk" + " " * 40_000 + "x", "board/bsp"})
    assert_linear(lambda: declared_paths(tmp_path), text)


def test_command_first_line_of_blanks_and_foreign_urls():
    from bot import inert
    from bot.events.verbs import parse
    text = "/executorch-pack-bot " + " \t" * 20_000 + "x" + "https:" * 5_000 + "www" * 5_000 + "\r" * 10_000
    assert parse(text).verb.startswith("xhttps:")
    assert_linear(lambda: parse(text), text)
    assert_linear(lambda: inert.markdown(text, cap=len(text)), text, budget=40)   # the neutraliser: several passes
