"""build-pack's release flatc against odd inputs: a base.h whose version macro is a run of thousands of digits
is no version (int() refused it: a traceback), and an installed executorch whose metadata version could carry a
workflow command is not shown in flatc's origin."""

from __future__ import annotations

import sys

from bot.pack.wheel_flatc import package_flatc, tree_flatbuffers_version


def test_a_version_macro_of_thousands_of_digits_is_no_version(tmp_path):
    inc = tmp_path / "third-party/flatbuffers/include/flatbuffers"
    inc.mkdir(parents=True)
    (inc / "base.h").write_text("#define FLATBUFFERS_VERSION_MAJOR " + "9" * 5000 + "\n"
                                "#define FLATBUFFERS_VERSION_MINOR 3\n#define FLATBUFFERS_VERSION_REVISION 25\n")
    assert tree_flatbuffers_version(tmp_path) is None
    (inc / "base.h").write_text("#define FLATBUFFERS_VERSION_MAJOR 024\n#define FLATBUFFERS_VERSION_MINOR 3\n"
                                "#define FLATBUFFERS_VERSION_REVISION 25\n")
    assert tree_flatbuffers_version(tmp_path) == ("24.3.25", __import__("pathlib").Path(
        "third-party/flatbuffers/include/flatbuffers/base.h"))


def _python(tmp_path, version: str):
    pkg = tmp_path / "site" / "executorch"
    (pkg / "data/bin").mkdir(parents=True)
    (pkg / "data/bin/flatc").write_text("#!/bin/sh\n")
    script = tmp_path / "py"
    script.write_text("#!/bin/sh\nexec %s -c 'import json,sys; print(json.dumps({\"locations\": [sys.argv[1]], "
                      "\"version\": sys.argv[2]}))' %s %s\n" % (sys.executable, pkg, repr(version)))
    script.chmod(0o755)
    return str(script), pkg


def test_a_metadata_version_holding_a_workflow_command_is_not_shown(tmp_path):
    py, pkg = _python(tmp_path, "1.4.1\n::error::pwned")
    flatc = package_flatc(py)
    assert flatc.path == pkg / "data/bin/flatc"
    assert flatc.origin == f"the executorch package of {py}"
    py, _ = _python(tmp_path / "ok", "1.4.1")
    assert package_flatc(py).origin == f"the executorch 1.4.1 package of {py}"
