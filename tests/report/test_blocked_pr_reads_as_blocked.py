"""A pull request that must not merge reads as blocked from its title and first line.

A trap pack (built without ``include/flatbuffers/`` and the generated schema headers, FORMATS.md) checked
against a template that pins a locally built ``-local`` pack: the root cause (the missing headers) is the
blocking task's first and only cause; the version checks that fail only because of the label are said apart;
the title carries the marker; no sentence says nothing blocks the merge; the sha256 of the file read is shown.
"""

from __future__ import annotations

import hashlib
import re

from bot.model import Bump, CheckResult
from bot.pack.report import PackReport
from bot.plan import PinRow, Plan
from bot.report import pr_body, pr_title
from bot.report.evidence import Evidence, PackProvenance
from bot.report.record import blocked_by
from bot.upstream.changes import UpstreamChanges
from helpers import run_cli
from packgen import PackSpec, make_pack

UPSTREAM = "pytorch/executorch"


def _plan(tmp_path, pack="1.5.1-local"):
    p = Plan(repo=tmp_path, bump=Bump("1.4.0", "1.5.1", "1.4.0-local", pack, "v1.4.0", "v1.5.1"),
             rows=[PinRow("PyTorch::ExecuTorch", "1.4.0-local", pack, "release tag v1.5.1"),
                   PinRow("executorch", "1.4.0", "1.5.1", "release tag v1.5.1")])
    p.contents["requirements.txt"] = b"x"
    p.originals["requirements.txt"] = b"y"
    return p


TRAP = [CheckResult("archive", "pass", "50 entries"),
        CheckResult("release-version", "fail", "PyTorch.ExecuTorch.pdsc:9: newest <release> is 1.5.1, expected 1.5.1-local"),
        CheckResult("pack-file-name", "fail", "file is named PyTorch.ExecuTorch.1.5.1.pack, expected "
                                              "PyTorch.ExecuTorch.1.5.1-local.pack"),
        CheckResult("url", "fail", "PyTorch.ExecuTorch.pdsc:6: <url> is .../download/v1.5.1/, expected "
                                   ".../download/1.5.1-local/"),
        CheckResult("flatbuffers-headers", "fail", "include/flatbuffers/ is missing"),
        CheckResult("generated-headers", "fail", "include/executorch/schema/program_generated.h is missing"),
        CheckResult("component-versions", "fail", "11 components at 1.5.1, expected 1.5.1-local")]


def test_the_root_cause_comes_first_and_alone_and_the_label_failures_apart(tmp_path):
    rep = PackReport(pack="PyTorch.ExecuTorch.1.5.1.pack", version="1.5.1-local", checks=TRAP)
    ev = Evidence(changes=UpstreamChanges("v1.4.0", "v1.5.1", paths=[]),
                  pack=PackProvenance(how="verified-here", sha256="ab" * 32),
                  proofs={"verify-pack": "fail", "compile": "not-run", "model-run": "not-run"})
    body = pr_body(_plan(tmp_path), upstream=UPSTREAM, pack_report=rep, evidence=ev)
    first = body.splitlines()[:2]
    assert first == ["> [!CAUTION]", "> **Blocked**: do not merge until the 1 blocking item below is resolved."]
    assert body.index("### Blocking items (1)") < body.index("### Verdict")
    task = next(x for x in body.splitlines() if x.startswith("- [ ] `pack-verification`"))
    cause = task.split("root cause: ", 1)[1]
    assert "flatbuffers-headers" in cause and "generated-headers" in cause
    for label_check in ("release-version", "pack-file-name", "`url`", "component-versions"):
        assert label_check not in cause
    sub = body.splitlines()[body.splitlines().index(task) + 1]
    assert sub.startswith("  - not a separate cause: `release-version`, `pack-file-name`, `url`, "
                          "`component-versions` failed only because the template pins the `local` label")
    assert "nothing here blocks the merge" not in body
    assert "sha256 not known" not in body and f"sha256 `{'ab' * 32}`" in body


def test_without_a_label_every_failure_is_a_root_cause(tmp_path):
    rep = PackReport(pack="PyTorch.ExecuTorch.1.5.1.pack", version="1.5.1", checks=TRAP)
    body = pr_body(_plan(tmp_path, "1.5.1"), upstream=UPSTREAM, pack_report=rep, evidence=Evidence())
    task = next(x for x in body.splitlines() if x.startswith("- [ ] `pack-verification`"))
    assert "`release-version`" in task and "`flatbuffers-headers`" in task and "not a separate cause" not in body


def test_a_passing_pack_is_not_blocked(tmp_path):
    rep = PackReport(pack="PyTorch.ExecuTorch.1.5.1.pack", version="1.5.1", checks=TRAP[:1])
    body = pr_body(_plan(tmp_path, "1.5.1"), upstream=UPSTREAM, pack_report=rep, evidence=Evidence())
    assert "Blocked" not in body and "pack-verification" not in body


def test_the_title_marker_comes_from_the_record_proofs(tmp_path):
    p = _plan(tmp_path, "1.5.1")
    assert pr_title(p, blocked_by({"proofs": {"verify-pack": "fail", "model-run": "fail"}})) == \
        "Bump ExecuTorch to 1.5.1 (blocked: pack verification failed, model run failed)"
    assert pr_title(p, blocked_by({"proofs": {"verify-pack": "pass"}})) == "Bump ExecuTorch to 1.5.1"
    # what a PR proposes is read from the bot's own record of it, never from this title
    # (tests/events/test_commands_on_a_retitled_pull_request.py)


def test_publish_of_a_trap_pack_is_blocked_from_its_title(tags, template, tmp_path, capsys):
    plan = tmp_path / "plan.json"
    rc, _, err = run_cli(capsys, "update", "--repo", template, "--upstream", tags, "--version", "1.5.1",
                         "--plan-file", plan)
    assert rc == 0, err
    pack = make_pack(tmp_path / "pack", PackSpec(flatbuffers=False, generated_headers=False))
    rc, out, err = run_cli(capsys, "publish", "--repo", template, "--plan-file", plan, "--pack", pack, "--dry-run")
    assert rc == 0, err
    m = re.search(r"\n(Bump ExecuTorch to 1\.5\.1.*)\n\n(> \[!CAUTION\]\n> \*\*Blocked\*\*.*)", out, re.S)
    assert m and m.group(1) == "Bump ExecuTorch to 1.5.1 (blocked: pack verification failed)"
    body = m.group(2)
    sha = hashlib.sha256(pack.read_bytes()).hexdigest()
    assert f"sha256 `{sha}`" in body and "sha256 not known" not in body
    assert "`flatbuffers-headers`" in body.split("### Verdict")[0]


def test_a_review_item_whose_text_instructs_gets_no_second_instruction(tmp_path):
    from bot.model import Flag
    from bot.report.sections import _ANSWERS, reviewer_section

    # the instructions the producers' own messages end with (bot/template/locks.py, requirements.py, conda.py,
    # bot/engine/checks/companions.py, leftovers.py, mentions.py, bot/template/prose/manager.py)
    own = {"python-lock": "regenerate it after the bump (uv lock) and commit it in the same PR",
           "compiled-requirements": "regenerate it with `pip-compile`",
           "conda-pin": "move it to 1.5.1 by hand, or list it under ignore-mentions:",
           "companion-pin": "check it against torch 2.14.0 (the bot does not choose companion versions)",
           "leftover": "edit by hand, or open an issue for executorch-pack-bot",
           "mixed-mention": "edit it by hand if it should move: x",
           "restatement-partial": "edit it by hand: x",
           "review-mention": "edit it by hand, or list it under ignore-mentions:"}
    for code_, text in own.items():
        assert code_ not in _ANSWERS, code_
        plan = _plan(tmp_path, "1.5.1")
        plan.flags = [Flag(code_, f"something: {text}", "a.txt", 1, False)]
        out = reviewer_section(plan)
        item = next(x for x in out.splitlines() if x.startswith("- `"))
        assert " — " not in item, item
