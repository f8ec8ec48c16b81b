"""The repository permissions each REST operation the bot uses needs (tests/worlds/openapi_contract.py ``PERMISSIONS``).

The values are GitHub's own permission data (repository github/docs, ``src/github-apps/data/.../
fine-grained-pat-permissions.json`` and ``server-to-server-permissions.json``; files and commits in the
docstring of tests/worlds/openapi_contract.py); docs/github.md shows them in its operations table.  These hold the
shape of that table's last column, the entries that were wrong before they were checked against that data,
and that every operation the bot uses has an entry (after every test, through ``check_exchanges``).
"""

from __future__ import annotations

import pytest

import openapi_contract as oc
from fakegithub import Exchange

needs_description = pytest.mark.needs("openapi")

# The repository permissions GitHub names (its displayTitle "Repository permissions for ..."), as used here.
GITHUB_NAMES = {"Administration", "Contents", "Issues", "Metadata", "Pull requests", "Workflows"}


def test_every_entry_names_github_repository_permissions_and_an_access():
    found = {(name, access) for sets in oc.PERMISSIONS.values() for one in sets for name, access in one}
    assert {name for name, _ in found} <= GITHUB_NAMES
    assert {access for _, access in found} <= {"read", "write"}
    assert all(sets and all(one for one in sets) for sets in oc.PERMISSIONS.values())


@pytest.mark.parametrize("operation, shown", [
    ("issues/add-labels", "Issues or Pull requests: write"),
    ("issues/list-events", "Issues or Pull requests: read"),
    ("issues/create", "Issues: write"),
    ("repos/get", "Metadata: read"),
    # GitHub lists a reaction under Issues only: Pull requests: write does not cover it (was "Issues or Pull requests")
    ("reactions/create-for-issue-comment", "Issues: write"),
    # Contents: read is an alternative for getting a pull request (was "Pull requests: read" alone)
    ("pulls/get", "Pull requests or Contents: read"),
    # a second set with Workflows, for a ref moved onto a commit changing workflow files (was "Contents: write")
    ("git/create-ref", "Contents: write or Contents + Workflows: write"),
    ("git/update-ref", "Contents: write or Contents + Workflows: write"),
    ("git/delete-ref", "Contents: write"),
])
def test_the_table_shows_githubs_permission_sets(operation, shown):
    assert oc.permission_text(oc.PERMISSIONS[operation]) == shown


def test_a_set_mixing_accesses_names_each_access():
    assert oc.permission_text(((("Contents", "read"), ("Issues", "write")),)) == "Contents: read + Issues: write"


@needs_description
def test_every_operation_docs_github_md_lists_has_its_permissions():
    listed = oc.operations_of(sorted(oc.documented_operations()), oc.contract())
    assert listed
    assert [o.operation_id for o in listed if o.permission == "?"] == []
    assert all(o.apps for o in listed)          # each marked usable with a GitHub App installation token


@needs_description
def test_an_operation_the_permissions_table_lacks_is_reported(monkeypatch):
    monkeypatch.setattr(oc, "PERMISSIONS", {k: v for k, v in oc.PERMISSIONS.items() if k != "repos/get"})
    monkeypatch.setattr(oc, "_CHECKED", {})
    get_repo = Exchange("GET", "/repos/acme/fw-template", "", {}, b"", 404, {"Content-Type": "application/json"},
                        b'{"message": "Not Found", "documentation_url": "x"}', False)
    assert oc.check_exchanges([get_repo]) == [
        "GET /repos/acme/fw-template: the bot uses repos/get, whose permissions tests/worlds/openapi_contract.py "
        "PERMISSIONS lacks (GitHub's data: see its docstring)"]
