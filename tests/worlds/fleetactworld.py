"""The fleet workflow run whole under nektos/act (host mode, offline) against the fake GitHub.

:class:`FleetActWorld` is :class:`actworld.ActWorld` with another caller: docs/example-fleet-caller.yml
(OWNER and COMMIT_SHA substituted) in the organization's ``.github`` repository (:data:`CALLER_REPOSITORY`,
a local git remote holding the fleet list), calling .github/workflows/executorch-pack-bot-fleet.yml of this
checkout.  The fleet is :data:`STATES`: twenty template repositories, each a local bare git remote (what the
checkout stand-in clones and publish pushes to) whose ``main`` the fake GitHub also serves through its tree and
contents routes (what fleet-plan reads), in the states a scheduled run meets; the fleet list adds a repository
the App cannot see, a duplicate and a malformed entry.

Templates are the shipped sample template (ExecuTorch 1.4.0), the same with every pin moved to 1.5.1 (up to
date), or with the pack pins on ``1.4.0-local`` (a locally built pack, as tests/template/test_local_pack_template.py
makes it).  Upstream is :meth:`ActWorld.release`: v1.5.1 with its good pack asset, and a tree whose
build_pack.sh packs ``1.5.1-local`` as itself.  The cache stand-in keeps the plan's ``.fleet-cache/`` between
the runs of one world (``$STANDIN_CACHE``), as actions/cache does between scheduled runs.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from actworld import ROOT, ActWorld, _git

FLEET_WORKFLOW = ROOT / ".github/workflows/executorch-pack-bot-fleet.yml"
FLEET_CALLER = ROOT / "docs/example-fleet-caller.yml"
CALLER_REPOSITORY = "acme/.github"
FLEET_LIST = ".github/executorch-pack-bot-fleet.yml"
BOT_BRANCH = "executorch-pack-bot/executorch"
#: The twenty templates, in list order: (repository, state).
STATES = [*[(f"acme/behind-{i}", "behind") for i in range(1, 6)],
          *[(f"acme/current-{i}", "up to date") for i in range(1, 9)],
          ("acme/pr-open-1", "pr open"), ("acme/pr-open-2", "pr open"),
          ("acme/closed-1", "closed by a person"), ("acme/closed-2", "closed by a person"),
          ("acme/local-1", "local"), ("acme/local-2", "local"),
          ("acme/refuses-push", "refuses push")]
#: The repository the list names that the App cannot see (not on the fake GitHub: it answers 404).
HIDDEN = "acme/hidden"
CMSIS_FILES = ("cmsis-executorch.csolution.yml", "model/model.cproject.yml", "ai_layer/ai_layer.clayer.yml",
               "app/app.cproject.yml", "cmsis-executorch.cbuild-pack.yml")
PIN_FILES = (*CMSIS_FILES, "requirements.txt", "requirements-arm-tosa.txt")


def fleet_list_text() -> str:
    """The fleet list: the twenty templates, then a repository the App cannot see, a duplicate, a malformed
    entry (an unknown key)."""
    lines = ["# the templates of acme", "templates:"]
    lines += [f"  - repository: {full}" for full, _ in STATES]
    lines += [f"  - repository: {HIDDEN}", "  - repository: acme/behind-1", "  - reponame: acme/typo"]
    return "\n".join(lines) + "\n"


class FleetActWorld(ActWorld):
    """Twenty template repositories in mixed states, the calling ``.github`` repository and upstream v1.5.1.

    ``remotes``: repository -> its bare git remote.  ``run("schedule")`` runs the fleet caller.
    """

    CALLER = FLEET_CALLER
    WORKFLOW = FLEET_WORKFLOW
    REPOSITORY = CALLER_REPOSITORY

    def __init__(self, tmp: Path, bot: tuple[Path, str], wheels: Path, site: Path):
        super().__init__(tmp, bot, wheels, site)
        self.release("good", built=("1.5.1-local",))
        seeds = self._seeds()
        self.remotes: dict[str, Path] = {}
        for full, state in STATES:
            self._template(full, state, seeds)
        self.caller_repo = self._bare(CALLER_REPOSITORY, {FLEET_LIST: fleet_list_text()})
        self.fake.repo(CALLER_REPOSITORY)

    # ------------------------------------------------------------- the world
    def _seeds(self) -> dict[str, Path]:
        """The three template trees: the sample (1.4.0), up to date (1.5.1), on a locally built pack (1.4.0-local)."""
        from bot.commands.demo import copy_template
        seeds = {}
        for kind in ("behind", "up to date", "local"):
            d = copy_template(self.tmp / "seeds" / kind.replace(" ", "-"))
            if kind == "up to date":
                for rel in PIN_FILES:
                    p = d / rel
                    p.write_text(p.read_text().replace("1.4.0", "1.5.1"))
            elif kind == "local":
                for rel in CMSIS_FILES:
                    p = d / rel
                    p.write_text(p.read_text().replace("PyTorch::ExecuTorch@1.4.0", "PyTorch::ExecuTorch@1.4.0-local"))
                sol = d / "cmsis-executorch.csolution.yml"
                line = "    - pack: PyTorch::ExecuTorch@1.4.0-local    # exact pin, not a range\n"
                assert line in sol.read_text()
                sol.write_text(sol.read_text().replace(
                    line, line + "      path: ../packs/PyTorch.ExecuTorch.1.4.0-local\n"))
            seeds[kind] = d
        return seeds

    def _bare(self, full: str, files: dict | None = None, seed: Path | None = None) -> Path:
        """A bare remote for ``full`` holding ``seed``'s files (or ``files``: {path: text}) on main."""
        work = self.tmp / "work" / full
        if seed is not None:
            shutil.copytree(seed, work)
        for path, text in (files or {}).items():
            (work / path).parent.mkdir(parents=True, exist_ok=True)
            (work / path).write_text(text, encoding="utf-8")
        _git(work, "init", "-q", "-b", "main")
        _git(work, "add", "-A")
        _git(work, "commit", "-q", "-m", "template")
        bare = self.tmp / "remotes" / f"{full}.git"
        bare.parent.mkdir(parents=True, exist_ok=True)
        _git(self.tmp, "clone", "-q", "--bare", str(work), str(bare))
        self.serve(full, work)
        shutil.rmtree(work)
        return bare

    def serve(self, full: str, work: Path, ref: str = "main") -> None:
        """The fake GitHub serves ``work``'s files as ``full``'s branch ``ref`` (trees and contents routes)."""
        for p in sorted(work.rglob("*")):
            rel = p.relative_to(work)
            if p.is_file() and rel.parts[0] != ".git":
                self.fake.add_file(full, ref, rel.as_posix(), p.read_bytes())

    def _template(self, full: str, state: str, seeds: dict) -> None:
        from fleetworld import bot_pull
        from fakegitdata import add_event
        from publishworld import require_signed_commits

        seed = seeds["up to date" if state == "up to date" else "local" if state == "local" else "behind"]
        self.remotes[full] = bare = self._bare(full, seed=seed)
        self.fake.link_git(full, bare)
        if state == "pr open":
            bot_pull(self.fake, full, "1.5.1")
        elif state == "closed by a person":
            pr = bot_pull(self.fake, full, "1.5.1", state="closed")
            add_event(self.fake.repo(full), pr["number"], "closed")
        elif state == "refuses push":
            require_signed_commits(bare, full)

    # ------------------------------------------------------------- the run
    def extra_env(self) -> dict:
        """The ETag cache of fleet-plan is kept between the runs of one world (the cache stand-in's folder)."""
        return {"STANDIN_CACHE": str(self.tmp / "actions-cache"), "STANDIN_CACHE_KEYS": "executorch-pack-bot-fleet-*"}

    def caller_remote(self) -> Path:
        return self.caller_repo

    def repositories(self) -> dict:
        return {CALLER_REPOSITORY: str(self.caller_repo), **{k: str(v) for k, v in self.remotes.items()}}

    def caller(self, dest: Path) -> Path:
        """docs/example-fleet-caller.yml with the bot's repository and commit (it passes them as inputs)."""
        from actworld import BOT_REPOSITORY
        text = self.CALLER.read_text(encoding="utf-8")
        text = text.replace("OWNER/executorch-pack-bot", BOT_REPOSITORY).replace("COMMIT_SHA", self.bot_sha)
        dest.write_text(text, encoding="utf-8")
        return dest

    def branches_of(self, full: str) -> list[str]:
        out = _git(self.tmp, "--git-dir", str(self.remotes[full]), "for-each-ref", "--format=%(refname:short)",
                   "refs/heads")
        return sorted(out.split())

    def show_in(self, full: str, ref: str, path: str) -> str:
        return _git(self.tmp, "--git-dir", str(self.remotes[full]), "show", f"{ref}:{path}")
