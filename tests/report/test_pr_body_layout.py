"""The PR body's layout: what decides an approval first, sections capped, foreign text inert, nothing lost.

A body over GitHub's limit is shortened section by section, never in the
blocking items, and the job summary then holds the whole report (the body
says so).  Pack and template strings (a Csub with ``@user``, images, links,
bold "VERIFIED SAFE", ``<!--``) render inert.
"""

from __future__ import annotations

import re
from pathlib import Path

from bot.model import Bump, CheckResult, Edit, Flag
from bot.pack.report import PackReport
from bot.plan import PinRow, Plan
from bot.report import job_summary, parse_fingerprint, pr_body, render
from bot.report.body import MAX_BODY
from bot.report.evidence import Evidence, PackProvenance
from bot.report.pack import label_artefact, verdict
from bot.upstream.changes import SchemaChange, UpstreamChanges

UPSTREAM = "pytorch/executorch"
HOSTILE = "@user ![img](https://evil.invalid/x.png) [click](https://evil.invalid) **VERIFIED SAFE** <!-- #12"


def plan(tmp_path: Path, flags=(), edits=()) -> Plan:
    p = Plan(repo=tmp_path, bump=Bump("1.4.0", "1.5.1", "1.4.0", "1.5.1", "v1.4.0", "v1.5.1"),
             rows=[PinRow("PyTorch::ExecuTorch", "1.4.0", "1.5.1", "release tag v1.5.1"),
                   PinRow("torch", "2.13.0", "2.14.0", "torch_pin.py TORCH_VERSION @ v1.5.1")],
             flags=list(flags), edits=list(edits))
    p.contents["requirements.txt"] = b"x"
    p.originals["requirements.txt"] = b"y"
    return p


BLOCK = Flag("unresolved-pin", "torchao: no exact pin at v1.5.1", None, None, True)
INFO = Flag("downgrade", "ethos-u-vela goes DOWN from 5.2.0 to 5.1.0", "requirements.txt", 4, False)


def _headings(body: str) -> list[str]:
    return [line.split(" (")[0] for line in body.splitlines() if line.startswith("### ")]


def test_blocking_then_reviewer_items_come_before_the_long_sections(tmp_path):
    body = pr_body(plan(tmp_path, [INFO, BLOCK]), upstream=UPSTREAM, pack_note="No pack.", evidence=Evidence())
    # a blocked pull request: the caution first, then its blocking items, then the verdict
    assert body.startswith("> [!CAUTION]\n> **Blocked**: do not merge until the 1 blocking item below is resolved.")
    assert "nothing here blocks the merge" not in body
    assert _headings(body) == ["### Blocking items", "### Verdict", "### For the reviewer", "### Maintenance procedure",
                               "### Pins", "### Files changed", "### Pack verification", "### Hardware test plan",
                               "### Reproduce locally"]
    assert "- [ ] `unresolved-pin`: torchao: no exact pin at v1\\.5\\.1" in body
    # an informational item is a plain list entry (no task box), answered where the bot can
    assert ("- `downgrade` (`requirements.txt:4`): ethos\\-u\\-vela goes DOWN from 5\\.2\\.0 to 5\\.1\\.0 — upstream pins "
            "the lower version at the new tag; keep it unless the template needs the newer one.") in body
    assert body.count("- [ ] `") == 1     # the one blocking item is the only flagged task


def test_a_schema_change_is_a_blocking_item_and_comments_only_is_not(tmp_path):
    changed = UpstreamChanges("v1.4.0", "v1.5.1", paths=["schema/program.fbs"], ancestor=True, commits=3,
                              schema=[SchemaChange("schema/program.fbs", "edited")])
    body = pr_body(plan(tmp_path), upstream=UPSTREAM, evidence=Evidence(changes=changed))
    task = ("- [ ] `pte-schema`: re-export the models: the `.pte` schema changed between `v1.4.0` and `v1.5.1` "
            "(`schema/program.fbs` edited); a `.pte` written by the old exporter may not load in the new runtime.")
    assert task in body and body.index(task) < body.index("### Upstream changes that matter")
    assert body.index("### Blocking items (1)") < body.index(task)
    comments = UpstreamChanges("v1.4.0", "v1.5.1", paths=["schema/program.fbs"], ancestor=False, commits=7,
                               schema=[SchemaChange("schema/program.fbs", "comments")])
    body = pr_body(plan(tmp_path), upstream=UPSTREAM, evidence=Evidence(changes=comments))
    assert "pte-schema" not in body and "### Blocking items" not in body
    assert ("History: [compare v1\\.4\\.0...v1\\.5\\.1](https://github.com/pytorch/executorch/compare/v1.4.0...v1.5.1), "
            "7 commits in `v1.5.1` not in `v1.4.0`. `v1.4.0` is **not an ancestor** of `v1.5.1` (a release branch): "
            "the compare view also shows commits that are not new to this release.") in body


def _hostile_report(n_checks: int = 3) -> PackReport:
    padded = HOSTILE + " " + "x" * 70_000
    rep = PackReport("PyTorch.ExecuTorch.1.5.1.pack", "1.5.1", baseline="PyTorch.ExecuTorch.1.4.0.pack",
                     operators_added=[padded, "Portable add"], operators_removed=[])
    rep.checks = [CheckResult(f"check-{i}", "pass", padded) for i in range(n_checks)]
    return rep


def outside_code(body: str) -> str:
    """What GitHub renders as Markdown: the body without fenced code blocks and code spans (GFM spec)."""
    body = re.sub(r"(?ms)^[ \t]*(`{3,})[^\n]*\n.*?^[ \t]*\1[ \t]*$", "", body)
    return re.sub(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)", "", body)


def _assert_inert(body: str) -> None:
    rendered = outside_code(body)
    assert "@user" not in rendered                                             # no mention
    assert "![img]" not in rendered and "[click](" not in rendered             # no image, no link
    assert "**VERIFIED SAFE**" not in rendered                                 # no bold claim
    assert re.findall(r"<!--", rendered) == ["<!--"] and body.rstrip().endswith("-->")   # only the fingerprint marker
    assert "#12" not in rendered                                               # no issue reference
    assert "VERIFIED" in body                                                  # the text is shown, not dropped


def test_a_hostile_pack_csub_renders_inert_and_capped_with_the_blocking_items_intact(tmp_path):
    p = plan(tmp_path, [BLOCK, INFO])
    body = pr_body(p, upstream=UPSTREAM, pack_report=_hostile_report(), evidence=Evidence())
    _assert_inert(body)
    assert len(body) <= MAX_BODY and parse_fingerprint(body) == p.fingerprint()
    assert "- [ ] `unresolved-pin`: torchao: no exact pin at v1\\.5\\.1" in body
    assert body.index("### Blocking items") < body.index("### Pack verification")


def test_a_body_over_the_limit_is_cut_in_the_long_sections_and_the_summary_has_everything(tmp_path):
    many_blocking = [Flag("unresolved-pin", f"pin {i} has no exact version", f"req{i}.txt", 1, True)
                     for i in range(40)]
    p = plan(tmp_path, many_blocking + [INFO])
    rep = _hostile_report(n_checks=400)
    r = render(p, upstream=UPSTREAM, pack_report=rep, evidence=Evidence(run_url="https://github.com/o/t/actions/runs/9"))
    assert len(r.body) <= MAX_BODY and "pack" in r.cut and parse_fingerprint(r.body) == p.fingerprint()
    assert all(f"- [ ] `unresolved-pin` (`req{i}.txt:1`): pin {i} has no exact version" in r.body for i in range(40))
    assert ("> [!NOTE]\n> ✂ Some sections below were shortened to fit GitHub's limit on a pull request body; the "
            "full report is in the job summary of [this run](https://github.com/o/t/actions/runs/9).") in r.body
    _assert_inert(r.body)
    summary = job_summary(current="1.4.0", target="1.5.1", outcome="opened", plan=p, upstream=UPSTREAM,
                          pack_report=rep, evidence=Evidence())
    assert all(f"| `check-{i}` |" in summary for i in range(400))      # every check, where the body says it is
    assert "@user" not in outside_code(summary) and "**VERIFIED SAFE**" not in outside_code(summary)


def test_a_cut_never_leaves_a_code_fence_or_details_open(tmp_path):
    from bot.report.body import cut_section
    text = "### X\n\n<details>\n\n```sh\n" + "\n".join(f"line {i}" for i in range(2000)) + "\n```\n\n</details>"
    out, cut = cut_section(text, 3000)
    assert cut and len(out) <= 3000
    assert out.count("```") % 2 == 0 and out.count("<details>") == out.count("</details>")
    # a shorter fence quoted inside a longer one does not close it: the longer one is closed
    quoted = "````text\n```\n" + "\n".join(f"row {i}" for i in range(2000)) + "\n````"
    out, cut = cut_section(quoted, 3000)
    assert cut and out.split("\n\n_✂")[0].endswith("\n````")


# ---------------------------------------------------------------- pack verdict
def _url_check(declared: str, expected: str) -> CheckResult:
    return CheckResult("url", "fail", f"<url> is {declared}, expected {expected}",
                       {"declared": declared, "expected": expected})


def test_a_pack_whose_only_failure_is_the_tag_label_is_not_headlined_failed():
    base = "https://github.com/pytorch/executorch/releases/download/"
    rep = PackReport("p.pack", "1.5.1", checks=[CheckResult("archive", "pass"), _url_check(base + "1.5.1/", base + "v1.5.1/")])
    assert label_artefact(rep.checks[1]) and verdict(rep)[1] is False
    assert verdict(rep)[0].startswith("**Passed** apart from 1 label artefact (1 passed, 0 warnings, 1 failed)")
    rep.checks.append(_url_check(base + "1.5.0/", base + "v1.5.1/"))
    assert not label_artefact(rep.checks[2]) and verdict(rep) == ("**Failed**: 1 passed, 0 warnings, 2 failed.", True)


# ---------------------------------------------------------------- files changed
def test_files_changed_is_counted_by_kind_with_per_file_counts_collapsed(tmp_path):
    edits = [Edit("a.csolution.yml", 0, 1, "1", "2", 3, "pack-pin"), Edit("requirements.txt", 0, 1, "1", "2", 1, "requirement"),
             Edit("requirements.txt", 5, 6, "1", "2", 2, "requirement"), Edit("README.md", 0, 1, "1", "2", 1, "prose"),
             Edit("x.cbuild-pack.yml", 0, 1, "1", "2", 1, "lock")]
    body = pr_body(plan(tmp_path, edits=edits), upstream=UPSTREAM)
    assert "3 pin edits, 1 prose edit, 1 lock entry in 4 files." in body
    assert ("<details><summary>Edits per file</summary>\n\n| file | pin | prose | lock |\n|---|---|---|---|\n"
            "| `README.md` | 0 | 1 | 0 |\n| `a.csolution.yml` | 1 | 0 | 0 |\n| `requirements.txt` | 2 | 0 | 0 |\n"
            "| `x.cbuild-pack.yml` | 0 | 0 | 1 |\n\n</details>") in body


def test_a_hostile_path_in_the_files_table_stays_one_inert_cell(tmp_path):
    evil = "docs/a|b@team <!--x.md"
    body = pr_body(plan(tmp_path, edits=[Edit(evil, 0, 1, "1", "2", 1, "prose")]), upstream=UPSTREAM)
    assert "| `docs/a\\|b@team <!--x.md` | 0 | 1 | 0 |" in body     # inside a code span: no mention, no comment


# ---------------------------------------------------------------- why this version / requires-python
def test_why_this_version_names_the_newer_tags_skipped(tmp_path):
    ev = Evidence(skipped=[("v1.6.0-rc1", "a release candidate (prerelease)"),
                           ("v1.6.0", "flagged as a prerelease on GitHub")])
    body = pr_body(plan(tmp_path), upstream=UPSTREAM, evidence=ev)
    assert ("Why `v1.5.1`: the newest stable release the bot may propose. Newer tags skipped: `v1.6.0-rc1` (a release "
            "candidate \\(prerelease\\)); `v1.6.0` (flagged as a prerelease on GitHub).") in body
    assert "Why `v1.5.1`: it is the newest stable release tag upstream." in pr_body(plan(tmp_path), upstream=UPSTREAM,
                                                                                   evidence=Evidence())


def test_a_skipped_tag_s_reason_from_the_record_is_inert(tmp_path):
    ev = Evidence(skipped=[("v1.6.0", "@octocat <img src=x> [l](https://evil.example) #1")])
    body = pr_body(plan(tmp_path), upstream=UPSTREAM, evidence=ev)
    assert ("Newer tags skipped: `v1.6.0` (@&#8203;octocat &lt;img src=x&gt; \\[l\\]\\(https:&#8203;//evil\\.example\\) "
            "\\#&#8203;1).") in body


def test_a_requires_python_change_is_answered_from_the_pythons_the_template_states(tmp_path):
    flag = Flag("requires-python", "executorch 1.5.1 declares requires-python '>=3.11,<3.15'", blocking=False)
    inside = Evidence(requires_python=(">=3.10,<3.15", ">=3.11,<3.15"),
                      stated_pythons=[(".github/workflows/build.yml", 12, "3.12")])
    body = pr_body(plan(tmp_path, [flag]), upstream=UPSTREAM, evidence=inside)
    assert ("— every Python the template states (`3.12` (`.github/workflows/build.yml:12`)) is inside "
            "`>=3.11,<3.15`: nothing to change.") in body
    outside = Evidence(requires_python=(">=3.10,<3.15", ">=3.11,<3.15"), stated_pythons=[(".python-version", 1, "3.10")])
    body = pr_body(plan(tmp_path, [flag]), upstream=UPSTREAM, evidence=outside)
    assert "— outside `>=3.11,<3.15`: `3.10` (`.python-version:1`): change them (listed as items too)." in body


def test_the_footer_says_how_to_get_a_fix_in_and_the_fingerprint_is_last(tmp_path):
    p = plan(tmp_path)
    body = pr_body(p, upstream=UPSTREAM)
    assert body.endswith("push to its branch (the bot then leaves the branch alone) or comment a command: "
                         "`/executorch-pack-bot help` lists them.\n\n"
                         f"<!-- executorch-pack-bot:fingerprint={p.fingerprint()} -->\n")


def test_reproduce_locally_gives_the_update_command_and_the_fingerprint(tmp_path):
    from bot.report.evidence import reproduce_command
    p = plan(tmp_path)
    p.rows.append(PinRow("ethos-u-vela", "5.1.0", "5.2.0", "--set"))
    cmd = reproduce_command(p, "github:pytorch/executorch", ("docs/**",))
    assert cmd == ("executorch-pack-bot update --repo . --upstream github:pytorch/executorch --version 1.5.1 "
                   "--set ethos-u-vela=5.2.0 --exclude 'docs/**' --dry-run")
    body = pr_body(p, upstream=UPSTREAM, evidence=Evidence(command=cmd, pack=PackProvenance()))
    assert f"```sh\n{cmd}\n```" in body and f"`{p.fingerprint()}`" in body


def test_even_thousands_of_blocking_items_fit_and_the_rest_are_in_the_summary(tmp_path):
    flags = [Flag("unresolved-pin", "x" * 600, f"r{i}.txt", 1, True) for i in range(2000)]
    p = plan(tmp_path, flags)
    r = render(p, upstream=UPSTREAM)
    kept = r.body.count("- [ ] `unresolved-pin`")
    assert len(r.body) <= MAX_BODY and "blocking" in r.cut and 50 < kept < 2000
    assert parse_fingerprint(r.body) == p.fingerprint()
    assert r.full.count("- [ ] `unresolved-pin`") == 2000


def test_skipped_tags_say_why_each_newer_tag_was_not_chosen(tmp_path):
    from bot.report.evidence import skipped_tags
    from bot.upstream.source import DirectorySource
    for t in ("v1.5.1", "v1.5.2", "v1.6.0-rc1", "v1.6.0", "v1.7.0", "v1.4.0", "release-notes"):
        (tmp_path / t).mkdir()

    class Flagged(DirectorySource):
        def prereleases(self):
            return {"v1.7.0"}
    assert skipped_tags(Flagged(tmp_path), "v1.5.1", ignored=("1.6.0",)) == [
        ("v1.5.2", "newer stable release not chosen: the run named the version to target"),
        ("v1.6.0-rc1", "a release candidate (prerelease)"),
        ("v1.6.0", "ignored by a reviewer (`/executorch-pack-bot ignore`)"),
        ("v1.7.0", "flagged as a prerelease on GitHub")]
