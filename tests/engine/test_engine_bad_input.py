"""Bad input gets a clear error naming the file and line, a non-zero exit, and nothing lost.

Each test checks the message, the exit code, and that the template tree is
byte-identical afterwards.
"""

from __future__ import annotations

import os
import subprocess

import pytest

from helpers import assert_refused, run_cli, snapshot
from helpers import update as _update


def test_invalid_yaml_in_a_csolution(template, upstream_repo, capsys):
    p = template / "cmsis-executorch.csolution.yml"
    p.write_text(p.read_text().replace("  target-types:\n", "  target-types: [\n"))
    assert_refused(capsys, template, upstream_repo, message=["cmsis-executorch.csolution.yml:"])


def test_non_utf8_file_with_a_mention(template, upstream_repo, capsys):
    p = template / "documentation" / "latin1.md"
    p.write_bytes(b"ExecuTorch 1.4.0 caf\xe9\n")
    assert_refused(capsys, template, upstream_repo, message=["documentation/latin1.md:1:", "not UTF-8"])


def test_non_utf8_file_without_a_mention_is_skipped(template, upstream_repo, capsys):
    p = template / "documentation" / "latin1.md"
    p.write_bytes(b"caf\xe9 au lait\n")
    rc, _, err = _update(capsys, template, upstream_repo)
    assert rc == 0, err
    assert p.read_bytes() == b"caf\xe9 au lait\n"


def test_crlf_bom_and_missing_final_newline_are_kept(template, upstream_repo, capsys):
    sol = template / "cmsis-executorch.csolution.yml"
    crlf = sol.read_bytes().replace(b"\n", b"\r\n")
    sol.write_bytes(crlf)
    req = template / "requirements.txt"
    req.write_bytes(b"\xef\xbb\xbf" + req.read_bytes().rstrip(b"\n"))
    rc, _, err = _update(capsys, template, upstream_repo)
    assert rc == 0, err
    # only the version bytes differ: the pin, the build comment and the "(ExecuTorch 1.4.0)" comment
    assert sol.read_bytes() == crlf.replace(b"PyTorch::ExecuTorch@1.4.0", b"PyTorch::ExecuTorch@1.5.1").replace(
        b"(ExecuTorch 1.4.0)", b"(ExecuTorch 1.5.1)")
    new_req = req.read_bytes()
    assert new_req.startswith(b"\xef\xbb\xbf") and not new_req.endswith(b"\n")
    assert b"executorch==1.5.1\n" in new_req and b"\r" not in new_req


def test_two_different_executorch_pins(template, upstream_repo, capsys):
    p = template / "app" / "app.cproject.yml"
    p.write_text(p.read_text().replace("@1.4.0", "@1.3.0"))
    _, err = assert_refused(capsys, template, upstream_repo,
                            message=["pins disagree", "error: app/app.cproject.yml:4:",
                                     "1.3.0: 1 pin (app/app.cproject.yml:4)"])


def test_hash_pinned_requirement(template, upstream_repo, capsys):
    p = template / "requirements-executorch.txt"
    p.write_text("executorch==1.4.0 \\\n    --hash=sha256:" + "1" * 64 + "\\\n    --hash=sha256:" + "2" * 64
                 + "\ntorch==2.13.0\n")
    # not bad input: a blocking item naming the line and the command that regenerates hashes (exit 1, nothing written)
    assert_refused(capsys, template, upstream_repo, code=1,
                   message=["requirements-executorch.txt:1", "pip-compile --generate-hashes", "[hashed-pin]"])


def test_unknown_target_version(template, upstream_repo, capsys):
    assert_refused(capsys, template, upstream_repo, "--version", "9.9.9", message=["9.9.9"])


def test_malformed_target_version(template, upstream_repo, capsys):
    assert_refused(capsys, template, upstream_repo, "--version", "1.5.1; rm -rf /", message=["not a release version"])


def test_rc_target_without_allow_prerelease(template, upstream_repo, capsys):
    assert_refused(capsys, template, upstream_repo, "--version", "1.5.1-rc1", message=["--allow-prerelease"])


def test_upstream_without_the_pin_files(template, tmp_path, capsys):
    bare = tmp_path / "empty-upstream"
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid")
    subprocess.run(["git", "init", "-q", str(bare)], check=True)
    (bare / "README.md").write_text("not executorch\n")
    subprocess.run(["git", "-C", str(bare), "add", "."], check=True)
    subprocess.run(["git", "-C", str(bare), "commit", "-qm", "x"], check=True, env=env)
    subprocess.run(["git", "-C", str(bare), "tag", "v1.5.1"], check=True)
    out, err = assert_refused(capsys, template, bare, code=1, message=["torch"])
    assert "Nothing written" in out


def test_not_a_repository(tmp_path, upstream_repo, capsys):
    rc, _, err = run_cli(capsys, "update", "--repo", tmp_path / "nope", "--upstream", upstream_repo)
    assert rc == 2 and "not a directory" in err


def test_read_only_file(template, upstream_repo, capsys):
    p = template / "requirements.txt"
    p.chmod(0o444)
    try:
        assert_refused(capsys, template, upstream_repo, message=["requirements.txt", "read-only"])
    finally:
        p.chmod(0o644)


def test_symlink_pointing_outside_the_repo(template, upstream_repo, tmp_path, capsys):
    outside = tmp_path / "outside.txt"
    outside.write_text("executorch==1.4.0\n")
    (template / "requirements-extra.txt").symlink_to(outside)
    out, _ = assert_refused(capsys, template, upstream_repo, code=1,
                            message=["requirements-extra.txt", "symbolic link"])
    assert outside.read_text() == "executorch==1.4.0\n"


def test_flagged_pin_blocks_unless_allowed_or_set(template, upstream_repo, capsys):
    # A range pin for ExecuTorch in a cproject is flagged: exit 1, nothing written.
    p = template / "model" / "model.cproject.yml"
    p.write_text(p.read_text().replace('"PyTorch::ExecuTorch@1.4.0"', '"PyTorch::ExecuTorch@^1.4.0"'))
    out, _ = assert_refused(capsys, template, upstream_repo, code=1, message=["range"])
    before = snapshot(template)
    rc, out, _ = _update(capsys, template, upstream_repo, "--allow-flagged")
    assert rc == 0
    assert snapshot(template) != before
    assert "PyTorch::ExecuTorch@^1.4.0" in p.read_text()  # the flagged range itself is left alone


def test_bad_set_argument(template, upstream_repo, capsys):
    assert_refused(capsys, template, upstream_repo, "--set", "torchao", message=["NAME=VERSION"])


def test_file_changed_between_plan_and_apply(template, upstream_repo):
    from bot import engine
    from bot.errors import TemplateError
    from bot.upstream.git import GitSource

    plan = engine.plan(template, GitSource(upstream_repo))
    (template / "requirements.txt").write_text("executorch==1.4.0\n# edited by a human meanwhile\n")
    before = snapshot(template)
    with pytest.raises(TemplateError, match="changed on disk"):
        engine.apply(plan)
    assert snapshot(template) == before


def test_failed_rename_rolls_back(template, upstream_repo, monkeypatch):
    from bot import engine, textfile
    from bot.upstream.git import GitSource

    plan = engine.plan(template, GitSource(upstream_repo))
    before = snapshot(template)
    calls = {"n": 0}
    real_replace = os.replace

    def flaky(src, dst):
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError(28, "No space left on device", str(dst))
        return real_replace(src, dst)

    monkeypatch.setattr(textfile.os, "replace", flaky)
    with pytest.raises(Exception, match="nothing was changed"):
        engine.apply(plan)
    assert snapshot(template) == before
    assert not [p for p in template.rglob(".epb-*")]
