"""Reading upstream's pin files (requirement files, Python modules, pyproject.toml), asserted whole:
each requirement line's name, version, spec, url, line, via and problem, the sentence saying why a
line gives no pin, and the whole error of a file that does not parse (ExecuTorch's pin files at tags v1.0.0 to v1.4.1)."""

from __future__ import annotations

import pytest

from bot.errors import UpstreamError
from bot.upstream.pinfiles import ReqLine, parse_pyproject, parse_python, parse_requirement_file

TOSA = "backends/arm/requirements-arm-tosa.txt"


def test_every_requirement_of_a_requirement_file_is_read_whole():
    text = (b"\xef\xbb\xbf# comment\n"
            b"-r other.txt\n"
            b"ml_dtypes == 0.5.1 ; python_version >= '3.10'  # serializer\n"
            b"Flatbuffers===24.3.25 \\\n"
            b"    --hash=sha256:abc\n"
            b"git+https://example.invalid/x/Tosa_Tools.git@v2025.07.1\n"
            b"hg+https://example.invalid/x/serializer/#subdirectory=py&egg=Tosa.Serializer\n"
            b"numpy>=2,<3 --config-settings=x=1\n"
            b"pybind11==2.*\n"
            b"scipy\n")
    assert parse_requirement_file(text, TOSA, "v1.5.1") == [
        ReqLine("ml-dtypes", "0.5.1", "== 0.5.1", line=3),
        ReqLine("flatbuffers", "24.3.25", "===24.3.25", line=4),
        ReqLine("tosa-tools", None, "git+https://example.invalid/x/Tosa_Tools.git@v2025.07.1",
                url="git+https://example.invalid/x/Tosa_Tools.git@v2025.07.1", line=6),
        ReqLine("tosa-serializer", None, "hg+https://example.invalid/x/serializer/#subdirectory=py&egg=Tosa.Serializer",
                url="hg+https://example.invalid/x/serializer/#subdirectory=py&egg=Tosa.Serializer", line=7),
        ReqLine("numpy", None, ">=2,<3", line=8),
        ReqLine("pybind11", None, "==2.*", line=9),
        ReqLine("scipy", None, "", line=10),
    ]


def test_a_url_line_without_egg_is_named_by_its_last_path_part():
    [r] = parse_requirement_file(b"git+https://example.invalid/x/tosa-tools/#frag\n", TOSA, "v1.0.0")
    assert (r.name, r.url, r.line) == ("tosa-tools", "git+https://example.invalid/x/tosa-tools/#frag", 1)


def test_continuations_join_and_the_line_is_the_first_one():
    text = b"numpy==2.1.0\ntosa-tools \\\n  == \\\n  2026.8.0\nml_dtypes==0.5.1\n"
    assert [(r.name, r.version, r.line) for r in parse_requirement_file(text, TOSA, "v1.5.1")] == [
        ("numpy", "2.1.0", 1), ("tosa-tools", "2026.8.0", 2), ("ml-dtypes", "0.5.1", 5)]


@pytest.mark.parametrize("req, why", [
    (ReqLine("x", None, "==1", problem="broken"), "broken"),
    (ReqLine("x", None, "git+https://h/x", url="git+https://h/x"), "pinned by a URL (git+https://h/x), not a version"),
    (ReqLine("x", None, ""), "no version pin"),
    (ReqLine("x", None, " ==1.*"), "no exact version (x ==1.*)"),
    (ReqLine("x", None, ">=1"), "only a range (x>=1)"),
])
def test_why_a_line_gives_no_pin(req, why):
    assert req.why_unresolved() == why


def test_an_arbitrary_equality_pin_keeps_its_text_and_an_exact_pin_is_normalised():
    text = b"a===1.0\nb==1.0.0.0\nc===not-a-version\nd==1.0,<2\n"
    assert [(r.name, r.version) for r in parse_requirement_file(text, TOSA, "v1")] == [
        ("a", "1.0"), ("b", "1.0.0.0"), ("c", None), ("d", None)]


def test_an_operator_without_version_is_unresolved_with_its_spec():
    [r] = parse_requirement_file(b"ethos-u-vela[x] >= 5.0, <\n", TOSA, "v1.5.1")
    assert (r.name, r.version, r.spec, r.line, r.url) == ("ethos-u-vela", None, ">= 5.0, <", 1, None)
    assert r.problem is not None


def test_a_line_that_is_not_a_requirement_is_a_whole_error():
    with pytest.raises(UpstreamError) as info:
        parse_requirement_file(b"numpy==2\n\ntorch>=>1\n", TOSA, "v1.5.1")
    err = info.value
    assert (err.path, err.line, err.exit_code) == (TOSA, 3, 2)
    assert err.message.startswith("not a requirement @ v1.5.1: 'torch>=>1' (")


def test_a_file_that_is_not_utf8_is_a_whole_error():
    with pytest.raises(UpstreamError) as info:
        parse_requirement_file(b"torch==2.14.0\n\xff\n", TOSA, "v1.5.1")
    assert (info.value.path, info.value.line, info.value.message) == (TOSA, None, "not UTF-8 text @ v1.5.1")


def test_python_constants_and_requirement_strings_are_read_whole():
    src = (b'A = B = "2.14.0"\n'
           b'X, Y = "1", "2"\n'
           b'N = 3\n'
           b'V = "0.19.0"\n'
           b'REQS = [\n'
           b'    "torch==2.14.0",\n'
           b'    f"torchao=={V}",\n'
           b'    f"torchvision=={V!r}",\n'
           b'    f"numpy=={V:>5}",\n'
           b'    "not a requirement",\n'
           b'    "ethos-u-vela >= 5.0",\n'
           b'    "bad==1 ;",\n'
           b']\n')
    facts = parse_python(src, "install_requirements.py", "v1.5.1")
    assert facts.constants == {"A": "2.14.0", "B": "2.14.0", "V": "0.19.0"}
    assert facts.assigned == {"A": '"2.14.0"', "B": '"2.14.0"', "N": "3", "V": '"0.19.0"',
                              "REQS": facts.assigned["REQS"]}
    assert facts.requirements == [
        ReqLine("torch", "2.14.0", "==2.14.0", line=6),
        ReqLine("torchao", "0.19.0", "==0.19.0", line=7, via="V"),
        ReqLine("torchvision", None, "==", line=8,
                problem="an f-string whose placeholder is not a module-level string constant"),
        ReqLine("numpy", None, "==", line=9,
                problem="an f-string whose placeholder is not a module-level string constant"),
        ReqLine("ethos-u-vela", None, ">= 5.0", line=11),
    ]


def test_an_fstring_naming_two_constants_names_both():
    facts = parse_python(b'A = "1"\nB = "2"\nR = f"torch=={A}.{B}.0"\n', "install_requirements.py", "v1")
    assert facts.requirements == [ReqLine("torch", "1.2.0", "==1.2.0", line=3, via="A B")]


def test_an_fstring_that_does_not_start_like_a_requirement_is_ignored():
    facts = parse_python(b'def f(v):\n    return [f"{v}==1", f"see {v}", f"torch"]\n', "install_requirements.py", "v1")
    assert facts.requirements == []


def test_python_that_does_not_parse_is_a_whole_error():
    with pytest.raises(UpstreamError) as info:
        parse_python(b"A = 1\nB = (\n", "torch_pin.py", "v1.5.1")
    err = info.value
    assert (err.path, err.line) == ("torch_pin.py", 2)
    assert err.message.startswith("not valid Python @ v1.5.1: ")


def test_pyproject_dependencies_extras_and_requires_python_are_read_whole():
    text = (b'[project]\nrequires-python = ">=3.10"\n'
            b'dependencies = ["torch==2.14.0", 3, "torchao>=0.19"]\n'
            b'[project.optional-dependencies]\nEthos_U = ["ethos-u-vela==5.2.0"]\nnone = "x"\n')
    facts = parse_pyproject(text, "pyproject.toml", "v1.5.1")
    assert facts.requires_python == ">=3.10"
    assert facts.dependencies == [ReqLine("torch", "2.14.0", "==2.14.0"), ReqLine("torchao", None, ">=0.19")]
    assert facts.extras == {"ethos-u": ("Ethos_U", [ReqLine("ethos-u-vela", "5.2.0", "==5.2.0")]), "none": ("none", [])}


@pytest.mark.parametrize("text", [b'requires-python = "3"\n', b'project = 3\n',
                                  b'[project]\nrequires-python = 3\ndependencies = "torch"\n'])
def test_a_pyproject_without_a_usable_project_table_gives_nothing(text):
    facts = parse_pyproject(text, "pyproject.toml", "v1")
    assert (facts.dependencies, facts.extras, facts.requires_python) == ([], {}, None)


@pytest.mark.parametrize("text, line", [(b'[project]\nname = "x"\nversion = \nx = 1\n', 3),
                                        (b'[project]\ndependencies = [\n', None)])   # "at end of document"
def test_a_pyproject_that_is_not_toml_is_a_whole_error_with_the_line(text, line):
    with pytest.raises(UpstreamError) as info:
        parse_pyproject(text, "pyproject.toml", "v1.5.1")
    err = info.value
    assert (err.path, err.line) == ("pyproject.toml", line)
    assert err.message.startswith("not valid TOML @ v1.5.1: ")


def test_a_pyproject_dependency_that_is_not_a_requirement_is_a_whole_error():
    with pytest.raises(UpstreamError) as info:
        parse_pyproject(b'[project.optional-dependencies]\narm = ["ethos-u-vela>=>5"]\n', "pyproject.toml", "v1.5.1")
    err = info.value
    assert (err.path, err.line) == ("pyproject.toml", None)
    assert err.message.startswith("[project.optional-dependencies] arm entry 'ethos-u-vela>=>5' is not a "
                                  "requirement @ v1.5.1 (")


@pytest.mark.parametrize("parse, path", [(parse_pyproject, "pyproject.toml"), (parse_python, "torch_pin.py")])
def test_a_pyproject_or_python_file_that_is_not_utf8_is_a_whole_error(parse, path):
    with pytest.raises(UpstreamError) as info:
        parse(b"\xff\xfe", path, "v1.5.1")
    assert (info.value.path, info.value.line, info.value.message) == (path, None, "not UTF-8 text @ v1.5.1")


def test_a_backslash_right_after_the_operator_continues_the_line():
    [r] = parse_requirement_file(b"tosa-tools==\\\n2026.8.0\n", TOSA, "v1.5.1")
    assert (r.name, r.version, r.spec, r.line) == ("tosa-tools", "2026.8.0", "==2026.8.0", 1)   # joined as pip joins


def test_python_requirements_are_in_line_order_whatever_their_nesting():
    src = (b'X = dict(a=[("torch==2.14.0", 1)])\n'
           b'Y = "torchao==0.19.0"\n'
           b'Z = ["bad==1 ;", "ethos-u-vela==5.2.0"]\n')
    facts = parse_python(src, "install_requirements.py", "v1.5.1")
    assert [(r.name, r.line) for r in facts.requirements] == [("torch", 1), ("torchao", 2), ("ethos-u-vela", 3)]


def test_a_pyproject_dependency_that_is_not_a_requirement_names_the_table():
    with pytest.raises(UpstreamError) as info:
        parse_pyproject(b'[project]\ndependencies = ["torch>=>1"]\n', "pyproject.toml", "v1.5.1")
    assert (info.value.path, info.value.line) == ("pyproject.toml", None)
    assert info.value.message.startswith("[project.dependencies] entry 'torch>=>1' is not a requirement @ v1.5.1 (")


def test_an_exact_pin_is_normalised_and_an_arbitrary_equality_pin_keeps_its_text():
    text = b"torch==v2.14.0\nml_dtypes===01.0\n"
    assert [(r.name, r.version) for r in parse_requirement_file(text, TOSA, "v1.5.1")] == [
        ("torch", "2.14.0"), ("ml-dtypes", "01.0")]
