"""A test world for event handling: the events fake GitHub, the bot's PR, a template config, and a runner.

``World.command(event_name, payload)`` runs ``executorch-pack-bot command``
in-process through the real CLI, PyGithub and requests code, and returns
``(exit code, stdout, stderr, outputs)`` where ``outputs`` are the values
written to ``$GITHUB_OUTPUT``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from bot.cli import main
from bot.events.state import dump
from bot.report import fingerprint_marker
from fakegithub import TEMPLATE
from fakegithub_events import FakeGitHubEvents

TOKEN = "ghs_EVENTSECRET0123456789abcdef"
HEAD_SHA = "a1b2c3d4e5" * 4
"""The head commit of the bot's PR in the world."""
BOT_BRANCH = "executorch-pack-bot/executorch"
PR_BODY = ("Bumps the template from ExecuTorch **1.4.0** to **1.5.1**.\n\n### Pack verification: `p.pack`\n\n"
           "**Passed** for version `1.5.1`: all checks.\n\n### Items for the reviewer\n\n"
           "- [ ] **blocking** `range-pin` (`requirements.txt:3`): a range\n"
           "- [ ] `mixed-mention` (`README.md:7`): names two versions\n\n" + fingerprint_marker("ab" * 32) + "\n"
           + dump({"version": "1.5.1"}) + "\n")
"""The body the publisher writes: the fingerprint, then the hidden state recording the version it proposes."""


def read_outputs(path: Path) -> dict:
    """``{name: value}`` from a ``$GITHUB_OUTPUT`` file (``name<<DELIM`` / value / ``DELIM``)."""
    out = {}
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    for m in re.finditer(r"^([\w-]+)<<(\S+)\n(.*?)\n\2\n", text, re.MULTILINE | re.DOTALL):
        out[m.group(1)] = m.group(3)
    return out


class World:
    def __init__(self, tmp: Path, monkeypatch, capsys):
        self.tmp, self.capsys = tmp, capsys
        self.fake = FakeGitHubEvents()
        url = self.fake.start()
        self.fake.repo(TEMPLATE)
        self.fake.roles.update({"alice": "write", "mia": "maintain", "ada": "admin", "rita": "read", "tom": "triage"})
        self.pr = self.fake.add_pull(TEMPLATE, head=BOT_BRANCH, title="Bump ExecuTorch to 1.5.1", body=PR_BODY)
        self.pr["head"]["sha"] = HEAD_SHA
        self.other = self.fake.add_pull(TEMPLATE, head="feature/faster-kws", title="Faster KWS", body="mine",
                                        user="bob")
        self.repo = tmp / "template"
        (self.repo / ".github").mkdir(parents=True, exist_ok=True)
        self.outputs_file = tmp / "github_output"
        for k, v in {"GITHUB_API_URL": url, "GITHUB_TOKEN": TOKEN, "EXECUTORCH_PACK_BOT_WRITE_PAUSE": "0",
                     "EXECUTORCH_PACK_BOT_MAX_WAIT": "0", "GITHUB_OUTPUT": str(self.outputs_file),
                     "GITHUB_REPOSITORY": TEMPLATE}.items():
            monkeypatch.setenv(k, v)
        for k in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_EVENT_NAME", "GITHUB_EVENT_PATH"):
            monkeypatch.delenv(k, raising=False)
        self.n = 0

    def config(self, text: str) -> None:
        (self.repo / ".github/executorch-pack-bot.yml").write_text(text, encoding="utf-8")

    def command(self, event_name: str, payload: dict, *extra: str):
        self.n += 1
        path = self.tmp / f"event{self.n}.json"
        path.write_text(json.dumps(payload), encoding="utf-8")
        if self.outputs_file.exists():
            self.outputs_file.unlink()
        self.capsys.readouterr()
        code = main(["command", "--event-name", event_name, "--event-path", str(path), "--repo", str(self.repo),
                     *extra])
        cap = self.capsys.readouterr()
        return code, cap.out, cap.err, read_outputs(self.outputs_file)

    def comments(self, number: int) -> list[str]:
        return [c["body"] for c in self.fake.repo(TEMPLATE).comments.get(number, [])]

    def writes(self) -> list[tuple[str, str]]:
        return [(s.method, s.path) for s in self.fake.writes()]


def dashboard_world(tmp_path, monkeypatch, capsys) -> World:
    """A :class:`World` whose template keeps a dashboard (``dashboard: true``), upstream releasing 1.4.0 then
    1.5.1.  The caller stops ``world.fake``."""
    from fakegithub import UPSTREAM

    world = World(tmp_path, monkeypatch, capsys)
    world.config("dashboard: true\n")
    world.fake.add_release(UPSTREAM, "v1.4.0", created_at="2026-06-01T00:00:00Z")
    world.fake.add_release(UPSTREAM, "v1.5.1", created_at="2026-09-01T00:00:00Z")
    return world


def run_dashboard(w: World, outcome: str = "up to date"):
    """``dashboard --outcome OUTCOME`` in ``w``'s template: (exit code, captured output)."""
    from fakegithub import UPSTREAM

    w.capsys.readouterr()
    code = main(["dashboard", "--repo", str(w.repo), "--upstream", f"github:{UPSTREAM}", "--outcome", outcome])
    return code, w.capsys.readouterr()
