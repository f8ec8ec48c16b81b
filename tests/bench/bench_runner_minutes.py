"""Benchmark: the runner minutes each event costs a template repository, from the act workflow scenarios.

Runs the reusable workflow under act (tests/worlds/actworld.py, as ``python -m pytest -m workflow`` does) for each
event a template sees, and prints per event the jobs that ran, each job's seconds under act, and the billed
minutes GitHub would charge on hosted runners.  GitHub bills each job of a private repository by the minute,
rounded up to the next whole minute (GitHub docs, "Viewing job execution time"; "About billing for GitHub
Actions"); a job that is skipped by its ``if:`` starts no runner and is not billed.

The estimate of a job is ``ceil((seconds under act + overhead) / 60)`` minutes.  Act runs on this machine with
the steps' downloads replaced by local stand-ins, so each job is given the real-runner overhead stated in
:data:`OVERHEAD` (assumptions, not measurements: runner start and the two checkouts, the bot's pip install, and
for run-model and build-pack the installs they make on a fresh runner).  build-pack runs on the Arm runner
(``build-runner``) and is counted apart.

Run: ``python tests/bench/bench_runner_minutes.py`` (needs act and the workflow scenarios' parts; a few minutes).
"""

from __future__ import annotations

import math
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

#: Real-runner seconds added to each job's act time (assumed): ``"*"`` for every job, plus a job's own entry.
OVERHEAD = {
    "*": 25,           # runner start-up, checkout of the template and of the bot, pip install of the bot (~10 s)
    "run-model": 240,  # apt Arm toolchain and QEMU (~430 MB), torch with no pip cache, two QEMU runs
    "build-pack": 240,  # apt toolchain and torch installs on the Arm runner, the upstream build
}
ARM_JOBS = ("build-pack",)


def billed(job: str, seconds: float) -> int:
    """Whole minutes GitHub bills for ``job`` that ran ``seconds`` under act (plus :data:`OVERHEAD`)."""
    return math.ceil((seconds + OVERHEAD["*"] + OVERHEAD.get(job, 0)) / 60)


def row(event: str, run) -> tuple[str, str, int, int]:
    """``(event, "job Ns, ...", billed minutes on ubuntu, billed minutes on Arm)`` for one act run."""
    ran = [j for j in run.jobs if run.ran(j)]
    jobs = ", ".join(f"{j} {run.job_seconds.get(j, 0):.0f}s" for j in ran) or "none (no runner)"
    x64 = sum(billed(j, run.job_seconds.get(j, 0)) for j in ran if j not in ARM_JOBS)
    arm = sum(billed(j, run.job_seconds.get(j, 0)) for j in ran if j in ARM_JOBS)
    return event, jobs, x64, arm


def table(rows) -> str:
    """The rows as the Markdown table docs/action.md shows."""
    out = ["| event | jobs that ran (seconds under act) | billed minutes (estimate) |", "|---|---|---|"]
    for event, jobs, x64, arm in rows:
        out.append(f"| {event} | {jobs} | {x64}{f' + {arm} Arm' if arm else ''} |")
    return "\n".join(out)


def main() -> int:
    from actworld import REVIEWERS_CALLER, TEMPLATE, TEMPLATE_WHEELS, ActWorld, bot_commit, empty_wheel, session_site
    from webhook_payloads import comment_event, review_event, synchronize_event

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "bot").mkdir()
        bot = bot_commit(tmp / "bot")
        wheels = tmp / "wheels"
        wheels.mkdir()
        for name, version in TEMPLATE_WHEELS:
            empty_wheel(wheels, name, version)
        site = session_site(tmp / "site" / "venv")

        def world(name: str, config: str = "") -> ActWorld:
            (tmp / name).mkdir()
            w = ActWorld(tmp / name, bot, wheels, site)
            if config:
                w.template_commit({".github/executorch-pack-bot.yml": (config, 0o644)})
            return w

        a = world("a", "automerge: on-approval\n")
        a.fake.protection["main"] = ["template-ci"]
        rows.append(row("schedule, no new release", a.run("schedule")))
        a.release("good")
        rows.append(row("schedule, the release asset verifies", a.run("schedule")))
        a.CALLER = REVIEWERS_CALLER
        bot_pr = a.pulls()[0]
        rows.append(row("a writer's recheck comment on the bot's PR",
                        a.run("issue_comment", comment_event(TEMPLATE, bot_pr["number"], "/executorch-pack-bot recheck",
                                                             login="alice", issue_body=bot_pr["body"]))))
        bot_pr = a.pulls()[0]
        rows.append(row("an approval of the bot's PR", a.run("pull_request_review", review_event(TEMPLATE, bot_pr,
                                                                                                   login="alice"))))
        other = a.fake.add_pull(TEMPLATE, head="feature/readme", title="Fix the README", body="Typo fixes.",
                                user="alice")
        rows.append(row("a push to a PR that is not the bot's",
                        a.run("pull_request_target", synchronize_event(TEMPLATE, other, before="0" * 40))))
        rows.append(row("an approval of a PR that is not the bot's",
                        a.run("pull_request_review", review_event(TEMPLATE, other, login="alice"))))
        a.fake.stop()

        d = world("d", "dashboard: true\n")
        rows.append(row("schedule, no new release, dashboard: true", d.run("schedule")))
        d.fake.stop()

        b = world("b")
        b.release(None)
        rows.append(row("schedule, no pack asset (built on Arm)", b.run("schedule")))
        b.fake.stop()
    print(f"overhead assumed per job (seconds): {OVERHEAD}")
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
