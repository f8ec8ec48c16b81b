"""run-model with a hostile CMSIS-NN pack (``--dep-pack``): a clear failure at a named stage, never an internal error.

The pack is our own sample NN pack (:func:`bot.sample.packgen.nn_pack_pdsc`) with one hostile change: a zip
member an unpacker must refuse, or a ``NN Lib`` component naming tens of thousands of header folders (the
compiler's command line is then longer than the system's ``ARG_MAX``: ``E2BIG`` from ``execve``).
"""

from __future__ import annotations

import re
import zipfile

import pytest

from test_run_model_required_packs import ccache_dir, packs, run  # noqa: F401

from bot.sample import sample_runtime
from bot.sample.packgen import nn_pack_pdsc

pytestmark = pytest.mark.needs("arm-gcc", "qemu")

GOOD = [("Include/nn_sample_functions.h", sample_runtime.NN_HEADER),
        ("Source/BasicMathFunctions/nn_sample_add_s8.c", sample_runtime.NN_ADD_C)]


def nn_pack(path, members, pdsc=None):
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("ARM.CMSIS-NN.pdsc", pdsc or nn_pack_pdsc("7.0.0"))
        for n, data in members:
            zf.writestr(n, data)
    return path


@pytest.mark.parametrize("member, problem", [
    ("..\\..\\evil.c", "entry '..\\\\..\\\\evil.c' contains a backslash"),
    ("Include/nn_sample_functions.h/x", "entry 'Include/nn_sample_functions.h' is a file and also a directory"),
])
def test_an_unsafe_member_fails_at_select_naming_the_pack_once(run, tmp_path, member, problem):  # noqa: F811
    pack = nn_pack(tmp_path / "ARM.CMSIS-NN.7.0.0.pack", [(member, "x"), *GOOD])
    code, out, result = run("--dep-pack", str(pack))
    assert (code, result["status"], result["stage"]) == (1, "fail", "select")
    assert result["error"].startswith(f"the local pack {pack}: unsafe archive: {problem}"), result["error"]
    assert not (tmp_path.parent / "evil.c").exists()


def test_too_many_header_folders_fail_at_compile_not_as_an_internal_error(run, tmp_path):  # noqa: F811
    folders = "".join(f'        <file category="header" name="Include/{"d" * 100}{i}/h.h"/>\n' for i in range(30000))
    pdsc = nn_pack_pdsc("7.0.0").replace('        <file category="doc"', folders + '        <file category="doc"', 1)
    code, out, result = run("--dep-pack", str(nn_pack(tmp_path / "ARM.CMSIS-NN.7.0.0.pack", GOOD, pdsc=pdsc)))
    assert (code, result["status"], result["stage"]) == (1, "fail", "compile")
    assert "cannot run the compiler: Argument list too long" in result["error"]
    assert re.search(r"\(\d+ arguments, 300\d\d include folders\)$", result["error"]), result["error"]
    assert "internal error" not in out
