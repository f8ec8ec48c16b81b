"""Upstream pin files past a size limit, or not valid, are refused whole: the error's message, file,
line and exit code (bot/upstream/pinfiles.py: MAX_REQUIREMENT for a logical requirement line,
MAX_REQUIRES_PYTHON for ``requires-python``; tomllib's own message for bad TOML)."""

from __future__ import annotations

import tomllib

import pytest
from packaging.requirements import InvalidRequirement, Requirement

from bot import inert
from bot.errors import UpstreamError
from bot.upstream.pinfiles import (MAX_REQUIREMENT, MAX_REQUIRES_PYTHON, QUOTE_CAP, ReqLine, parse_pyproject,
                                   parse_python, parse_requirement_file)

TAG = "v1.5.1"
REQS = "backends/arm/requirements-arm-tosa.txt"


def refused(info, path: str, line, message: str) -> None:
    err = info.value
    assert (err.path, err.line, err.exit_code, err.message) == (path, line, 2, message)


def test_a_continued_requirement_longer_than_the_limit_is_refused_at_its_first_line():
    long = "x" * (MAX_REQUIREMENT - 3)
    data = f"ml_dtypes==0.5.1\nnumpy \\\n{long}\n".encode()   # "numpy " + the long line: over the limit
    with pytest.raises(UpstreamError) as info:
        parse_requirement_file(data, REQS, TAG)
    refused(info, REQS, 2, f"line longer than {MAX_REQUIREMENT} characters @ {TAG}: not a requirement")


def test_a_requirement_line_of_exactly_the_limit_is_read():
    line = "ml_dtypes==0.5.1  #" + "c" * (MAX_REQUIREMENT - len("ml_dtypes==0.5.1  #"))
    assert len(line) == MAX_REQUIREMENT
    assert parse_requirement_file(f"{line}\n".encode(), REQS, TAG) == [
        ReqLine("ml-dtypes", "0.5.1", "==0.5.1", line=1)]


def test_a_backslash_before_trailing_white_space_continues_nothing_as_in_pip():
    with pytest.raises(UpstreamError) as exc:
        parse_requirement_file(b"tosa-tools \\   \n==2026.8.0\n", REQS, TAG)
    assert (exc.value.path, exc.value.line) == (REQS, 1)


def test_a_url_line_ending_in_a_slash_is_named_by_its_last_path_part():
    url = "https://example.com/simple/MLX/"
    assert parse_requirement_file(f"{url}\n".encode(), REQS, TAG) == [ReqLine("mlx", None, url, url=url, line=1)]


def test_a_line_that_is_not_a_requirement_is_refused_with_packagings_reason():
    logical = "tosa-tools==1.0 extra"
    try:
        Requirement(logical)
    except InvalidRequirement as exc:
        reason = inert.line(exc, cap=QUOTE_CAP)
    with pytest.raises(UpstreamError) as info:
        parse_requirement_file(f"ml_dtypes==0.5.1\n{logical}\n".encode(), REQS, TAG)
    refused(info, REQS, 2, f"not a requirement @ {TAG}: {inert.line(repr(logical), cap=QUOTE_CAP)} ({reason})")


def test_invalid_toml_is_refused_with_tomllibs_reason_and_line():
    text = '[project]\nname = "executorch"\nrequires-python = \n'
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        reason = inert.line(exc, cap=QUOTE_CAP)
    with pytest.raises(UpstreamError) as info:
        parse_pyproject(text.encode(), "pyproject.toml", TAG)
    refused(info, "pyproject.toml", 3, f"not valid TOML @ {TAG}: {reason}")


def test_deeply_nested_toml_is_refused_whole():
    with pytest.raises(UpstreamError) as info:
        parse_pyproject(("a = " + "[" * 100_000 + "]" * 100_000).encode(), "pyproject.toml", TAG)
    refused(info, "pyproject.toml", None, f"TOML nested too deeply to read @ {TAG}")


def pyproject(requires_python: str) -> bytes:
    return f'[project]\nname = "executorch"\nrequires-python = "{requires_python}"\n'.encode()


def test_a_requires_python_longer_than_the_limit_is_refused_whole():
    with pytest.raises(UpstreamError) as info:
        parse_pyproject(pyproject(">=3.10" + "," * (MAX_REQUIRES_PYTHON - 5)), "pyproject.toml", TAG)
    refused(info, "pyproject.toml", None,
            f"[project] requires-python is longer than {MAX_REQUIRES_PYTHON} characters @ {TAG}")


def test_a_requires_python_of_exactly_the_limit_is_read():
    rp = ">=3.10" + " " * (MAX_REQUIRES_PYTHON - 6)
    assert parse_pyproject(pyproject(rp), "pyproject.toml", TAG).requires_python == rp


def test_an_empty_f_string_pin_is_not_a_version():
    facts = parse_python(b'TORCH_VERSION = f""\n', "torch_pin.py", TAG)
    assert (facts.constants, facts.requirements, facts.assigned) == ({}, [], {"TORCH_VERSION": 'f""'})


def test_deeply_nested_python_is_refused_whole():
    with pytest.raises(UpstreamError) as info:
        parse_python(("X = " + "-" * 200_000 + "1\n").encode(), "install_requirements.py", TAG)
    refused(info, "install_requirements.py", None, f"Python nested too deeply to read @ {TAG}")


def test_a_python_requirement_string_of_exactly_the_limit_is_read():
    req = "torchao==0.19.0" + " " * (MAX_REQUIREMENT - len("torchao==0.19.0"))
    facts = parse_python(f'REQS = ["{req}"]\n'.encode(), "install_requirements.py", TAG)
    assert facts.requirements == [ReqLine("torchao", "0.19.0", "==0.19.0", line=1)]


def test_a_pyproject_dependency_longer_than_the_limit_is_refused_whole():
    entry = "torch==2.14.0" + " " * (MAX_REQUIREMENT - len("torch==2.14.0") + 1)
    data = f'[project]\nname = "executorch"\ndependencies = ["{entry}"]\n'.encode()
    with pytest.raises(UpstreamError) as info:
        parse_pyproject(data, "pyproject.toml", TAG)
    refused(info, "pyproject.toml", None,
            f"[project.dependencies] has an entry longer than {MAX_REQUIREMENT} characters @ {TAG}")


def test_a_pyproject_dependency_of_exactly_the_limit_is_read():
    entry = "torch==2.14.0" + " " * (MAX_REQUIREMENT - len("torch==2.14.0"))
    data = f'[project]\nname = "executorch"\ndependencies = ["{entry}"]\n'.encode()
    assert parse_pyproject(data, "pyproject.toml", TAG).dependencies == [ReqLine("torch", "2.14.0", "==2.14.0")]


def test_a_pyproject_dependency_that_is_not_a_requirement_is_refused_with_packagings_reason():
    item = "torch==2.14.0 extra"
    try:
        Requirement(item)
    except InvalidRequirement as exc:
        reason = inert.line(exc, cap=QUOTE_CAP)
    data = f'[project]\nname = "executorch"\ndependencies = ["{item}"]\n'.encode()
    with pytest.raises(UpstreamError) as info:
        parse_pyproject(data, "pyproject.toml", TAG)
    refused(info, "pyproject.toml", None, f"[project.dependencies] entry {inert.line(repr(item), cap=QUOTE_CAP)} "
            f"is not a requirement @ {TAG} ({reason})")


def test_a_non_string_pin_is_quoted_as_its_source_on_one_line_and_cut_when_longer():
    first = "f(" + "a" * 197 + ","    # exactly QUOTE_CAP characters on the expression's first line
    assert len(first) == QUOTE_CAP
    src = f'TORCH_VERSION = get(\n    "x",\n)\nT2 = get("\u00e9")  # c\nT3 = {first}\n    b,\n)\n'
    facts = parse_python(src.encode(), "torch_pin.py", TAG)
    assert facts.assigned == {"TORCH_VERSION": 'get(     "x", )', "T2": 'get("\u00e9")', "T3": first + "\u2026"}
    assert facts.constants == {}
