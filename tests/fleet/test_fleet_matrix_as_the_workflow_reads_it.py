"""The fleet plan's matrices as the fleet workflow reads them (``strategy.matrix: ${{ fromJSON(...) }}`` and
``matrix.KEY`` in its steps; GitHub docs, "Using a matrix for your jobs"): every key any step of the ``pack`` and
``pull-request`` jobs reads is in every item, with the value of that template (the pack's ``tag``, the
``template-owner``/``template-name`` of the checkout that builds it, ...); two open bot pull requests on one
branch are read by the newest; a discovered organisation's listing is checked again when it comes from the cache;
an organisation refused does not end the discovery of the next."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
import yaml

import fleetworld as fw
from fakegithub import UPSTREAM, Fault
from test_fleet_plan import plan
from bot.events.state import dump

#: A bot PR's body: its fingerprint and the version the bot recorded it proposes (bot.events.state)
RECORDED = fw.FP + "\n" + dump({"version": "1.5.1"}) + "\n"

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github/workflows/executorch-pack-bot-fleet.yml"
LIST = ("templates:\n  - repository: acme/behind-a\n  - repository: acme/track14\n    track: \"1.4\"\n"
        "  - repository: org2/local-a\n  - repository: acme/examples\n    branch: hackathon\n    track: \"1.4\"\n")


def read_keys(job: str) -> set[str]:
    """Every ``matrix.KEY`` (or ``matrix['KEY']``) the fleet workflow's ``job`` reads."""
    text = yaml.safe_dump(yaml.safe_load(WORKFLOW.read_text())["jobs"][job])
    return set(re.findall(r"matrix\.([A-Za-z0-9_-]+)", text)) | set(re.findall(r"matrix\[['\"]([^'\"]+)", text))


@pytest.fixture
def small(fake, tmp_path):
    fw.add_upstream(fake)
    for full, state in (("acme/behind-a", "behind"), ("acme/track14", "track 1.4"), ("org2/local-a", "local"),
                        ("acme/examples", "two branches")):
        fw.set_state(fake, full, state)
    lst = tmp_path / "fleet.yml"
    lst.write_text(LIST)
    return lst


def asset_url(fake) -> str:
    rel = next(r for r in fake.repo(UPSTREAM).releases if r["tag_name"] == "v1.5.1")
    return rel["assets"][0]["browser_download_url"]


def test_every_key_the_workflow_reads_is_in_every_matrix_item(fake, small, tmp_path, capsys):
    code, p, _ = plan(capsys, tmp_path, small)
    assert code == 0 and p["packs"] and p["pull-requests"]
    for job, items in (("pack", p["packs"]), ("pull-request", p["pull-requests"])):
        keys = read_keys(job)
        assert keys, job
        for item in items:
            assert keys <= set(item), (job, sorted(keys - set(item)))
            assert all(isinstance(item[k], (str, int)) and not isinstance(item[k], bool) for k in keys)


def test_the_pack_matrix_names_each_pack_s_tag_source_and_the_checkout_that_builds_it(fake, small, tmp_path, capsys):
    code, p, _ = plan(capsys, tmp_path, small)
    assert code == 0
    # one build per template that needs one (its own requirements), named by its key; a release asset is fetched
    # once for all and checks out no template
    assert p["packs"] == [
        {"pack-version": "1.4.2", "version": "1.4.2", "tag": "v1.4.2", "source": "build", "pack-url": "", "sha256": "",
         "artifact": "executorch-pack-1.4.2-acme-examples-hackathon", "build-key": "acme-examples-hackathon",
         "template": "acme/examples", "template-owner": "acme", "template-name": "examples", "branch": "hackathon",
         "templates": 1},
        {"pack-version": "1.4.2", "version": "1.4.2", "tag": "v1.4.2", "source": "build", "pack-url": "", "sha256": "",
         "artifact": "executorch-pack-1.4.2-acme-track14", "build-key": "acme-track14", "template": "acme/track14",
         "template-owner": "acme", "template-name": "track14", "branch": "", "templates": 1},
        {"pack-version": "1.5.1", "version": "1.5.1", "tag": "v1.5.1", "source": "release-asset",
         "pack-url": asset_url(fake), "sha256": hashlib.sha256(fw.PACK_151).hexdigest(),
         "artifact": "executorch-pack-1.5.1", "build-key": "", "template": "", "template-owner": "",
         "template-name": "", "branch": "", "templates": 1},
        {"pack-version": "1.5.1-local", "version": "1.5.1", "tag": "v1.5.1", "source": "build", "pack-url": "",
         "sha256": "", "artifact": "executorch-pack-1.5.1-local-org2-local-a", "build-key": "org2-local-a",
         "template": "org2/local-a", "template-owner": "org2", "template-name": "local-a", "branch": "",
         "templates": 1}]


def test_the_pull_request_matrix_holds_each_template_s_job(fake, small, tmp_path, capsys):
    code, p, _ = plan(capsys, tmp_path, small)
    assert code == 0
    assert p["pull-requests"] == [
        {"repository": "acme/behind-a", "owner": "acme", "name": "behind-a", "source": "release-asset",
         "pack-url": asset_url(fake), "sha256": hashlib.sha256(fw.PACK_151).hexdigest(), "branch": "",
         "version": "1.5.1", "pack-version": "1.5.1", "artifact": "executorch-pack-1.5.1", "key": "acme-behind-a",
         "current": "1.4.0", "bot-branch": fw.BOT_BRANCH},
        {"repository": "acme/track14", "owner": "acme", "name": "track14", "source": "build", "pack-url": "",
         "sha256": "", "branch": "", "version": "1.4.2", "pack-version": "1.4.2",
         "artifact": "executorch-pack-1.4.2-acme-track14", "key": "acme-track14", "current": "1.4.0",
         "bot-branch": fw.BOT_BRANCH},
        {"repository": "org2/local-a", "owner": "org2", "name": "local-a", "source": "build", "pack-url": "",
         "sha256": "", "branch": "", "version": "1.5.1", "pack-version": "1.5.1-local",
         "artifact": "executorch-pack-1.5.1-local-org2-local-a", "key": "org2-local-a", "current": "1.4.0",
         "bot-branch": fw.BOT_BRANCH},
        {"repository": "acme/examples", "owner": "acme", "name": "examples", "source": "build", "pack-url": "",
         "sha256": "", "branch": "hackathon", "version": "1.4.2", "pack-version": "1.4.2",
         "artifact": "executorch-pack-1.4.2-acme-examples-hackathon", "key": "acme-examples-hackathon",
         "current": "1.4.0", "bot-branch": "executorch-pack-bot/hackathon"}]
    assert [(r["template"], r["key"], r["job"]) for r in p["rows"]] == [
        ("acme/behind-a", "acme-behind-a", True), ("acme/track14", "acme-track14", True),
        ("org2/local-a", "org2-local-a", True), ("acme/examples@hackathon", "acme-examples-hackathon", True)]


@pytest.mark.parametrize("versions, state, reason, job", [
    (("1.4.2", "1.5.1"), "pull request open", "#2 proposes 1.5.1", False),
    (("1.5.1", "1.4.2"), "behind", "#2 proposes 1.4.2: update it", True),
    (("1.4.2", "1.4.2"), "behind", "#2 proposes 1.4.2: update it", True),
])
def test_two_open_bot_pull_requests_on_one_branch_are_read_by_the_newest(fake, tmp_path, capsys, versions, state,
                                                                          reason, job):
    fw.add_upstream(fake)
    fw.add_template(fake, "acme/a", fw.pin_files("1.4.0"))
    for v in versions:
        fw.bot_pull(fake, "acme/a", v)
    lst = tmp_path / "fleet.yml"
    lst.write_text("templates:\n  - repository: acme/a\n")
    code, p, _ = plan(capsys, tmp_path, lst)
    assert code == 0
    row = p["rows"][0]
    assert (row["state"], row["reason"], row["job"], row["pr_url"], row["pr_state"]) == (
        state, reason, job, "https://github.com/acme/a/pull/2", "open")


def orgs_key(org: str) -> str:
    return f"/orgs/{org}/repos?per_page=100&type=all#pages"


@pytest.mark.parametrize("cached", [
    [{"full_name": "../x", "topics": ["t"], "archived": False}],        # a name GitHub would not give
    [{"full_name": "org1/b", "topics": "t", "archived": False}],        # topics not a list ("t" in "t")
    [{"full_name": "org1/b", "topics": ["t"], "archived": "no"}],       # archived not a flag
    [{"full_name": 5, "topics": ["t"], "archived": False}],
])
def test_a_cached_organisation_listing_of_the_wrong_shape_is_asked_again(fake, tmp_path, capsys, cached):
    fw.add_upstream(fake)
    fw.set_state(fake, "org1/a", "behind")
    fake.repo("org1/a").topics = ["t"]
    fw.set_state(fake, "org1/b", "behind")
    lst = tmp_path / "fleet.yml"
    lst.write_text("discover:\n  - organization: org1\n    topic: t\n")
    code, p, _ = plan(capsys, tmp_path, lst)
    assert code == 0 and [r["template"] for r in p["rows"]] == ["org1/a"]
    cache = tmp_path / "cache" / "fleet.json"
    data = json.loads(cache.read_text())
    assert sorted(data["etags"][orgs_key("org1")]["value"], key=lambda r: r["full_name"]) == [
        {"full_name": "org1/a", "archived": False, "topics": ["t"]},
        {"full_name": "org1/b", "archived": False, "topics": []}]
    data["etags"][orgs_key("org1")]["value"] = cached + data["etags"][orgs_key("org1")]["value"]
    cache.write_text(json.dumps(data))
    fake.requests.clear()
    code, p, _ = plan(capsys, tmp_path, lst, name="again.json")
    assert code == 0
    assert [(r["template"], r["state"]) for r in p["rows"]] == [("org1/a", "behind")]
    assert not any(".." in s.path or s.path.startswith("/repos/org1/b") for s in fake.requests)
    asked = [s for s in fake.requests if s.path == "/orgs/org1/repos"]
    assert len(asked) == 1 and not any(k.lower() == "if-none-match" for k in asked[0].headers)


def test_an_organisation_refused_does_not_end_the_discovery_of_the_next(fake, tmp_path, capsys):
    fw.add_upstream(fake)
    fw.set_state(fake, "org1/a", "behind")
    fake.repo("org1/a").topics = ["t"]
    fake.faults.append(Fault("GET", r"/orgs/gone/repos$", 404, {"message": "Not Found"}))
    fake.faults.append(Fault("GET", r"/orgs/odd/repos$", 200, {"message": "not a list"}))
    lst = tmp_path / "fleet.yml"
    lst.write_text("discover:\n  - organization: gone\n    topic: t\n  - organization: odd\n    topic: t\n"
                   "  - organization: org1\n    topic: t\n")
    code, p, _ = plan(capsys, tmp_path, lst)
    assert code == 0
    assert [(r["template"], r["state"], r["reason"]) for r in p["rows"]] == [
        ("org1/a", "behind", "open a pull request for 1.5.1"),
        ("organization: gone", "refused entry", f"{lst}:2: GitHub answers 404 for the organization gone: it does not "
                                                "exist or the App is not installed there"),
        ("organization: odd", "refused entry", f"{lst}:4: cannot list the repositories of odd: GitHub answered with "
                                               "JSON that is not a list")]
    assert [j["key"] for j in p["pull-requests"]] == ["org1-a"]


def test_a_cached_organisation_listing_of_the_right_shape_is_asked_conditionally(fake, tmp_path, capsys):
    fw.add_upstream(fake)
    fw.set_state(fake, "org1/a", "behind")
    fake.repo("org1/a").topics = ["t"]
    lst = tmp_path / "fleet.yml"
    lst.write_text("discover:\n  - organization: org1\n    topic: t\n")
    assert plan(capsys, tmp_path, lst)[0] == 0
    fake.requests.clear()
    code, p, _ = plan(capsys, tmp_path, lst, name="again.json")
    assert code == 0 and [(r["template"], r["state"]) for r in p["rows"]] == [("org1/a", "behind")]
    asked = [s for s in fake.requests if s.path == "/orgs/org1/repos"]
    assert len(asked) == 1 and any(k.lower() == "if-none-match" for k in asked[0].headers)


@pytest.mark.parametrize("topics", ["t", None, {"t": 1}, 5])
def test_topics_that_are_not_a_list_are_no_topics(fake, tmp_path, capsys, topics):
    fw.add_upstream(fake)
    fw.set_state(fake, "org1/a", "behind")
    fake.faults.append(Fault("GET", r"/orgs/org1/repos$", 200, [
        {"full_name": "org1/a", "topics": topics, "archived": False}]))
    lst = tmp_path / "fleet.yml"
    lst.write_text("discover:\n  - organization: org1\n    topic: t\n")
    code, p, _ = plan(capsys, tmp_path, lst)
    assert code == 0
    assert [(r["template"], r["state"]) for r in p["rows"]] == [("organization: org1", "refused entry")]


def test_a_discovered_repository_follows_its_rule_s_track_on_its_default_branch(fake, tmp_path, capsys):
    fw.add_upstream(fake)
    fw.set_state(fake, "org1/a", "behind")
    fake.repo("org1/a").topics = ["t", "u"]
    lst = tmp_path / "fleet.yml"
    lst.write_text("discover:\n  - organization: org1\n    topic: t\n    track: \"1.4\"\n"
                   "  - organization: org1\n    topic: u\n")
    code, p, _ = plan(capsys, tmp_path, lst)
    assert code == 0
    assert [(r["template"], r["branch"], r["track"], r["line"], r["target"], r["state"]) for r in p["rows"]] == [
        ("org1/a", "", "1.4", 0, "1.4.2", "build not allowed")]   # found twice: the first rule's entry, no
    # refused row; 1.4.2 has no pack asset, and a repository found by discover: alone gets no build
    assert p["pull-requests"] == []   # no pack for it, so no job


def closed_by_a_person(fake, tmp_path):
    fw.add_upstream(fake)
    fw.set_state(fake, "acme/a", "closed by a person")
    lst = tmp_path / "fleet.yml"
    lst.write_text("templates:\n  - repository: acme/a\n")
    return lst


def test_the_events_of_a_closed_pull_request_are_read_whole_and_cached_only_in_their_shape(fake, tmp_path, capsys):
    lst = closed_by_a_person(fake, tmp_path)
    code, p, _ = plan(capsys, tmp_path, lst)
    assert code == 0 and p["rows"][0]["state"] == "closed by a person"
    asked = [s for s in fake.requests if s.path == "/repos/acme/a/issues/1/events"]
    assert len(asked) == 1 and asked[0].query.get("per_page") in ("100", ["100"])
    cache = tmp_path / "cache" / "fleet.json"
    data = json.loads(cache.read_text())
    key = "/repos/acme/a/issues/1/events?per_page=100#pages"
    assert data["etags"][key]["value"] == [{"event": "closed", "at": "2026-11-01T00:00:00Z"}]
    # a cached answer of another shape (the branch deletion that would hand the versions back) is asked again
    data["etags"][key]["value"] = [{"event": "head_ref_deleted", "at": 5}, {"event": "closed"}]
    cache.write_text(json.dumps(data))
    fake.requests.clear()
    code, p, _ = plan(capsys, tmp_path, lst, name="again.json")
    assert code == 0 and p["rows"][0]["state"] == "closed by a person"
    asked = [s for s in fake.requests if s.path == "/repos/acme/a/issues/1/events"]
    assert len(asked) == 1 and not any(k.lower() == "if-none-match" for k in asked[0].headers)


def test_events_that_cannot_be_listed_name_the_pull_request(fake, tmp_path, capsys):
    lst = closed_by_a_person(fake, tmp_path)
    fake.faults.append(Fault("GET", r"/repos/acme/a/issues/1/events$", 200, {"message": "not a list"}))
    code, p, _ = plan(capsys, tmp_path, lst)
    assert code == 0
    assert (p["rows"][0]["state"], p["rows"][0]["reason"]) == (
        "error", "cannot list the events of #1 in acme/a: GitHub answered with JSON that is not a list")


def test_a_refused_entry_s_row_keeps_its_line(fake, tmp_path, capsys):
    fw.add_upstream(fake)
    lst = tmp_path / "fleet.yml"
    lst.write_text("templates:\n  - repository: not a repository\n  - reponame: acme/x\n")
    code, p, _ = plan(capsys, tmp_path, lst)
    assert code == 0
    assert [(r["template"], r["state"], r["line"], r["reason"].split(": ", 1)[0]) for r in p["rows"]] == [
        ("repository: not a repository", "refused entry", 2, f"{lst}:2"),
        ("reponame: acme/x", "refused entry", 3, f"{lst}:3")]


def test_an_up_to_date_template_s_row_names_its_pack_version(fake, tmp_path, capsys):
    fw.add_upstream(fake)
    fw.add_template(fake, "acme/plain", fw.pin_files("1.5.1"))
    fw.add_template(fake, "acme/local", fw.pin_files("1.5.1", pack="1.5.1-local"))
    lst = tmp_path / "fleet.yml"
    lst.write_text("templates:\n  - repository: acme/plain\n  - repository: acme/local\n")
    code, p, _ = plan(capsys, tmp_path, lst)
    assert code == 0
    assert [(r["template"], r["state"], r["pack_version"]) for r in p["rows"]] == [
        ("acme/plain", "up to date", "1.5.1"), ("acme/local", "up to date", "1.5.1-local")]


@pytest.mark.parametrize("head", ["x", {"repo": "acme/a", "ref": fw.BOT_BRANCH}, {"repo": None}])
def test_a_fingerprinted_pull_request_whose_head_is_not_described_is_not_the_bot_s(fake, tmp_path, capsys, head):
    fw.add_upstream(fake)
    fw.add_template(fake, "acme/a", fw.pin_files("1.4.0"))
    fake.faults.append(Fault("GET", r"/repos/acme/a/pulls$", 200, [
        {"number": 3, "state": "open", "title": "Bump ExecuTorch to 1.5.1", "body": "x\n" + RECORDED, "head": head,
         "html_url": "https://github.com/acme/a/pull/3"}]))
    lst = tmp_path / "fleet.yml"
    lst.write_text("templates:\n  - repository: acme/a\n")
    code, p, _ = plan(capsys, tmp_path, lst)
    assert code == 0
    assert (p["rows"][0]["state"], p["rows"][0]["pr_url"]) == ("branch used by another pull request",
                                                                "https://github.com/acme/a/pull/3")


@pytest.mark.parametrize("number", ["7", True, 7.0, None])
def test_a_pull_request_without_a_whole_number_is_left_out(fake, tmp_path, capsys, number):
    fw.add_upstream(fake)
    fw.add_template(fake, "acme/a", fw.pin_files("1.4.0"))
    fake.faults.append(Fault("GET", r"/repos/acme/a/pulls$", 200, [
        {"number": number, "state": "open", "title": "Bump ExecuTorch to 1.5.1", "body": RECORDED,
         "head": {"ref": fw.BOT_BRANCH, "repo": {"full_name": "acme/a"}}, "html_url": "https://github.com/acme/a/pull/7"}]))
    lst = tmp_path / "fleet.yml"
    lst.write_text("templates:\n  - repository: acme/a\n")
    code, p, _ = plan(capsys, tmp_path, lst)
    assert code == 0
    assert (p["rows"][0]["state"], p["rows"][0]["reason"]) == ("behind", "open a pull request for 1.5.1")


def test_a_bot_pull_request_without_an_address_has_none(fake, tmp_path, capsys):
    fw.add_upstream(fake)
    fw.add_template(fake, "acme/a", fw.pin_files("1.4.0"))
    fake.faults.append(Fault("GET", r"/repos/acme/a/pulls$", 200, [
        {"number": 4, "state": "open", "title": "Bump ExecuTorch to 1.5.1", "body": RECORDED,
         "head": {"ref": fw.BOT_BRANCH, "repo": {"full_name": "acme/a"}}}]))
    lst = tmp_path / "fleet.yml"
    lst.write_text("templates:\n  - repository: acme/a\n")
    code, p, _ = plan(capsys, tmp_path, lst)
    assert code == 0
    assert (p["rows"][0]["state"], p["rows"][0]["reason"], p["rows"][0]["pr_url"]) == (
        "pull request open", "#4 proposes 1.5.1", "")
