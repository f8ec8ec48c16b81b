"""Which code a fleet pack build runs, as the plan decides it: every build is one template's own (its requirements,
its job), never another template's; a repository found by ``discover:`` alone never gets a build (the list's
``templates:`` is the owner's allow-list); a release asset is fetched only with the digest GitHub publishes for it
(the release asset's ``digest``), which the plan records in each pull-request row for the pull-request job to check
the downloaded pack against."""

from __future__ import annotations

import hashlib

import fleetworld as fw
from fakegithub import UPSTREAM
from test_fleet_plan import plan


def _behind(fake, full: str, state: str = "behind") -> None:
    fw.set_state(fake, full, state)


def test_two_templates_on_one_local_pack_get_a_build_each(fake, tmp_path, capsys):
    """A -local pack shared by two templates was built once, in a job that ran the first template's requirements
    (with discover:, the newest repository's): the second template's pull request carried a pack that the first
    template's build code could have shaped."""
    fw.add_upstream(fake)
    for full in ("acme/first", "acme/second"):
        _behind(fake, full, "local")
    lst = tmp_path / "fleet.yml"
    lst.write_text("templates:\n  - repository: acme/first\n  - repository: acme/second\n")
    code, p, _ = plan(capsys, tmp_path, lst)
    assert code == 0
    builds = [(b["pack-version"], b["template"], b["build-key"], b["artifact"]) for b in p["builds"]]
    assert builds == [("1.5.1-local", "acme/first", "acme-first", "executorch-pack-1.5.1-local-acme-first"),
                      ("1.5.1-local", "acme/second", "acme-second", "executorch-pack-1.5.1-local-acme-second")]
    pulls = {j["repository"]: j["artifact"] for j in p["pull-requests"]}
    assert pulls == {"acme/first": "executorch-pack-1.5.1-local-acme-first",
                     "acme/second": "executorch-pack-1.5.1-local-acme-second"}
    # artifact names are unique per producer: no pack job can upload under another's name
    names = [x["artifact"] for x in p["packs"]]
    assert len(names) == len(set(names))


def test_a_discovered_repository_never_gets_a_build(fake, tmp_path, capsys):
    """Anyone who can create a repository in the organization could give it the topic and its own pack label
    (PyTorch::ExecuTorch@1.4.0-x) and so get a build job that pip-installs its requirements."""
    fw.add_upstream(fake)
    _behind(fake, "org1/listed-local", "local")
    _behind(fake, "org1/found-local", "local")
    _behind(fake, "org1/found-asset")
    for name in ("listed-local", "found-local", "found-asset"):
        fake.repo(f"org1/{name}").topics = ["cmsis-executorch"]
    lst = tmp_path / "fleet.yml"
    lst.write_text("templates:\n  - repository: org1/listed-local\n"
                   "discover:\n  - organization: org1\n    topic: cmsis-executorch\n")
    code, p, _ = plan(capsys, tmp_path, lst)
    assert code == 0
    assert [b["template"] for b in p["builds"]] == ["org1/listed-local"]
    assert {j["repository"]: j["source"] for j in p["pull-requests"]} == {
        "org1/listed-local": "build", "org1/found-asset": "release-asset"}
    row = next(r for r in p["rows"] if r["template"] == "org1/found-local")
    assert (row["state"], row["job"]) == ("build not allowed", False)
    assert row["reason"] == ("its pack 1.5.1-local must be built from its own requirements, and the fleet builds "
                             "only for repositories its list names under templates: (found by discover:)")


def test_a_release_asset_is_checked_against_the_digest_github_publishes(fake, tmp_path, capsys):
    fw.add_upstream(fake)
    _behind(fake, "acme/a")
    lst = tmp_path / "fleet.yml"
    lst.write_text("templates:\n  - repository: acme/a\n")
    code, p, _ = plan(capsys, tmp_path, lst)
    (job,) = p["pull-requests"]
    assert (job["source"], job["sha256"]) == ("release-asset", hashlib.sha256(fw.PACK_151).hexdigest())
    assert p["builds"] == []


def test_a_release_asset_without_a_published_digest_is_built_not_fetched(fake, tmp_path, capsys):
    """Without GitHub's digest nothing recorded before foreign code ran can vouch for the downloaded file."""
    fw.add_sample_release(fake, "v1.4.0", created_at="2026-06-01T00:00:00Z")
    fake.add_release(UPSTREAM, "v1.5.1", created_at="2026-09-01T00:00:00Z",
                     assets={"PyTorch.ExecuTorch.1.5.1.pack": fw.PACK_151},
                     digest={"PyTorch.ExecuTorch.1.5.1.pack": None})
    _behind(fake, "acme/a")
    lst = tmp_path / "fleet.yml"
    lst.write_text("templates:\n  - repository: acme/a\n")
    code, p, _ = plan(capsys, tmp_path, lst)
    (job,) = p["pull-requests"]
    assert (job["source"], job["sha256"], job["artifact"]) == ("build", "", "executorch-pack-1.5.1-acme-a")
