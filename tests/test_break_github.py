"""Adversarial tests of the GitHub layer: hostile API answers, odd environments, human-made states.

Each test holds the right behaviour for one kind of fault found by breaking
the bot on purpose: a clear error naming the file (exit 2 for bad input, 1 for
a failed check), never a traceback or an "internal error", nothing of a human
lost, and the token never printed.  Everything runs against the local fake
GitHub server (tests/fakegithub.py) and local bare git remotes.
"""

from __future__ import annotations

import json

import pytest
from werkzeug.wrappers import Response

from bot.cli import main
from bot.errors import PlatformError
from fakegithub import UPSTREAM, FakeGitHub, Fault, add_sample_release

TOKEN = "ghs_BREAKTESTSECRET42"


@pytest.fixture
def fake(monkeypatch):
    f = FakeGitHub()
    url = f.start()
    for k, v in {"GITHUB_API_URL": url, "EXECUTORCH_PACK_BOT_INDEX_URL": url, "EXECUTORCH_PACK_BOT_MAX_WAIT": "0",
                 "EXECUTORCH_PACK_BOT_WRITE_PAUSE": "0", "GITHUB_TOKEN": TOKEN}.items():
        monkeypatch.setenv(k, v)
    for k in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_ACTIONS", "EXECUTORCH_PACK_BOT_CACHE",
              "GITHUB_REPOSITORY", "EXECUTORCH_PACK_BOT_ATTEMPTS"):
        monkeypatch.delenv(k, raising=False)
    yield f
    f.stop()


@pytest.fixture
def tpl(tmp_path):
    from bot.commands.demo import copy_template
    return copy_template(tmp_path / "template")


def source():
    from bot.github.source import GitHubSource
    return GitHubSource.from_spec(f"github:{UPSTREAM}")


def override(fake, match, respond):
    """Answer requests whose path satisfies ``match(req)`` with ``respond(req, original_route)``."""
    orig = fake._route

    def route(req, body):
        if match(req):
            return respond(req, lambda: orig(req, body))
        return orig(req, body)
    fake._route = route


def cli(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    assert "Traceback" not in out.err and "internal error" not in out.err, out.err
    assert TOKEN not in out.out + out.err
    return code, out


def check(capsys, tpl, *extra):
    return cli(capsys, "check", "--repo", str(tpl), "--upstream", f"github:{UPSTREAM}", *extra)


# ------------------------------------------------------- releases listing
@pytest.mark.parametrize("body", ["<html>Unicorn!</html>", '{"message": "hi"}', "[1, 2]"])
def test_releases_answer_that_is_not_a_list_of_releases_is_a_clear_error(fake, tpl, capsys, body):
    add_sample_release(fake, "v1.5.1")
    override(fake, lambda r: r.path.endswith("/releases"),
             lambda r, orig: Response(body, status=200, mimetype="application/json"))
    code, out = check(capsys, tpl)
    assert code == 2 and "cannot list the releases of pytorch/executorch" in out.err


def test_release_fields_of_the_wrong_type_count_as_missing(fake, tpl, capsys):
    fake.off_contract = True   # the answers below are malformed on purpose
    add_sample_release(fake, "v1.5.1", assets={"PyTorch.ExecuTorch.1.5.1.pack": b"PK"})
    fake.add_release(UPSTREAM, "x")["tag_name"] = 7
    fake.add_release(UPSTREAM, "y")["tag_name"] = None
    odd = fake.add_release(UPSTREAM, "v1.4.9", assets={"a": b"1"})
    odd["assets"][0]["size"] = "big"
    odd["assets"].append("not an object")
    code, out = check(capsys, tpl)
    assert code == 0 and "target=1.5.1" in out.out and "pack-source=release-asset" in out.out


def test_304_without_a_cached_listing_asks_again(fake, tpl, capsys):
    add_sample_release(fake, "v1.5.1")
    fake.faults.append(Fault("GET", r"/releases$", 304, {}, {}))
    code, out = check(capsys, tpl)
    assert code == 0 and "target=1.5.1" in out.out
    assert fake.count("GET", r"/releases$") == 2


@pytest.mark.parametrize("cached", ["[1, 2]", '{"etag": "E"}', '{"etag": "E", "releases": {"a": 1}}', "\xff"])
def test_a_corrupt_cache_file_is_ignored(fake, tpl, tmp_path, capsys, monkeypatch, cached):
    cache = tmp_path / "cache"
    monkeypatch.setenv("EXECUTORCH_PACK_BOT_CACHE", str(cache))
    add_sample_release(fake, "v1.5.1")
    assert check(capsys, tpl)[0] == 0
    for f in cache.iterdir():
        f.write_text(cached, encoding="latin-1")
    code, out = check(capsys, tpl)
    assert code == 0 and "target=1.5.1" in out.out


def test_a_link_header_that_loops_is_refused_not_followed_forever(fake, tpl, capsys):
    add_sample_release(fake, "v1.5.1")

    def looping(req, orig):
        r = orig()
        r.headers["Link"] = f'<{fake.url}{req.path}?page=2>; rel="next"'
        return r
    override(fake, lambda r: r.path.endswith("/releases"), looping)
    code, out = check(capsys, tpl)
    assert code == 2 and "next page repeats" in out.err
    assert fake.count("GET", r"/releases$") == 2


# ------------------------------------------------------------ environment
@pytest.mark.parametrize("name,value", [("EXECUTORCH_PACK_BOT_MAX_WAIT", "soon"), ("EXECUTORCH_PACK_BOT_MAX_WAIT", "-5"),
                                        ("EXECUTORCH_PACK_BOT_ATTEMPTS", "many"), ("EXECUTORCH_PACK_BOT_ATTEMPTS", "0"),
                                        ("EXECUTORCH_PACK_BOT_WRITE_PAUSE", "nan"),
                                        ("GITHUB_API_URL", "not a url"), ("GITHUB_API_URL", "ftp://example.invalid"),
                                        ("GITHUB_API_URL", "http://127.0.0.1:port")])
def test_a_bad_environment_variable_is_named_with_exit_2(fake, tpl, capsys, monkeypatch, name, value):
    add_sample_release(fake, "v1.5.1")
    monkeypatch.setenv(name, value)
    argv = ["check", "--repo", str(tpl), "--upstream", f"github:{UPSTREAM}"]
    if name.endswith("WRITE_PAUSE"):
        from bot.github.client import make_github
        with pytest.raises(Exception) as ei:
            make_github(TOKEN)
        assert type(ei.value).__name__ == "UsageError" and name in str(ei.value)
        return
    code, out = cli(capsys, *argv)
    assert code == 2 and name in out.err


def test_a_damaged_chunked_body_is_retried_not_an_internal_error(fake, tpl, capsys):
    import requests

    from bot.github.client import RetryPolicy, call
    tries = []

    def flaky():
        tries.append(1)
        if len(tries) < 2:
            raise requests.exceptions.ChunkedEncodingError("Connection broken: IncompleteRead")
        return "ok"
    assert call(flaky, "list things", RetryPolicy(sleep=lambda s: None)) == "ok" and len(tries) == 2

    def invalid():
        raise requests.exceptions.InvalidURL("bad")
    with pytest.raises(PlatformError, match="cannot list things: InvalidURL"):
        call(invalid, "list things", RetryPolicy(sleep=lambda s: None))


# ------------------------------------------------------------------ assets
PACK = "PyTorch.ExecuTorch.1.5.1.pack"


def fetch(capsys, dest):
    return cli(capsys, "fetch-pack", "--version", "1.5.1", "--dest", str(dest), "--upstream", f"github:{UPSTREAM}")


def test_a_digest_that_is_not_hex_is_refused_before_downloading(fake, tmp_path, capsys):
    fake.add_release(UPSTREAM, "v1.5.1", assets={PACK: b"PK..."}, digest={PACK: "sha256:" + "z" * 64})
    code, out = fetch(capsys, tmp_path / "d")
    assert code == 2 and "unsupported digest" in out.err and "does not match" not in out.err
    assert fake.count("GET", "/download/") == 0


def test_an_uppercase_digest_is_accepted(fake, tmp_path):
    import hashlib

    from bot.github.assets import download_asset
    from bot.github.releases import Release
    data = b"PK" + b"y" * 100
    rel = fake.add_release(UPSTREAM, "v1.5.1", assets={PACK: data},
                           digest={PACK: "SHA256:" + hashlib.sha256(data).hexdigest().upper()})
    path = download_asset(Release.from_json(rel).asset(PACK), tmp_path)
    assert path.read_bytes() == data


def test_dest_that_is_a_file_is_a_clear_error(fake, tmp_path, capsys):
    fake.add_release(UPSTREAM, "v1.5.1", assets={PACK: b"PK..."})
    (tmp_path / "d").write_text("I am a file")
    code, out = fetch(capsys, tmp_path / "d")
    assert code == 2 and "cannot create the folder" in out.err and str(tmp_path / "d") in out.err
    assert (tmp_path / "d").read_text() == "I am a file"


def test_disk_full_while_downloading_is_a_clear_error_and_leaves_no_part_file(fake, tmp_path, capsys, monkeypatch):
    import errno

    import bot.github.assets as assets
    fake.add_release(UPSTREAM, "v1.5.1", assets={PACK: b"PK" + b"z" * 5000})
    real_open = open

    class Full:
        def __init__(self, f):
            self.f = f

        def __enter__(self):
            return self

        def __exit__(self, *a):
            self.f.close()

        def write(self, b):
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(assets, "open", lambda p, m="r", *a, **k: Full(real_open(p, m, *a, **k)), raising=False)
    code, out = fetch(capsys, tmp_path / "d")
    assert code == 2 and "No space left on device" in out.err and f"{PACK}.part" in out.err
    assert list((tmp_path / "d").iterdir()) == []


# ----------------------------------------------------------- package index
@pytest.mark.parametrize("answer", ["<html>", "[1]", '{"info": null, "urls": [null]}', '{"info": [], "urls": []}',
                                    '{"info": {"requires_dist": "torch>=3"}, "urls": [{"packagetype": "bdist_wheel"}]}'])
def test_a_package_index_answer_of_the_wrong_shape_is_a_clear_error(fake, answer):
    from bot.github.index import check_index
    override(fake, lambda r: r.path.startswith("/pypi/"),
             lambda r, orig: Response(answer, status=200, mimetype="application/json"))
    with pytest.raises(PlatformError, match="the package index answered .*/pypi/executorch/1.5.1/json"):
        check_index("1.5.1", {"torch": "2.14.0"})


def test_requires_dist_null_means_no_requirements(fake):
    from bot.github.index import check_index
    fake.pypi[("executorch", "1.5.1")] = {"info": {"requires_dist": None},
                                          "urls": [{"packagetype": "bdist_wheel"}]}
    assert check_index("1.5.1", {"torch": "2.14.0"}).ready


# ------------------------------------------------------------------ config
@pytest.mark.parametrize("text,line,words", [
    (b"base: null\n", 1, "base: expected a non-empty string"),
    (b"branch: bot/x\nbase: ~\n", 2, "base: expected a non-empty string"),
    (b"labels: [a, null]\n", 1, "labels: expected a non-empty string"),
    (b"# settings\nbranch: bot/\xff\n", 2, "not UTF-8"),
    (b"branch: bot/.hidden\n", 1, "not a valid branch name"),
    (b"branch: bot//x\n", 1, "not a valid branch name"),
    (b"branch: bot/x.lock/y\n", 1, "not a valid branch name"),
    (b"branch: bot/{version}.\n", 1, "not a valid branch name"),
    (b"\nbase: 'my branch'\n", 2, "base: 'my branch' is not a valid branch name"),
    (b"branch: a\nlabels: [x]\n\x01\n", 3, "invalid YAML"),
])
def test_config_values_git_or_yaml_would_reject_are_named_with_file_and_line(tmp_path, text, line, words):
    from bot.config import load_config
    from bot.errors import UsageError
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "executorch-pack-bot.yml").write_bytes(text)
    with pytest.raises(UsageError) as ei:
        load_config(tmp_path)
    assert str(ei.value).startswith(f".github/executorch-pack-bot.yml:{line}: ") and words in str(ei.value)


def test_run_with_an_undecodable_config_exits_2_naming_it(fake, tpl, capsys):
    add_sample_release(fake, "v1.5.1")
    (tpl / ".github").mkdir(exist_ok=True)
    (tpl / ".github" / "executorch-pack-bot.yml").write_bytes(b"branch: \xfe\n")
    code, out = cli(capsys, "run", "--repo", str(tpl), "--upstream", f"github:{UPSTREAM}", "--dry-run")
    assert code == 2 and ".github/executorch-pack-bot.yml:1: not UTF-8" in out.err


# ------------------------------------------------------------ Actions I/O
@pytest.mark.parametrize("var", ["GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"])
def test_an_unwritable_actions_file_is_named_not_an_internal_error(fake, tpl, tmp_path, capsys, monkeypatch, var):
    add_sample_release(fake, "v1.5.1")
    monkeypatch.setenv(var, str(tmp_path / "no-such-folder" / "file"))
    code, out = cli(capsys, "run", "--repo", str(tpl), "--upstream", f"github:{UPSTREAM}", "--dry-run")
    assert code == 2 and f"cannot append to ${var}" in out.err and "no-such-folder" in out.err


def test_a_failing_run_keeps_its_own_error_when_the_summary_cannot_be_written(fake, tpl, tmp_path, capsys,
                                                                              monkeypatch):
    fake.faults.append(Fault("GET", "/releases", 404, {"message": "Not Found"}, {}))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "no-such-folder" / "summary.md"))
    code, out = cli(capsys, "run", "--repo", str(tpl), "--upstream", f"github:{UPSTREAM}", "--dry-run")
    assert code == 2 and "GitHub refused to list the releases" in out.err.splitlines()[-1]


def test_output_values_with_newlines_and_delimiter_lookalikes_stay_one_value(tmp_path):
    from bot import actions
    out = tmp_path / "out"
    value = "line1\nghadelimiter_x\nEOF\n"
    actions.set_outputs({"body": value, "flag": True}, env={"GITHUB_OUTPUT": str(out)})
    text = out.read_text()
    head, rest = text.split("\n", 1)
    name, delim = head.split("<<")
    assert name == "body" and rest.startswith(value + "\n" + delim + "\n") and "flag<<" in rest


# ----------------------------------------------------------------- publish
@pytest.fixture
def world(fake, tmp_path, monkeypatch):
    """Upstream v1.4.0/v1.5.1, the package index ready, and the template as a local bare remote."""
    from fakegithub import TEMPLATE, make_template_remote, pypi_json
    add_sample_release(fake, "v1.4.0", created_at="2026-06-01T00:00:00Z")
    add_sample_release(fake, "v1.5.1", created_at="2026-09-01T00:00:00Z")
    fake.repo(TEMPLATE)
    for v in ("1.5.1", "1.5.2"):
        fake.pypi[("executorch", v)] = pypi_json("executorch", v, requires_dist=["torch>=2.14.0a0"])
    monkeypatch.setenv("GITHUB_REPOSITORY", TEMPLATE)
    fake.remote = make_template_remote(tmp_path)
    fake.tmp = tmp_path
    fake.runs = 0
    return fake


def checkout(w):
    from fakegithub import fresh_checkout
    w.runs += 1
    return fresh_checkout(w.remote, w.tmp / f"co{w.runs}")


def run_bot(w, capsys, *extra):
    co = checkout(w)
    return cli(capsys, "run", "--repo", str(co), "--upstream", f"github:{UPSTREAM}", *extra)[0]


def remote_head(w, branch="executorch-pack-bot/executorch"):
    from fakegithub import git
    return git(w.tmp, "--git-dir", str(w.remote), "for-each-ref", "--format=%(objectname)", f"refs/heads/{branch}") or None


def planned_checkout(w, capsys):
    co = checkout(w)
    plan = w.tmp / f"plan{w.runs}.json"
    assert cli(capsys, "update", "--repo", str(co), "--upstream", f"github:{UPSTREAM}", "--plan-file", str(plan))[0] == 0
    return co, plan


def test_publish_with_a_missing_pack_report_is_a_clear_error(world, capsys):
    co, plan = planned_checkout(world, capsys)
    code, out = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan),
                    "--pack-report", str(world.tmp / "nope.md"))
    assert code == 2 and "nope.md: cannot read the pack report" in out.err
    assert remote_head(world) is None


def test_publish_with_a_stale_plan_opens_no_empty_pr(world, capsys):
    """The checkout was reset after `update`: publishing would push a commit without the bump under its title."""
    from fakegithub import TEMPLATE, git
    co, plan = planned_checkout(world, capsys)
    git(co, "checkout", "-q", "--", ".")
    code, out = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan))
    assert code == 2 and "does not carry the plan's edit" in out.err and str(plan) in out.err
    assert world.open_pulls(TEMPLATE) == [] and remote_head(world) is None


@pytest.mark.parametrize("bad", ["/etc/hostname", "../outside.txt", ".git/config", "a/../README.md", 7])
def test_publish_refuses_plan_paths_outside_the_checkout(world, capsys, bad):
    co, plan = planned_checkout(world, capsys)
    data = json.loads(plan.read_text())
    data["files"].append(bad)
    plan.write_text(json.dumps(data))
    code, out = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan))
    assert code == 2 and "not a path inside the template checkout" in out.err
    assert remote_head(world) is None


def test_publish_names_a_plan_that_is_not_an_object(world, capsys):
    co, plan = planned_checkout(world, capsys)
    plan.write_text("[1, 2]")
    code, out = cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan))
    assert code == 2 and "expected a JSON object" in out.err


def test_publish_writes_the_output_names_action_yml_mirrors(world, capsys, monkeypatch):
    """action.yml exposes steps.bot.outputs.pr-number / pr-url: publish and run must write those names."""
    out_file = world.tmp / "out.txt"
    monkeypatch.setenv("GITHUB_OUTPUT", str(out_file))
    co, plan = planned_checkout(world, capsys)
    assert cli(capsys, "publish", "--repo", str(co), "--plan-file", str(plan))[0] == 0
    text = out_file.read_text()
    assert "pr-number<<" in text and "pr-url<<" in text and "https://github.com/acme/fw-template/pull/1" in text
    out_file.write_text("")
    assert run_bot(world, capsys) == 0
    text = out_file.read_text()
    assert "pr-number<<" in text and "\n1\n" in text and "pr-url<<" in text


@pytest.mark.parametrize("who", ["human-opened", "marker-removed"])
def test_an_open_pr_without_the_fingerprint_on_the_bot_branch_is_never_pushed_to(world, capsys, who):
    """Before: the bot pushed the new bump under that PR, then failed with a bare '422 Validation Failed'."""
    from fakegithub import TEMPLATE
    assert run_bot(world, capsys) == 0
    pr = world.open_pulls(TEMPLATE)[0]
    if who == "human-opened":
        world.repo(TEMPLATE).pulls.clear()
        pr = world.add_pull(TEMPLATE, head="executorch-pack-bot/executorch", title="my take", body="mine",
                            user="human")
    else:
        pr["body"] = "I rewrote the description."
    head = remote_head(world)
    add_sample_release(world, "v1.5.2", source_tag="v1.5.1", created_at="2026-10-01T00:00:00Z")
    before = len([s for s in world.requests if s.method != "GET"])
    code, out = cli(capsys, "run", "--repo", str(checkout(world)), "--upstream", f"github:{UPSTREAM}")
    assert code == 0 and f"#{pr['number']} is open from branch executorch-pack-bot/executorch" in out.out
    assert remote_head(world) == head                                           # nothing pushed
    assert len([s for s in world.requests if s.method != "GET"]) == before      # no PR, edit or comment
    assert [p["number"] for p in world.open_pulls(TEMPLATE)] == [pr["number"]]


def test_a_reviewers_edit_to_an_unchanged_proposal_is_kept(world, capsys):
    """Ticking a checkbox or adding a note must survive the next scheduled run (and the run sends nothing)."""
    from fakegithub import TEMPLATE
    assert run_bot(world, capsys) == 0
    pr = world.open_pulls(TEMPLATE)[0]
    pr["body"] = pr["body"].replace("_Opened by", "Reviewed on hardware: OK.\n\n_Opened by")
    pr["title"] = "Bump ExecuTorch to 1.5.1 (tested)"
    before = len([s for s in world.requests if s.method != "GET"])
    assert run_bot(world, capsys) == 0
    assert "Reviewed on hardware: OK." in pr["body"] and pr["title"].endswith("(tested)")
    assert len([s for s in world.requests if s.method != "GET"]) == before
    add_sample_release(world, "v1.5.2", source_tag="v1.5.1", created_at="2026-10-01T00:00:00Z")
    assert run_bot(world, capsys) == 0                      # a new proposal does replace title and body
    assert pr["title"] == "Bump ExecuTorch to 1.5.2" and "1.5.2" in pr["body"]


@pytest.mark.parametrize("url,expected", [
    ("git@github.com:acme/fw-template.git", "acme/fw-template"),
    ("ssh://git@github.com:22/acme/fw-template.git", "acme/fw-template"),
    ("https://github.com/acme/fw-template/", "acme/fw-template"),
    ("https://x-access-token:abc@github.com/acme/fw.template.git", "acme/fw.template"),
    ("https://notgithub.com/evil/repo.git", None),
    ("git@github.com.evil.example:evil/repo.git", None),
    ("https://github.com/acme/fw-template/tree/main", None),
])
def test_the_repository_is_read_from_the_remote_url_with_the_exact_host(tmp_path, url, expected):
    from bot.github.publish import remote_repo
    from fakegithub import git
    git(tmp_path, "init", "-q")
    git(tmp_path, "remote", "add", "origin", url)
    assert remote_repo(tmp_path, env={}) == expected


def test_github_repository_naming_another_repo_than_the_push_remote_is_refused(tmp_path, monkeypatch):
    """A workflow in repo A running on a checkout of B must not push to B and open the PR in A."""
    from bot.errors import UsageError
    from bot.github.publish import repo_full_name
    from fakegithub import git
    git(tmp_path, "init", "-q")
    git(tmp_path, "remote", "add", "origin", "https://github.com/acme/fw-template.git")
    git(tmp_path, "remote", "add", "fork", "git@github.com:me/fw-template.git")
    assert repo_full_name(tmp_path, None, env={"GITHUB_REPOSITORY": "ACME/fw-template"}) == "ACME/fw-template"
    assert repo_full_name(tmp_path, None, env={}) == "acme/fw-template"
    with pytest.raises(UsageError, match="GITHUB_REPOSITORY names other/repo but git remote 'origin'"):
        repo_full_name(tmp_path, None, env={"GITHUB_REPOSITORY": "other/repo"})
    with pytest.raises(UsageError, match="--github-repo names acme/fw-template but git remote 'fork'"):
        repo_full_name(tmp_path, "acme/fw-template", env={}, remote="fork")


# ---------------------------------------------------------- contents API
@pytest.mark.parametrize("answer", [
    {"type": "file", "encoding": "none", "content": "", "size": 2_000_000},
    {"type": "symlink", "target": "elsewhere", "size": 9},
    {"type": "file", "encoding": "base64", "content": "***not base64***", "size": 3},
])
def test_contents_that_are_not_a_base64_file_are_a_clear_upstream_error(fake, answer):
    from bot.errors import UpstreamError
    fake.add_release(UPSTREAM, "v1.5.1")
    fake.add_file(UPSTREAM, "v1.5.1", "torch_pin.py", b"x")
    doc = dict(answer, name="torch_pin.py", path="torch_pin.py", sha="1" * 40)
    override(fake, lambda r: "/contents/" in r.path,
             lambda r, orig: Response(json.dumps(dict(doc, url=r.url)), mimetype="application/json"))
    with pytest.raises(UpstreamError, match="torch_pin.py at v1.5.1 in github:pytorch/executorch"):
        source().read("v1.5.1", "torch_pin.py")


# ----------------------------------------------------------------- PR body
def _plan_with_flags(tmp_path, messages):
    from bot.model import Bump, Flag
    from bot.plan import PinRow, Plan
    plan = Plan(repo=tmp_path, bump=Bump("1.4.0", "1.5.1", "1.4.0", "1.5.1", "v1.4.0", "v1.5.1"),
                rows=[PinRow("executorch", "1.4.0", "1.5.1", "release tag v1.5.1")],
                flags=[Flag("history", m, "README.md", i + 1, False) for i, m in enumerate(messages)])
    plan.contents["README.md"] = b"x"
    return plan


def test_a_huge_report_is_cut_to_fit_githubs_body_limit_keeping_the_fingerprint(tmp_path):
    """GitHub answers 422 to a body over 65,536 characters: every run would fail on a template with many flags."""
    from bot.report import parse_fingerprint, pr_body
    plan = _plan_with_flags(tmp_path, [f"ExecuTorch 1.{i}.0 is mentioned as history in a long line" for i in range(3000)])
    body = pr_body(plan, upstream=UPSTREAM)
    assert len(body) <= 60_000 and "the job summary has it in full" in body
    assert parse_fingerprint(body) == plan.fingerprint() and "| pin | old | new | source |" in body


def test_a_fingerprint_look_alike_quoted_from_the_template_does_not_win(tmp_path):
    from bot.report import parse_fingerprint, pr_body
    fake_marker = "<!-- executorch-pack-bot:fingerprint=" + "f" * 64 + " -->"
    plan = _plan_with_flags(tmp_path, [f"line quotes {fake_marker}"])
    assert parse_fingerprint(pr_body(plan, upstream=UPSTREAM)) == plan.fingerprint()


def test_the_last_resort_error_line_never_prints_the_token(fake, tpl, capsys, monkeypatch):
    from bot.github import flow

    def explode(*a, **k):
        raise RuntimeError(f"unexpected: Authorization: Bearer {TOKEN}")
    monkeypatch.setattr(flow, "check", explode)
    assert main(["check", "--repo", str(tpl), "--upstream", f"github:{UPSTREAM}"]) == 2
    err = capsys.readouterr().err
    assert "internal error: RuntimeError: unexpected: Authorization: Bearer ***" in err and TOKEN not in err


def test_a_422_names_githubs_reason_not_only_validation_failed():
    from github import GithubException

    from bot.github.client import RetryPolicy, call

    def refuse():
        raise GithubException(422, {"message": "Validation Failed",
                                    "errors": [{"resource": "PullRequest", "code": "custom",
                                                "message": "A pull request already exists for acme:bot."}]}, {})
    with pytest.raises(PlatformError, match=r"HTTP 422: Validation Failed \(A pull request already exists for acme:bot\.\)"):
        call(refuse, "create the pull request", RetryPolicy(sleep=lambda s: None))
