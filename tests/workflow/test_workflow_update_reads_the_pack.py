"""Every workflow step that writes the bump record (``update --plan-file``) gives ``update`` the pack it downloaded.

The PR body's component changes come from the pack's PDSC ``<file>`` lists only when ``update`` reads the pack
(``--pack``); without it they fall back to a naming convention.  The test quantifies over every job of every
workflow file, so a new job that writes a bump record is held to the same rule.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import yaml

WORKFLOWS = sorted((Path(__file__).resolve().parents[2] / ".github" / "workflows").glob("*.yml"))


def _record_steps():
    for wf in WORKFLOWS:
        doc = yaml.safe_load(wf.read_text(encoding="utf-8"))
        for job_id, job in (doc.get("jobs") or {}).items():
            steps = job.get("steps") or []
            for i, step in enumerate(steps):
                w = step.get("with") or {}
                args = shlex.split(str(w.get("args") or "").replace("${{", "X").replace("}}", "X"))
                if w.get("command") == "update" and "--plan-file" in args:
                    yield wf.name, job_id, steps[:i], args


def test_there_are_bump_record_steps_to_check():
    assert {(wf, job) for wf, job, _b, _a in _record_steps()} >= {
        ("executorch-pack-bot.yml", "pull-request"), ("executorch-pack-bot-fleet.yml", "pull-request")}


def test_every_update_that_writes_the_bump_record_reads_the_downloaded_pack():
    for wf, job, before, args in _record_steps():
        assert "--pack" in args, f"{wf} job {job}: update --plan-file without --pack"
        folder = args[args.index("--pack") + 1]
        downloads = [s for s in before if "download-artifact" in str(s.get("uses", ""))
                     and (s.get("with") or {}).get("path") == folder]
        assert downloads, f"{wf} job {job}: update --pack {folder} before any step downloads the pack to {folder}"
