"""fleet-plan reads three kinds of foreign input: the fleet list, GitHub's answers and the cache file kept between
runs.  None of them can make it write outside its scratch folder, send a request for a name GitHub would not give,
or stop with an internal error: a damaged cache only costs requests, an odd answer is a row or is left out, and a
list that is not one is bad input naming the file and line."""

from __future__ import annotations

import json
import tempfile

import pytest

import fleetworld as fw
from fakegithub import UPSTREAM, Fault
from github_world import cli
from test_fleet_plan import plan


def one(fake, tmp_path, name="acme/a", state="behind"):
    fw.add_upstream(fake)
    fw.set_state(fake, name, state)
    lst = tmp_path / "fleet.yml"
    lst.write_text(f"templates:\n  - repository: {name}\n")
    return lst


def rows(p):
    return [(r["template"], r["state"], r["current"], r["target"], r["reason"]) for r in p["rows"]]


BEHIND = [("acme/a", "behind", "1.4.0", "1.5.1", "open a pull request for 1.5.1")]


def test_a_tree_entry_whose_path_leaves_the_repository_is_never_written(fake, tmp_path, capsys, monkeypatch):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    lst = one(fake, tmp_path)
    real = fake._route.__func__  # the fake's own tree, with entries GitHub would never list added

    def route(self, req, body):
        resp = real(self, req, body)
        if "/git/trees/" in req.path:
            tree = json.loads(resp.get_data())
            tree["tree"] += [{"path": p, "type": "blob", "mode": "100644", "sha": "1" * 40}
                             for p in ("../requirements.txt", "/abs/requirements.txt", "a/../../requirements.txt")]
            return self._json(tree)
        return resp
    monkeypatch.setattr(fake, "_route", route.__get__(fake))
    # whatever path such an entry would be asked at, it is answered (only the real file is not faulted)
    fake.faults.append(Fault("GET", r"^(?!/repos/acme/a/contents/requirements\.txt$).*requirements\.txt$", 200,
                             {"type": "file", "encoding": "base64", "content": "ZXhlY3V0b3JjaD09OS45LjkK"}, times=3))
    code, p, _ = plan(capsys, tmp_path, lst)
    assert code == 0 and rows(p) == BEHIND
    assert sorted(x.name for x in scratch.iterdir()) == []
    assert not any(".." in s.path or "/abs/" in s.path for s in fake.requests)


@pytest.mark.parametrize("pins", [{"current": 5}, {"current": "garbage", "bot_branch": "x", "error": ""},
                                  {"current": "1.4.0", "bot_branch": "a..b", "error": "", "label": None, "base": None},
                                  [1], None])
def test_a_cached_pin_answer_of_the_wrong_shape_is_read_again(fake, tmp_path, capsys, pins):
    lst = one(fake, tmp_path)
    plan(capsys, tmp_path, lst)
    cache = tmp_path / "cache" / "fleet.json"
    data = json.loads(cache.read_text())
    data["pins"] = {k: pins for k in data["pins"]}
    cache.write_text(json.dumps(data))
    code, p, _ = plan(capsys, tmp_path, lst, name="again.json")
    assert code == 0 and rows(p) == BEHIND


@pytest.mark.parametrize("value", [[1], "x", None, {"files": [1]}, {"truncated": False},
                                   {"truncated": False, "files": {"../../x/requirements.txt": "a"}},
                                   {"truncated": False, "files": {"requirements.txt": 5}}])
def test_a_cached_answer_of_the_wrong_shape_is_asked_again_without_its_etag(fake, tmp_path, capsys, value):
    lst = one(fake, tmp_path)
    plan(capsys, tmp_path, lst)
    cache = tmp_path / "cache" / "fleet.json"
    data = json.loads(cache.read_text())
    for k in data["etags"]:
        data["etags"][k]["value"] = value
    cache.write_text(json.dumps(data))
    first = len(fake.requests)
    code, p, _ = plan(capsys, tmp_path, lst, name="again.json")
    assert code == 0 and rows(p) == BEHIND
    assert [s.headers.get("If-None-Match") for s in fake.requests[first:]] == [None, None, None]   # releases, tree, pulls


def test_odd_pull_request_items_are_left_out_or_read_with_their_fields_as_missing(fake, tmp_path, capsys):
    lst = one(fake, tmp_path)
    fake.faults.append(Fault("GET", r"/repos/acme/a/pulls$", 200, [
        {"number": "7", "title": 5}, {"number": 3, "state": "open", "title": 5, "body": 7, "head": "x"}]))
    code, p, _ = plan(capsys, tmp_path, lst)
    assert code == 0
    assert rows(p) == [("acme/a", "branch used by another pull request", "1.4.0", "1.5.1",
                        f"#3 is open from {fw.BOT_BRANCH} without the bot's fingerprint; merge or close it to hand "
                        "the branch back")]


def test_a_discovered_name_github_would_not_give_is_never_requested(fake, tmp_path, capsys):
    fw.add_upstream(fake)
    fw.set_state(fake, "org1/a", "behind")
    fake.faults.append(Fault("GET", r"/orgs/org1/repos", 200, [
        {"full_name": name, "topics": ["t"], "archived": False}
        for name in ("noslash", "a/b/../../x", "org1/a/b", "../x", 5, "org1/a")]))
    lst = tmp_path / "fleet.yml"
    lst.write_text("discover:\n  - organization: org1\n    topic: t\n")
    code, p, _ = plan(capsys, tmp_path, lst)
    assert code == 0
    assert [(r["template"], r["state"]) for r in p["rows"]] == [("org1/a", "behind")]
    assert sorted({s.path.split("/")[2] for s in fake.requests if s.path.startswith("/repos/")}) == ["org1", "pytorch"]


@pytest.mark.parametrize("entry, reason", [
    ('  - repository: "acme\\n/a"\n', "'acme\\n' is not a GitHub owner name (letters, digits, single hyphens)"),
    ('  - repository: "acme/a\\nb"\n', "'a\\nb' is not a GitHub repository name (letters, digits, '.', '-', '_')"),
    ('  - repository: acme/a\n    track: "1\\n.4"\n', "track '1\\n.4' is not X or X.Y (a release series such as 1.4)"),
    ('  - &e\n    repository: acme/a\n    branches: [*e]\n', "branches: 'a list or mapping' is not a valid branch name"),
])
def test_names_with_a_line_break_and_nested_branches_are_refused_rows(fake, tmp_path, capsys, entry, reason):
    lst = one(fake, tmp_path, "acme/ok")
    lst.write_text("templates:\n" + entry + "  - repository: acme/ok\n")
    code, p, _ = plan(capsys, tmp_path, lst)
    assert code == 0
    assert [r["reason"] for r in p["rows"] if r["state"] == "refused entry"] == [f"{lst}:2: {reason}"]
    assert [j["key"] for j in p["pull-requests"]] == ["acme-ok"]


def test_a_list_that_is_not_utf8_names_the_line(fake, tmp_path, capsys):
    lst = tmp_path / "fleet.yml"
    lst.write_bytes(b"templates:\n  - repository: acme/a\n  - repository: acme/\xff\n")
    code, p, out = plan(capsys, tmp_path, lst)
    assert code == 2 and p is None and fake.requests == []
    assert f"{lst}:3: not UTF-8 text (byte 0xff)" in out.err


def test_a_huge_list_is_refused_before_it_is_parsed(fake, tmp_path, capsys):
    lst = tmp_path / "fleet.yml"
    lst.write_text("templates:\n" + "  # padding\n" * 400_000)
    code, p, out = plan(capsys, tmp_path, lst)
    assert code == 2 and p is None and fake.requests == []
    assert f"{lst}: more than 4000000 bytes: not a fleet list (5000 entries at most)" in out.err


def test_a_list_that_is_a_folder_is_named(fake, tmp_path, capsys):
    code, out = cli(capsys, "fleet-plan", "--list", str(tmp_path), "--upstream", f"github:{UPSTREAM}")
    assert code == 2 and f"{tmp_path}: cannot read the fleet list: not a regular file" in out.err
    assert fake.requests == []


def test_a_pin_file_that_is_a_symbolic_link_is_a_template_error(fake, tmp_path, capsys, monkeypatch):
    lst = one(fake, tmp_path)
    real = fake._route.__func__

    def route(self, req, body):
        resp = real(self, req, body)
        if "/git/trees/" in req.path:
            tree = json.loads(resp.get_data())
            for e in tree["tree"]:
                if e["path"] == "requirements.txt":
                    e["mode"] = "120000"
            return self._json(tree)
        return resp
    monkeypatch.setattr(fake, "_route", route.__get__(fake))
    code, p, _ = plan(capsys, tmp_path, lst)
    assert code == 0
    assert rows(p) == [("acme/a", "template error", "", "", "requirements.txt: a symbolic link in acme/a; the bot "
                        "reads no pin file through a link (its target may be outside the repository): run `check` "
                        "in that repository")]
    assert not any("/contents/" in s.path for s in fake.requests)


@pytest.mark.parametrize("where", ["folder", "missing"])
def test_an_out_file_that_cannot_be_written_is_refused_before_any_request(fake, tmp_path, capsys, where):
    lst = one(fake, tmp_path)
    out = tmp_path if where == "folder" else tmp_path / "nope" / "plan.json"
    code, got = cli(capsys, "fleet-plan", "--list", str(lst), "--upstream", f"github:{UPSTREAM}", "--out", str(out),
                    "--cache", str(tmp_path / "cache.json"))
    why = "is a directory" if where == "folder" else f"the folder {tmp_path / 'nope'} does not exist"
    assert code == 2 and f"{out}: cannot write the plan: {why}" in got.err
    assert fake.requests == [] and not (tmp_path / "cache.json").exists()


def test_a_branch_name_with_a_hash_is_read_at_that_branch_not_a_shorter_one(fake, tmp_path, capsys):
    fw.add_upstream(fake)
    # branch "a" holds other files: a tree of "a" with the contents of "a#b" would not be read as "a#b"
    fw.add_template(fake, "acme/a", {f"other/{k}": v for k, v in fw.pin_files("1.5.1").items()}, branch="a")
    fw.add_template(fake, "acme/a", fw.pin_files("1.4.0"), branch="a#b")
    lst = tmp_path / "fleet.yml"
    lst.write_text('templates:\n  - repository: acme/a\n    branch: "a#b"\n')
    code, p, _ = plan(capsys, tmp_path, lst)
    assert code == 0
    assert [(r["template"], r["state"], r["current"]) for r in p["rows"]] == [("acme/a@a#b", "behind", "1.4.0")]


def test_a_cached_pin_file_whose_text_is_not_its_blob_is_read_again(fake, tmp_path, capsys):
    lst = one(fake, tmp_path)
    plan(capsys, tmp_path, lst)
    cache = tmp_path / "cache" / "fleet.json"
    data = json.loads(cache.read_text())
    data["pins"] = {}    # the pins are worked out again from the files
    data["blobs"] = {sha: text.replace("1.4.0", "1.5.1") for sha, text in data["blobs"].items()}
    cache.write_text(json.dumps(data))
    first = len(fake.requests)
    code, p, _ = plan(capsys, tmp_path, lst, name="again.json")
    assert code == 0 and rows(p) == BEHIND
    assert sum("/contents/" in s.path for s in fake.requests[first:]) == 3
