"""Where prose mentions are looked for: C/C++ comments (not code, not raw string literals), and
only ExecuTorch's own release URLs.
"""

from __future__ import annotations

from helpers import update as _update

MAIN_CPP = '''\
// Runs a model exported with ExecuTorch 1.4.0 (the pack PyTorch::ExecuTorch@1.4.0).
/* Build notes:
 * ExecuTorch 1.4.0 needs the Ethos-U driver 1.4.0 */
static const char *kBuiltWith = "ExecuTorch 1.4.0";  // version string: code, not prose
int main() { return 0; }
'''


RAW_CPP = '''// Built for ExecuTorch 1.4.0
const char *banner = R"x(see "// ExecuTorch 1.4.0" here)x"; // ExecuTorch 1.4.0
const char *multi = u8R"(
// ExecuTorch 1.4.0 inside a raw string
)";
'''


def test_c_comments_are_prose_and_code_is_not(template, upstream_repo, capsys):
    (template / "app" / "runner.cpp").write_text(MAIN_CPP)
    (template / "app" / "runner.h").write_text("#pragma once\n// ExecuTorch 1.4.0 API\n")
    eng = template / "ai_layer" / "engine" / "include"
    eng.mkdir(parents=True)
    (eng / "vendored.h").write_text("// vendored from ExecuTorch 1.4.0\n")
    rc, out, err = _update(capsys, template, upstream_repo)
    assert rc == 0, err
    assert (template / "app" / "runner.cpp").read_text() == (
        MAIN_CPP.replace("exported with ExecuTorch 1.4.0 (the pack PyTorch::ExecuTorch@1.4.0)",
                         "exported with ExecuTorch 1.5.1 (the pack PyTorch::ExecuTorch@1.5.1)")
)
    # " * ExecuTorch 1.4.0 needs the Ethos-U driver 1.4.0" also carries 1.4.0 as bare text (the driver's
    # version, a claim the bump does not check): left as written, flagged mixed-mention
    assert "mixed-mention" in out and "runner.cpp:3" in out
    assert (template / "app" / "runner.h").read_text() == "#pragma once\n// ExecuTorch 1.5.1 API\n"
    assert (eng / "vendored.h").read_text() == "// vendored from ExecuTorch 1.4.0\n"


def test_cpp_raw_string_literals_are_code_not_comments(template, upstream_repo, capsys):
    """A ``//`` inside a C++ raw string ``R"x(...)x"`` was taken for a comment: code was edited."""
    (template / "app" / "banner.cpp").write_text(RAW_CPP)
    rc, out, err = _update(capsys, template, upstream_repo)
    assert rc == 0, err
    assert (template / "app" / "banner.cpp").read_text() == (
        RAW_CPP.replace("// Built for ExecuTorch 1.4.0", "// Built for ExecuTorch 1.5.1")
        .replace('here)x"; // ExecuTorch 1.4.0', 'here)x"; // ExecuTorch 1.5.1'))


def test_release_url_of_another_project_named_like_executorch_is_not_touched(template, upstream_repo, capsys):
    """``acme/cmsis-executorch/releases/download/v1.4.0`` is the template's own release, not ExecuTorch's."""
    doc = template / "documentation" / "firmware.md"
    text = ("# Firmware\n\nPrebuilt: https://github.com/acme/cmsis-executorch/releases/download/v1.4.0/fw.zip\n"
            "Source: https://github.com/acme/cmsis-executorch/tree/v1.4.0/app\n")
    doc.write_text(text)
    rc, out, err = _update(capsys, template, upstream_repo)
    assert rc == 0, err
    assert doc.read_text() == text
