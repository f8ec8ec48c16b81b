"""The bot's GitHub traffic and the fake's answers against GitHub's own REST description (npm @octokit/openapi).

Besides the check after every test (conftest.py ``github_contract``), these run the whole GitHub flow once
(tests/worlds/openapi_contract.py ``flow_exchanges``: check, run with every decoration and refusals, a newer
release, a foreign commit and its comment, an asset download) against api.github.com and GHES 3.17, and
show that the check catches a departure on either side.
"""

from __future__ import annotations

import pytest

import openapi_contract as oc
from fakegithub import Exchange

pytestmark = pytest.mark.needs("openapi")


@pytest.fixture(scope="module")
def flow(tmp_path_factory):
    return oc.flow_exchanges(tmp_path_factory.mktemp("flow"))


@pytest.mark.parametrize("name", [oc.DOTCOM, oc.GHES])
def test_every_request_and_answer_of_the_flow_matches_the_description(flow, name):
    if oc.missing_reason(name):
        pytest.skip(oc.missing_reason(name))
    c = oc.contract(name)
    assert [p for ex in flow for p in c.check(ex)] == []
    assert all(c.operation(ex.method, ex.path) is not None for ex in flow)


def test_the_docs_list_is_generated_from_the_description_and_holds_the_flow(flow):
    c = oc.contract()
    listed = oc.operations_of(sorted(oc.documented_operations()), c)
    assert oc.documented_table() == oc.operations_table(oc.merged(listed))      # each row as the description says
    assert {(o.method, o.path) for o in oc.operations_used(flow, c)} <= oc.documented_operations()


def test_every_listed_operation_has_its_fine_grained_permission(flow):
    ops = oc.operations_used(flow, oc.contract())
    assert [o.operation_id for o in ops if o.permission == "?"] == []
    assert all(o.apps for o in ops)                       # each works with a GitHub App installation token


def _pull_request(body: bytes, status: int = 201, response: bytes = b"{}") -> Exchange:
    return Exchange("POST", "/repos/acme/fw-template/pulls", "", {"Content-Type": "application/json"}, body,
                    status, {"Content-Type": "application/json"}, response, False)


def test_a_request_body_the_description_rejects_is_reported():
    problems = oc.contract().check(_pull_request(b'{"head": "x", "title": 5}', 422,
                                                 b'{"message": "Validation Failed", "documentation_url": "x"}'))
    assert problems == ["POST /repos/acme/fw-template/pulls: request (pulls/create): InvalidRequestBody: "
                        "title: 5 is not of type 'string'; (root): 'base' is a required property"]


def test_an_answer_missing_required_fields_is_reported():
    (problem,) = oc.contract().check(_pull_request(b'{"head": "x", "base": "main", "title": "t"}', 201,
                                                   b'{"number": 1}'))
    assert problem.startswith("POST /repos/acme/fw-template/pulls: 201 answer (pulls/create): InvalidData: "
                              "(root): '_links' is a required property")


def test_an_undocumented_operation_and_an_undocumented_status_are_reported():
    c = oc.contract()
    odd = Exchange("POST", "/repos/acme/fw-template/releases/tags/v1", "", {}, b"", 200, {}, b"{}", False)
    assert c.check(odd) == ["POST /repos/acme/fw-template/releases/tags/v1: no operation in api.github.com matches"]
    gone = Exchange("GET", "/repos/acme/fw-template/milestones/3", "", {}, b"", 500, {}, b"{}", False)
    assert c.check(gone) == ["GET /repos/acme/fw-template/milestones/3: issues/get-milestone documents no 500 "
                             "answer (200, 404)"]


def test_an_operation_the_docs_list_lacks_is_reported():
    get_tag = Exchange("GET", "/repos/acme/fw-template/releases/tags/v1.5.1", "", {}, b"", 404,
                       {"Content-Type": "application/json"}, b'{"message": "Not Found", "documentation_url": "x"}',
                       False)
    assert oc.check_exchanges([get_tag]) == [
        "GET /repos/acme/fw-template/releases/tags/v1.5.1: the bot uses repos/get-release-by-tag (GET "
        "/repos/{owner}/{repo}/releases/tags/{tag}), which docs/github.md's operations list lacks: run "
        "`python tests/worlds/openapi_contract.py`"]


def test_a_contents_path_with_slashes_is_one_path_parameter():
    op = oc.contract().operation("GET", "/repos/pytorch/executorch/contents/backends/arm/requirements.txt")
    assert (op.operation_id, op.path) == ("repos/get-content", "/repos/{owner}/{repo}/contents/{path}")
