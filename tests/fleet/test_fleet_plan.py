"""fleet-plan on the fake GitHub: twenty templates in mixed states, one pack per target version, one
pull-request job per template behind, the refused entries as rows, and the requests it costs."""

from __future__ import annotations

import json

import pytest

import fleetworld as fw
from fakegithub import UPSTREAM, Fault
from github_world import cli

PULL_KEYS = {"acme-behind-a", "acme-behind-b", "acme-pr-old", "acme-closed-branch", "acme-local-a", "acme-local-b",
             "acme-track14", "acme-refuses-push", "acme-examples-main", "acme-examples-hackathon", "acme-behind-c",
             "acme-nightly"}
STATES = {
    "acme/behind-a": "behind", "acme/behind-b": "behind", "acme/current-a": "up to date",
    "acme/current-b": "up to date", "acme/pr-open": "pull request open", "acme/pr-old": "behind",
    "acme/closed-person": "closed by a person", "acme/closed-branch": "behind", "acme/local-a": "behind",
    "acme/local-b": "behind", "acme/track14": "behind", "acme/track14-done": "up to date",
    "acme/hidden": "not visible", "acme/refuses-push": "behind", "acme/disagree": "template error",
    "acme/foreign-pr": "branch used by another pull request", "acme/examples@main": "behind",
    "acme/examples@hackathon": "behind", "acme/behind-c": "behind", "acme/current-c": "up to date",
    "acme/nightly": "behind"}


def plan(capsys, tmp_path, lst, *extra, name="plan.json"):
    out = tmp_path / name
    code, captured = cli(capsys, "fleet-plan", "--list", str(lst), "--upstream", f"github:{UPSTREAM}",
                         "--cache", str(tmp_path / "cache" / "fleet.json"), "--out", str(out), *extra)
    return code, json.loads(out.read_text()) if out.exists() else None, captured


@pytest.fixture
def world(fake, tmp_path):
    return fw.build_world(fake, tmp_path)


def test_twenty_templates_one_pack_per_target_version_one_job_per_template_behind(fake, world, tmp_path, capsys):
    code, p, _ = plan(capsys, tmp_path, world)
    assert code == 0
    # the release asset fetched once; every build one per template, from that template's own requirements
    packs = sorted((x["pack-version"], x["version"], x["source"], x["templates"], x["template"]) for x in p["packs"])
    assert packs == [("1.4.2", "1.4.2", "build", 1, "acme/track14"), ("1.4.2", "1.4.2", "build", 1, "acme/examples"),
                     ("1.5.1", "1.5.1", "release-asset", 8, ""),
                     ("1.5.1-local", "1.5.1", "build", 1, "acme/local-a"),
                     ("1.5.1-local", "1.5.1", "build", 1, "acme/local-b")] or packs
    assert p["builds"] == [x for x in p["packs"] if x["source"] == "build"]
    asset = next(x for x in p["packs"] if x["pack-version"] == "1.5.1")
    assert asset["sha256"] == __import__("hashlib").sha256(fw.PACK_151).hexdigest()
    assert asset["pack-url"].endswith("PyTorch.ExecuTorch.1.5.1.pack?id=" + asset["pack-url"].rsplit("=", 1)[1])
    jobs = {j["key"]: j for j in p["pull-requests"]}
    assert set(jobs) == PULL_KEYS
    assert jobs["acme-local-a"]["artifact"] == "executorch-pack-1.5.1-local-acme-local-a"
    assert jobs["acme-local-b"]["artifact"] == "executorch-pack-1.5.1-local-acme-local-b"
    # the digest GitHub publishes for the asset, recorded by the plan, checked by the pull-request job
    assert {j["sha256"] for j in jobs.values() if j["source"] == "release-asset"} == {asset["sha256"]}
    assert {j["sha256"] for j in jobs.values() if j["source"] == "build"} == {""}
    assert (jobs["acme-examples-hackathon"]["branch"], jobs["acme-examples-hackathon"]["version"],
            jobs["acme-examples-hackathon"]["bot-branch"]) == ("hackathon", "1.4.2", "executorch-pack-bot/hackathon")
    assert {j["artifact"] for j in jobs.values()} == {x["artifact"] for x in p["packs"]}
    rows = {r["template"]: r for r in p["rows"] if r["state"] != "refused entry"}
    assert {t: r["state"] for t, r in rows.items()} == STATES
    assert {t for t, r in rows.items() if r["job"]} == {t for t in STATES if STATES[t] == "behind"}
    assert rows["acme/pr-open"]["pr_url"] == "https://github.com/acme/pr-open/pull/1"
    assert "closed unmerged" in rows["acme/closed-person"]["reason"]
    assert rows["acme/disagree"]["reason"].startswith("requirements.txt:2: the template's ExecuTorch pins disagree")
    assert "App is not installed" in rows["acme/hidden"]["reason"]
    refused = [(r["template"], r["reason"].split(": ", 1)[1]) for r in p["rows"] if r["state"] == "refused entry"]
    assert refused == [("acme/behind-a", f"listed twice: first at {world}:3"),
                       ("repository: not a repository", "'not a repository' is not OWNER/NAME"),
                       ("reponame: acme/x", "unknown key 'reponame' (known: repository, branches, branch, track)")]
    assert [r["reason"].split(": ")[0] for r in p["rows"] if r["state"] == "refused entry"] == [
        f"{world}:{n}" for n in (29, 30, 31)]
    # the plan counts every request the fake saw
    assert p["requests"]["sent"] == len(fake.requests)


def test_a_second_run_is_answered_by_conditional_requests(fake, world, tmp_path, capsys):
    plan(capsys, tmp_path, world)
    first = len(fake.requests)
    code, p, captured = plan(capsys, tmp_path, world, name="again.json")
    again = fake.requests[first:]
    assert code == 0
    behind_or_pr = sum(1 for r in p["rows"] if r["state"] in ("behind", "pull request open", "closed by a person",
                                                                "branch used by another pull request"))
    visible = sum(1 for r in p["rows"] if r["state"] not in ("refused entry", "not visible"))
    # releases + one tree per template (the hidden one's 404 too) + one pull listing per template behind
    # + the issue events of the two closed pull requests; no file is read again
    assert len(again) == 1 + (visible + 1) + behind_or_pr + 2
    assert not any("/contents/" in s.path for s in again)
    conditional = [s for s in again if s.headers.get("If-None-Match")]
    assert len(conditional) == len(again) - 1          # all but the 404 of the repository nobody can see
    assert (p["requests"]["sent"], p["requests"]["conditional"], p["requests"]["not-modified"]) == (
        len(again), len(again) - 1, len(again) - 1)
    assert f"{len(again)} requests" in captured.err


def test_a_no_op_fleet_costs_one_request_per_template(fake, tmp_path, capsys):
    fw.add_upstream(fake)
    lines = ["templates:"]
    for i in range(12):
        fw.set_state(fake, f"acme/t{i}", "up to date")
        lines.append(f"  - repository: acme/t{i}")
    lst = tmp_path / "fleet.yml"
    lst.write_text("\n".join(lines) + "\n")
    plan(capsys, tmp_path, lst)
    first = len(fake.requests)
    code, p, _ = plan(capsys, tmp_path, lst)
    assert code == 0 and p["packs"] == [] and p["pull-requests"] == []
    again = fake.requests[first:]
    assert len(again) == 12 + 1
    assert all(s.headers.get("If-None-Match") for s in again)
    assert p["requests"] == {"sent": 13, "conditional": 13, "not-modified": 13, "templates": 12}


def test_a_changed_pin_file_is_the_only_file_read_again(fake, world, tmp_path, capsys):
    plan(capsys, tmp_path, world)
    plan(capsys, tmp_path, world)    # answered from the cache: the blobs it did not read are kept all the same
    fw.add_template(fake, "acme/current-a", {"requirements.txt": b"executorch==1.5.1\ntorch==2.10.0\n"})
    first = len(fake.requests)
    code, p, _ = plan(capsys, tmp_path, world)
    reads = [s.path for s in fake.requests[first:] if "/contents/" in s.path]
    assert reads == ["/repos/acme/current-a/contents/requirements.txt"]
    assert next(r for r in p["rows"] if r["template"] == "acme/current-a")["state"] == "up to date"


def test_a_template_moved_upstream_since_the_last_run_is_planned_again(fake, world, tmp_path, capsys):
    plan(capsys, tmp_path, world)
    fw.add_template(fake, "acme/behind-b", fw.pin_files("1.5.1"))
    code, p, _ = plan(capsys, tmp_path, world)
    assert "acme-behind-b" not in {j["key"] for j in p["pull-requests"]}
    assert next(r for r in p["rows"] if r["template"] == "acme/behind-b")["state"] == "up to date"


def test_secondary_rate_limit_is_waited_out_and_the_fleet_resumes(fake, world, tmp_path, capsys, monkeypatch):
    slept = []
    monkeypatch.setattr("time.sleep", slept.append)
    monkeypatch.setenv("EXECUTORCH_PACK_BOT_ATTEMPTS", "2")   # the client's own retries: two attempts per request
    limited = {"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try "
                          "again.", "documentation_url": "https://docs.github.com/rest"}
    fake.faults.append(Fault("GET", r"^/repos/acme/behind-b/git/trees/", 403, limited, {"Retry-After": "7"}, times=2))
    fake.faults.append(Fault("GET", r"^/repos/acme/current-a/git/trees/", 429, {"message": "Too many requests"},
                             {"Retry-After": "3"}, times=4))
    code, p, _ = plan(capsys, tmp_path, world, "--pause", "5")
    assert code == 0
    rows = {r["template"]: r["state"] for r in p["rows"]}
    assert rows["acme/behind-b"] == "behind" and rows["acme/current-a"] == "up to date"
    # behind-b and current-a gave up in pass 1 (the longest Retry-After: 7), current-a again in pass 2 (3)
    assert slept == [7.0, 3.0]
    assert "acme-behind-b" in {j["key"] for j in p["pull-requests"]}


def test_a_template_still_rate_limited_after_every_pass_is_a_row_not_a_failed_fleet(fake, world, tmp_path, capsys,
                                                                                  monkeypatch):
    monkeypatch.setattr("time.sleep", lambda s: None)
    fake.faults.append(Fault("GET", r"^/repos/acme/behind-b/git/trees/", 429, {"message": "Too many requests"},
                             {"Retry-After": "1"}, times=100))
    code, p, _ = plan(capsys, tmp_path, world)
    assert code == 0
    row = next(r for r in p["rows"] if r["template"] == "acme/behind-b")
    assert row["state"] == "rate limited" and not row["job"]
    assert "tried 3 times, planned again by the next run" in row["reason"]
    assert len(p["pull-requests"]) == len(PULL_KEYS) - 1


def test_upstream_that_cannot_be_listed_fails_the_plan_as_transient(fake, world, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("time.sleep", lambda s: None)
    fake.faults.append(Fault("GET", r"^/repos/pytorch/executorch/releases", 503, {"message": "down"}, times=100))
    code, p, captured = plan(capsys, tmp_path, world)
    assert code == 3 and p is None
    assert "list the releases of pytorch/executorch" in captured.err


def test_more_jobs_than_the_matrix_holds_are_deferred(fake, world, tmp_path, capsys):
    code, p, _ = plan(capsys, tmp_path, world, "--max-jobs", "3")
    assert [j["key"] for j in p["pull-requests"]] == ["acme-behind-a", "acme-behind-b", "acme-pr-old"]
    deferred = [r["template"] for r in p["rows"] if r["state"] == "deferred"]
    assert len(deferred) == len(PULL_KEYS) - 3
    assert {x["pack-version"] for x in p["packs"]} == {"1.5.1"}


def test_two_branches_sharing_one_bot_branch_plan_only_the_first(fake, tmp_path, capsys):
    fw.add_upstream(fake)
    fw.add_template(fake, "acme/two", fw.pin_files("1.4.0"))
    fw.add_template(fake, "acme/two", fw.pin_files("1.4.0"), "dev")
    lst = tmp_path / "fleet.yml"
    lst.write_text("templates:\n  - repository: acme/two\n    branches: [main, dev]\n")
    code, p, _ = plan(capsys, tmp_path, lst)
    assert [j["key"] for j in p["pull-requests"]] == ["acme-two-main"]
    dev = next(r for r in p["rows"] if r["template"] == "acme/two@dev")
    assert dev["state"] == "error" and "as acme/two@main's does" in dev["reason"]


def test_github_outputs_are_matrices_for_fromjson(fake, world, tmp_path, capsys, monkeypatch):
    out = tmp_path / "out.txt"
    monkeypatch.setenv("GITHUB_OUTPUT", str(out))
    plan(capsys, tmp_path, world)
    text = out.read_text()
    values = {}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if "<<" in line:
            name, delim = line.split("<<", 1)
            values[name] = lines[i + 1]
    assert json.loads(values["packs"])["include"][0]["pack-version"] == "1.4.2"
    assert {j["key"] for j in json.loads(values["pull-requests"])["include"]} == PULL_KEYS
    assert (values["pack-count"], values["pull-request-count"]) == ("5", str(len(PULL_KEYS)))
    assert values["build-count"] == "4" and len(json.loads(values["builds"])["include"]) == 4


def test_discovery_by_organization_topic(fake, tmp_path, capsys):
    fw.add_upstream(fake)
    for name, topics, archived in (("a", ["cmsis-executorch"], False), ("b", ["other"], False),
                                   ("c", ["cmsis-executorch"], True), ("d", ["cmsis-executorch"], False)):
        fw.set_state(fake, f"org1/{name}", "behind")
        fake.repo(f"org1/{name}").topics, fake.repo(f"org1/{name}").archived = topics, archived
    lst = tmp_path / "fleet.yml"
    lst.write_text("templates:\n  - repository: org1/d\n    track: '1.4'\n"
                   "discover:\n  - organization: org1\n    topic: cmsis-executorch\n"
                   "  - organization: nobody\n    topic: cmsis-executorch\n")
    code, p, _ = plan(capsys, tmp_path, lst)
    assert code == 0
    assert {j["key"]: j["version"] for j in p["pull-requests"]} == {"org1-d": "1.4.2", "org1-a": "1.5.1"}
    refused = [r for r in p["rows"] if r["state"] == "refused entry"]
    assert [r["template"] for r in refused] == ["organization: nobody"]
    assert refused[0]["reason"] == (f"{lst}:7: no repository of nobody that the token can see carries the topic "
                                    "cmsis-executorch (is the App installed there?)")


@pytest.mark.parametrize("text, where, message", [
    ("- acme/a\n", 1, "expected a mapping with templates: and/or discover:"),
    ("templates: acme/a\n", 1, "templates: expected a list of entries"),
    ("templates: []\nrepos: []\n", 2, "unknown key 'repos'"),
    ("templates:\n  - repository: [\n", 3, "not valid YAML"),
    ("", None, "empty: expected templates: and/or discover:"),
])
def test_a_list_that_is_not_a_fleet_list_is_bad_input(fake, tmp_path, capsys, text, where, message):
    lst = tmp_path / "fleet.yml"
    lst.write_text(text)
    code, p, captured = plan(capsys, tmp_path, lst)
    assert code == 2 and p is None and fake.requests == []
    assert f"{lst}:{where}: " + message in captured.err if where else f"{lst}: {message}" in captured.err


@pytest.mark.parametrize("entry, reason", [
    ("  - repository: acme/a\n    track: '1.x'\n", "track '1.x' is not X or X.Y (a release series such as 1.4)"),
    ("  - repository: acme/a\n    branches: []\n", "branches: empty list"),
    ("  - repository: acme/a\n    branch: 'bad..name'\n", "branches: 'bad..name' is not a valid branch name"),
    ("  - repository: acme/a\n    branch: main\n    branches: [dev]\n", "give branch: or branches:, not both"),
    ("  - acme/a\n", "expected a mapping with repository:"),
    ("  - repository: -acme/a\n", "'-acme' is not a GitHub owner name (letters, digits, single hyphens)"),
    ("  - track: '1.4'\n", "repository: missing"),
])
def test_a_malformed_entry_is_a_row_and_the_rest_proceed(fake, tmp_path, capsys, entry, reason):
    fw.add_upstream(fake)
    fw.set_state(fake, "acme/ok", "behind")
    lst = tmp_path / "fleet.yml"
    lst.write_text("templates:\n" + entry + "  - repository: acme/ok\n")
    code, p, _ = plan(capsys, tmp_path, lst)
    assert code == 0
    assert [r["reason"] for r in p["rows"] if r["state"] == "refused entry"] == [f"{lst}:2: {reason}"]
    assert [j["key"] for j in p["pull-requests"]] == ["acme-ok"]


def test_the_cache_keeps_only_what_this_run_used_and_no_file_content_under_an_etag(fake, world, tmp_path, capsys):
    plan(capsys, tmp_path, world)
    cache = json.loads((tmp_path / "cache" / "fleet.json").read_text())
    assert not any("/contents/" in k for k in cache["etags"])
    assert len(cache["pins"]) == 20          # one answer per distinct set of pin files (the hidden one has none)
    (tmp_path / "fleet-small.yml").write_text("templates:\n  - repository: acme/current-a\n")
    plan(capsys, tmp_path, tmp_path / "fleet-small.yml")
    cache = json.loads((tmp_path / "cache" / "fleet.json").read_text())
    assert sorted(k.split("?")[0] for k in cache["etags"]) == ["/repos/acme/current-a/git/trees/HEAD",
                                                                "/repos/pytorch/executorch/releases"]
    assert len(cache["pins"]) == 1 and len(cache["blobs"]) == 3   # csolution, cbuild-pack, requirements.txt


@pytest.mark.parametrize("content", ["{not json", '{"format": 99}', '{"format": 1, "etags": [1, 2]}', ""])
def test_a_damaged_cache_file_only_costs_requests(fake, world, tmp_path, capsys, content):
    code, fresh, _ = plan(capsys, tmp_path, world)
    (tmp_path / "cache" / "fleet.json").write_text(content)
    code, again, _ = plan(capsys, tmp_path, world)
    assert code == 0 and again["rows"] == fresh["rows"] and again["packs"] == fresh["packs"]
    assert again["requests"]["sent"] == fresh["requests"]["sent"]


@pytest.mark.parametrize("extra, message", [
    (("--upstream", "pytorch/executorch"), "--upstream pytorch/executorch: expected github:OWNER/NAME"),
    (("--max-jobs", "0"), "--max-jobs 0: expected 1 to 256"),
    (("--max-jobs", "300"), "--max-jobs 300: expected 1 to 256"),
    (("--pause", "-1"), "--pause -1: expected a number of seconds, 0 or more"),
])
def test_bad_options_are_refused_before_any_request(fake, world, tmp_path, capsys, extra, message):
    code, captured = cli(capsys, "fleet-plan", "--list", str(world), *extra)
    assert code == 2 and message in captured.err and fake.requests == []


def test_a_missing_list_file_is_named(fake, tmp_path, capsys):
    code, captured = cli(capsys, "fleet-plan", "--list", str(tmp_path / "nope.yml"))
    assert code == 2 and f"{tmp_path / 'nope.yml'}: cannot read the fleet list" in captured.err
