"""Unit tests of the GitHub layer against the fake server: retries, releases (by version), contents, assets, index,
Actions I/O, config, report, and the check / fetch-pack / publish commands."""

from __future__ import annotations

import pytest

from bot.cli import main
from bot.errors import CheckFailed, PackError, PlatformError, UsageError
from fakegithub import (TEMPLATE, UPSTREAM, FakeGitHub, Fault, add_sample_release, fresh_checkout,
                        make_template_remote, pypi_json)


@pytest.fixture
def fake(monkeypatch):
    f = FakeGitHub()
    url = f.start()
    monkeypatch.setenv("GITHUB_API_URL", url)
    monkeypatch.setenv("EXECUTORCH_PACK_BOT_INDEX_URL", url)
    monkeypatch.setenv("EXECUTORCH_PACK_BOT_MAX_WAIT", "0")
    monkeypatch.setenv("EXECUTORCH_PACK_BOT_WRITE_PAUSE", "0")
    for k in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_ACTIONS", "EXECUTORCH_PACK_BOT_CACHE", "GITHUB_TOKEN"):
        monkeypatch.delenv(k, raising=False)
    yield f
    f.stop()


def source():
    from bot.github.source import GitHubSource
    return GitHubSource.from_spec(f"github:{UPSTREAM}")


# ------------------------------------------------------------------ retries
@pytest.mark.parametrize("status,body,headers", [
    (502, {"message": "Bad Gateway"}, {}),
    (429, {"message": "Too Many Requests"}, {"Retry-After": "5"}),
    (403, {"message": "You have exceeded a secondary rate limit."}, {}),
    (403, {"message": "Forbidden"}, {"Retry-After": "30"}),
])
def test_transient_faults_are_retried(fake, status, body, headers):
    fake.add_release(UPSTREAM, "v1.5.1")
    fake.faults.append(Fault("GET", "/releases", status, body, headers))
    assert source().tags() == ["v1.5.1"]
    assert fake.count("GET", "/releases") == 2


def test_non_transient_403_is_not_retried(fake):
    fake.add_release(UPSTREAM, "v1.5.1")
    fake.faults.append(Fault("GET", "/releases", 403, {"message": "Resource not accessible by integration"}))
    with pytest.raises(PlatformError, match="Resource not accessible"):
        source().tags()
    assert fake.count("GET", "/releases") == 1


def test_giving_up_is_a_platform_error_with_the_token_masked():
    from github import GithubException

    from bot.github.client import RetryPolicy, call, register_secret
    register_secret("ghs_hidden")

    def boom():
        raise GithubException(500, {"message": "token ghs_hidden broke"}, {})
    with pytest.raises(PlatformError) as ei:
        call(boom, "do it", RetryPolicy(attempts=2, sleep=lambda s: None))
    assert "ghs_hidden" not in str(ei.value) and "gave up" in str(ei.value)


# ---------------------------------------------------------------- releases
def test_target_is_compared_as_version_not_text_or_date(fake):
    """devcontainers/features#1646: v1.10.0 over v1.9.0 (text) and v1.4.2 (date); never a downgrade from 1.9.0."""
    from bot.upstream.releases import select_target
    fake.add_release(UPSTREAM, "v1.4.2", created_at="2026-09-30T00:00:00Z")
    fake.add_release(UPSTREAM, "v1.10.0", created_at="2026-09-20T00:00:00Z")
    fake.add_release(UPSTREAM, "v1.9.0", created_at="2026-08-01T00:00:00Z")
    assert select_target(source(), to=None, current="1.9.0") == "v1.10.0"
    assert select_target(source(), to=None, current="1.11.0") == "v1.11.0"


def test_prerelease_and_draft_flags_are_not_stable(fake):
    from bot.upstream.releases import select_target
    fake.add_release(UPSTREAM, "v1.5.0")
    fake.add_release(UPSTREAM, "v1.6.0", prerelease=True)
    fake.add_release(UPSTREAM, "v1.7.0", draft=True)
    s = source()
    assert s.prereleases() == {"v1.6.0", "v1.7.0"}
    assert select_target(s, to=None, current="1.4.0") == "v1.5.0"
    with pytest.raises(UsageError, match="prerelease"):
        select_target(s, to="1.6.0", current="1.4.0")


def test_pagination_follows_link_headers(fake):
    for i in range(205):
        fake.add_release(UPSTREAM, f"v0.{i}.0")
    assert len(source().tags()) == 205
    assert fake.count("GET", "/releases") == 3


def test_etag_cache_answers_a_noop_listing_with_a_304(fake, tmp_path, monkeypatch):
    monkeypatch.setenv("EXECUTORCH_PACK_BOT_CACHE", str(tmp_path / "cache"))
    fake.add_release(UPSTREAM, "v1.5.1")
    assert source().tags() == ["v1.5.1"]
    assert source().tags() == ["v1.5.1"]
    second = [s for s in fake.requests if s.path.endswith("/releases")][1]
    assert second.headers.get("If-None-Match")
    fake.add_release(UPSTREAM, "v1.5.2")
    assert sorted(source().tags()) == ["v1.5.1", "v1.5.2"]


# ------------------------------------------------------------------ source
def test_contents_api_reads_files_at_a_tag(fake):
    from bot.errors import UpstreamError
    from bot.github.source import GitHubSource
    fake.add_release(UPSTREAM, "v1.5.1")
    fake.add_file(UPSTREAM, "v1.5.1", "torch_pin.py", b'TORCH_VERSION = "2.14.0"\n')
    s = source()
    assert s.read("v1.5.1", "torch_pin.py") == b'TORCH_VERSION = "2.14.0"\n'
    assert s.read("v1.5.1", "backends/arm/requirements-arm-tosa.txt") is None
    with pytest.raises(UpstreamError, match="v9.9.9"):
        s.read("v9.9.9", "torch_pin.py")
    with pytest.raises(UsageError):
        GitHubSource.from_spec("github:nope")


def test_update_reads_upstream_through_github(fake, tmp_path):
    """`update --upstream github:OWNER/NAME` resolves pins through the contents API (open_source)."""
    from bot.commands.demo import copy_template
    add_sample_release(fake, "v1.4.0")
    add_sample_release(fake, "v1.5.1")
    tpl = copy_template(tmp_path / "t")
    assert main(["update", "--repo", str(tpl), "--upstream", f"github:{UPSTREAM}"]) == 0
    assert "PyTorch::ExecuTorch@1.5.1" in (tpl / "cmsis-executorch.csolution.yml").read_text()


# ------------------------------------------------------------------ assets
def _asset(fake, data=b"PK" + b"x" * 5000, **kw):
    from bot.github.assets import find_pack_asset
    from bot.github.releases import Release
    rel = fake.add_release(UPSTREAM, "v1.5.1", assets={"PyTorch.ExecuTorch.1.5.1.pack": data}, **kw)
    return find_pack_asset(Release.from_json(rel), "1.5.1"), rel


def test_asset_download_checks_sha256(fake, tmp_path):
    from bot.github.assets import download_asset
    asset, _ = _asset(fake)
    seen = []
    p = download_asset(asset, tmp_path, progress=lambda d, t: seen.append((d, t)))
    assert p.read_bytes().startswith(b"PK") and p.name == "PyTorch.ExecuTorch.1.5.1.pack"
    assert seen[-1] == (5002, 5002)


def test_digest_mismatch_deletes_and_fails(fake, tmp_path):
    from bot.github.assets import download_asset
    asset, _ = _asset(fake, digest={"PyTorch.ExecuTorch.1.5.1.pack": "sha256:" + "0" * 64})
    with pytest.raises(CheckFailed, match="does not match"):
        download_asset(asset, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_truncated_download_is_retried(fake, tmp_path):
    from bot.github.assets import download_asset
    asset, rel = _asset(fake)
    fake.asset_truncate[rel["assets"][0]["id"]] = 100
    p = download_asset(asset, tmp_path)
    assert p.stat().st_size == 5002
    assert fake.count("GET", "/download/") == 2


def test_failing_download_gives_up_cleanly(fake, tmp_path):
    from bot.github.assets import download_asset
    from bot.github.client import RetryPolicy
    asset, _ = _asset(fake)
    fake.faults.append(Fault("GET", "/download/", 502, {}, {}, times=5))
    with pytest.raises(PlatformError, match="gave up"):
        download_asset(asset, tmp_path, policy=RetryPolicy(attempts=2, sleep=lambda s: None))
    assert list(tmp_path.iterdir()) == []


def test_fetch_pack_command_downloads_and_verifies(fake, tmp_path, capsys):
    _asset(fake, data=b"not a zip at all")
    code = main(["fetch-pack", "--version", "1.5.1", "--output-dir", str(tmp_path / "d"), "--upstream", f"github:{UPSTREAM}"])
    out = capsys.readouterr()
    assert code in (1, 2)                 # verify-pack refuses a file that is not a zip
    assert (tmp_path / "d" / "PyTorch.ExecuTorch.1.5.1.pack").is_file()
    assert "Traceback" not in out.err


def test_fetch_pack_without_asset_is_a_clear_error(fake, tmp_path, capsys):
    fake.add_release(UPSTREAM, "v1.5.1")
    assert main(["fetch-pack", "--version", "1.5.1", "--output-dir", str(tmp_path), "--upstream", f"github:{UPSTREAM}"]) == 2
    assert "has no asset PyTorch.ExecuTorch.1.5.1.pack" in capsys.readouterr().err


# ------------------------------------------------------------------- index
def test_index_states(fake):
    from bot.github.index import check_index
    assert not check_index("1.5.1", {}).published
    assert check_index("1.5.1", {}).summary() == "waiting for executorch 1.5.1 on the package index"
    fake.pypi[("executorch", "1.5.1")] = pypi_json("executorch", "1.5.1", wheels=False)
    st = check_index("1.5.1", {})
    assert st.published and not st.wheels and not st.ready
    fake.pypi[("executorch", "1.5.1")] = pypi_json(
        "executorch", "1.5.1",
        requires_dist=["torch>=2.14.0a0", "torchao>=0.19.0", "ethos-u-vela==9; extra == 'ethos-u'"])
    assert check_index("1.5.1", {"torch": "2.14.0", "torchao": "0.19.0", "ethos-u-vela": "5.1.0"}).ready
    st = check_index("1.5.1", {"torch": "2.13.0", "torchao": "0.19.0"})
    assert st.problems == ("torch 2.13.0 does not satisfy torch>=2.14.0a0",)


# ----------------------------------------------------------------- actions
def test_outputs_are_multiline_safe(tmp_path):
    from bot.actions import set_outputs
    f = tmp_path / "o"
    assert set_outputs({"a": "x\ny", "b": True, "c": None}, env={"GITHUB_OUTPUT": str(f)})
    lines = f.read_text().splitlines()
    assert lines[0].startswith("a<<ghadelimiter_") and lines[1:3] == ["x", "y"] and lines[3] == lines[0][3:]
    assert lines[5] == "true" and lines[8] == ""
    assert not set_outputs({"a": 1}, env={})


def test_error_annotation_names_file_and_line_and_escapes(capsys):
    from bot.actions import add_mask, error
    error("bad\nthing 100%", file="a,b:c.yml", line=3, env={"GITHUB_ACTIONS": "true"})
    add_mask("s3cret", env={"GITHUB_ACTIONS": "true"})
    out = capsys.readouterr()
    assert "::error file=a%2Cb%3Ac.yml,line=3::bad%0Athing 100%25" in out.err
    assert "::add-mask::s3cret" in out.out


# ------------------------------------------------------------------ config
def test_config_defaults_and_values(tmp_path):
    from bot.config import Config, load_config
    assert load_config(tmp_path) == Config()
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github/executorch-pack-bot.yml").write_text(
        "branch: bot/executorch-{version}\nlabels: deps\nreviewers: [a, b]\nauthor: Bot <bot@x.invalid>\ndraft: never\n")
    c = load_config(tmp_path)
    assert c.branch_for("1.5.1") == "bot/executorch-1.5.1" and c.labels == ("deps",) and c.reviewers == ("a", "b")
    assert (c.author_name, c.author_email, c.draft) == ("Bot", "bot@x.invalid", "never")


@pytest.mark.parametrize("text,line,msg", [
    ("labels: [a]\nreviewer: [b]\n", 2, "unknown setting 'reviewer'"),
    ("draft: sometimes\n", 1, "draft"),
    ("branch: 'a..b'\n", 1, "not a valid branch"),
    ("labels: [a\n", 2, "invalid YAML"),
    ("author: nobody\n", 1, "Name <email>"),
])
def test_bad_config_names_file_and_line(tmp_path, text, line, msg):
    from bot.config import load_config
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github/executorch-pack-bot.yml").write_text(text)
    with pytest.raises(UsageError) as ei:
        load_config(tmp_path)
    assert str(ei.value).startswith(f".github/executorch-pack-bot.yml:{line}: ") and msg in str(ei.value)


# ------------------------------------------------------------------ report
def _plan():
    from pathlib import Path

    from bot.model import Bump, Flag
    from bot.plan import PinRow, Plan
    return Plan(repo=Path("."), bump=Bump("1.4.0", "1.5.1", "1.4.0", "1.5.1", "v1.4.0", "v1.5.1"),
                rows=[PinRow("PyTorch::ExecuTorch", "1.4.0", "1.5.1", "release v1.5.1"),
                      PinRow("ethos-u-vela", "4.1.0", "4.0.0", "backends/arm/requirements-arm-ethos-u.txt @ v1.5.1")],
                flags=[Flag("downgrade", "ethos-u-vela goes down from 4.1.0 to 4.0.0 as upstream pins it",
                            "requirements.txt", 4, blocking=False)],
                contents={"requirements.txt": b"x"}, originals={"requirements.txt": b"y"})


def test_pr_body_sections_and_fingerprint():
    from bot.report import parse_fingerprint, pr_body, pr_title

    class Rep:
        failed = False
        operators_added = ["Portable new_op"]
        operators_removed = ["Portable old_op"]

        def to_markdown(self):
            return "| check | status |\n|---|---|\n| archive | pass |"
    plan = _plan()
    body = pr_body(plan, upstream=UPSTREAM, pack_report=Rep(), index_line="ok")
    assert pr_title(plan) == "Bump ExecuTorch to 1.5.1"
    assert "| `ethos-u-vela` | `4.1.0` | `4.0.0` | `backends/arm/requirements-arm-ethos-u.txt @ v1.5.1` |" in body
    assert "https://github.com/pytorch/executorch/compare/v1.4.0...v1.5.1" in body
    assert "```text\n| check | status |\n|---|---|\n| archive | pass |\n```" in body   # another job's Markdown: verbatim, inert
    assert "- Added (1): `Portable new_op`" in body
    assert "- Removed (1): `Portable old_op`" in body
    assert "`downgrade` (`requirements.txt:4`)" in body
    assert parse_fingerprint(body) == plan.fingerprint() and parse_fingerprint("no marker") is None


# ---------------------------------------------------------------- commands
@pytest.fixture
def checkout(fake, tmp_path):
    add_sample_release(fake, "v1.4.0")
    add_sample_release(fake, "v1.5.1", assets={"PyTorch.ExecuTorch.1.5.1.pack": b"PK"})
    return fresh_checkout(make_template_remote(tmp_path), tmp_path / "co")


def test_check_prints_and_writes_outputs(checkout, fake, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "o"))
    assert main(["check", "--repo", str(checkout), "--upstream", f"github:{UPSTREAM}"]) == 0
    out = capsys.readouterr().out
    assert "current=1.4.0\ntarget=1.5.1\nupdate-needed=true\npack-source=release-asset\npack-url=http" in out
    assert "update-needed<<" in (tmp_path / "o").read_text()
    assert ("index-ready=false\npack-on-index=not-checked\ndashboard=false\nwaiting for executorch 1.5.1 on the package "
            "index") in out
    # one listing; the index gate adds the target's pin files (contents API) and one index request
    assert fake.count("GET", r"/releases$") == 1 and fake.count("GET", r"^/pypi/") == 1
    assert fake.count() == 2 + fake.count("GET", r"/contents/")


@pytest.mark.parametrize("to,msg", [("1.9.9", "no tag v1.9.9"), ("1.5.1-rc1", "no tag v1.5.1-rc1"),
                                    ("latest", "not a release")])
def test_check_refuses_bad_to(checkout, capsys, to, msg):
    assert main(["check", "--repo", str(checkout), "--upstream", f"github:{UPSTREAM}", "--version", to]) == 2
    err = capsys.readouterr().err
    assert msg in err and "Traceback" not in err


def test_publish_from_plan_file(checkout, fake, tmp_path, monkeypatch, capsys):
    fake.repo(TEMPLATE)
    monkeypatch.setenv("GITHUB_REPOSITORY", TEMPLATE)
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_UNITSECRET0123")   # publish refuses to start without one
    plan_file = tmp_path / "plan.json"
    assert main(["update", "--repo", str(checkout), "--upstream", f"github:{UPSTREAM}",
                 "--plan-file", str(plan_file)]) == 0
    (tmp_path / "pack.md").write_text("| archive | pass |\n")
    assert main(["publish", "--repo", str(checkout), "--plan-file", str(plan_file),
                 "--pack-report", str(tmp_path / "pack.md")]) == 0
    pr = fake.open_pulls(TEMPLATE)[0]
    assert pr["title"] == "Bump ExecuTorch to 1.5.1" and "| archive | pass |" in pr["body"]
    assert "created: #1" in capsys.readouterr().out


def test_publish_with_a_bad_plan_file_names_it(checkout, tmp_path, capsys):
    bad = tmp_path / "plan.json"
    bad.write_text("{\n  oops")
    assert main(["publish", "--repo", str(checkout), "--plan-file", str(bad)]) == 2
    assert f"{bad}:2: not JSON" in capsys.readouterr().err
