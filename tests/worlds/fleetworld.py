"""A fleet of template repositories on the fake GitHub (tests/worlds/fakegithub.py), in mixed states.

Each template is a few pin files written here (modelled on FORMATS.md: a
csolution with the ``PyTorch::ExecuTorch@V`` pack pin, its cbuild-pack lock,
``requirements.txt`` with ``executorch==V``), served through the fake's
tree and contents routes.  Upstream has stable v1.4.0, v1.4.2 and v1.5.1
(v1.5.1 with its pack asset) and an rc.  :data:`STATES` is the mix of the
twenty-template world; :func:`build_fleet` cycles the common states for any size.
"""

from __future__ import annotations

from pathlib import Path

from bot.events.state import dump
from fakegithub import UPSTREAM, FakeGitHub, add_sample_release
from fakegitdata import add_event

PACK_151 = b"PK\x05\x06" + b"\0" * 18     # an (empty) archive standing for the release's pack asset
FP = "<!-- executorch-pack-bot:fingerprint=" + "ab" * 32 + " -->"
BOT_BRANCH = "executorch-pack-bot/executorch"


def pin_files(version: str, *, pack: str | None = None, requirement: str | None = None,
              config: str | None = None, name: str = "") -> dict[str, bytes]:
    """The pin files of a template on ExecuTorch ``version`` (``pack`` the pack pin, default ``version``);
    ``name`` goes into a comment of requirements.txt, so that templates do not share that file's blob."""
    pack = pack or version
    files = {
        "fw.csolution.yml": (
            "solution:\n  packs:\n    - pack: ARM::CMSIS\n"
            f"    - pack: PyTorch::ExecuTorch@{pack}\n"
            "  projects:\n    - project: app/app.cproject.yml\n").encode(),
        "fw.cbuild-pack.yml": (
            "cbuild-pack:\n  resolved-packs:\n"
            f"    - resolved-pack: PyTorch::ExecuTorch@{pack}\n      selected-by-pack:\n"
            f"        - PyTorch::ExecuTorch@{pack}\n").encode(),
        "requirements.txt": (f"# {name}\n" if name else "").encode()
        + f"executorch=={requirement or version}\ntorch==2.9.0\n".encode(),
        "app/main.cpp": b"int main(void) { return 0; }\n",
        "README.md": b"# Firmware\n",
    }
    if config is not None:
        files[".github/executorch-pack-bot.yml"] = config.encode()
    return files


def add_template(fake: FakeGitHub, full: str, files: dict[str, bytes], branch: str = "main") -> None:
    for path, data in files.items():
        fake.add_file(full, branch, path, data)


def add_upstream(fake: FakeGitHub) -> None:
    add_sample_release(fake, "v1.4.0", created_at="2026-06-01T00:00:00Z")
    fake.add_release(UPSTREAM, "v1.4.2", created_at="2026-07-01T00:00:00Z")
    fake.add_release(UPSTREAM, "v1.5.1", created_at="2026-09-01T00:00:00Z",
                     assets={"PyTorch.ExecuTorch.1.5.1.pack": PACK_151})
    fake.add_release(UPSTREAM, "v1.6.0-rc1", created_at="2026-10-01T00:00:00Z", prerelease=True)


def bot_pull(fake: FakeGitHub, full: str, version: str, *, state: str = "open", merged: bool = False,
             fingerprint: bool = True, branch: str = BOT_BRANCH) -> dict:
    return fake.add_pull(full, head=branch, title=f"Bump ExecuTorch to {version}",
                         body="The bump.\n" + (FP if fingerprint else "") + "\n" + dump({"version": version}) + "\n",
                         state=state, merged=merged,
                         user=fake.bot_login if fingerprint else "someone")


#: The twenty-template world: (repository, state), in list order.
STATES = [
    ("acme/behind-a", "behind"), ("acme/behind-b", "behind"), ("acme/current-a", "up to date"),
    ("acme/current-b", "up to date"), ("acme/pr-open", "pr open"), ("acme/pr-old", "pr old"),
    ("acme/closed-person", "closed by a person"), ("acme/closed-branch", "closed by branch deletion"),
    ("acme/local-a", "local"), ("acme/local-b", "local"), ("acme/track14", "track 1.4"),
    ("acme/track14-done", "track 1.4 done"), ("acme/hidden", "not visible"), ("acme/refuses-push", "refuses push"),
    ("acme/disagree", "pins disagree"), ("acme/foreign-pr", "foreign pr"), ("acme/examples", "two branches"),
    ("acme/behind-c", "behind"), ("acme/current-c", "up to date"), ("acme/nightly", "nightly"),
]


def set_state(fake: FakeGitHub, full: str, state: str) -> None:
    """Put repository ``full`` in ``state`` (see :data:`STATES`); its requirements.txt names it."""
    def pin_files(version, **kw):
        return globals()["pin_files"](version, name=full, **kw)

    if state == "not visible":
        return   # not in the fake: GitHub answers 404, as for a repository the App is not installed on
    if state in ("behind", "refuses push"):
        add_template(fake, full, pin_files("1.4.0"))
        if state == "refuses push":
            fake.repo(full).rules.add("signed-commits")   # the push is refused by the PR job, not the plan
    elif state == "up to date":
        add_template(fake, full, pin_files("1.5.1"))
    elif state == "pr open":
        add_template(fake, full, pin_files("1.4.0"))
        bot_pull(fake, full, "1.5.1")
    elif state == "pr old":
        add_template(fake, full, pin_files("1.4.0"))
        bot_pull(fake, full, "1.4.2")
    elif state == "closed by a person":
        add_template(fake, full, pin_files("1.4.0"))
        pr = bot_pull(fake, full, "1.5.1", state="closed")
        add_event(fake.repo(full), pr["number"], "closed")
    elif state == "closed by branch deletion":
        add_template(fake, full, pin_files("1.4.0"))
        pr = bot_pull(fake, full, "1.5.1", state="closed")
        add_event(fake.repo(full), pr["number"], "head_ref_deleted", when="2026-11-01T00:00:00Z")
        add_event(fake.repo(full), pr["number"], "closed", when="2026-11-01T00:00:00Z")
    elif state == "local":
        add_template(fake, full, pin_files("1.4.0", pack="1.4.0-local"))
    elif state in ("track 1.4", "track 1.4 done"):
        add_template(fake, full, pin_files("1.4.0" if state == "track 1.4" else "1.4.2"))
    elif state == "pins disagree":
        add_template(fake, full, pin_files("1.4.0", requirement="1.3.0"))
    elif state == "foreign pr":
        add_template(fake, full, pin_files("1.4.0"))
        bot_pull(fake, full, "1.5.1", fingerprint=False)
    elif state == "two branches":
        add_template(fake, full, pin_files("1.4.0"))
        add_template(fake, full, pin_files("1.4.0", config="branch: executorch-pack-bot/hackathon\n"), "hackathon")
    elif state == "nightly":
        add_template(fake, full, pin_files("1.4.0", requirement="1.4.0.dev20260728"))
    else:
        raise ValueError(state)


def fleet_list_text(states=STATES) -> str:
    """The fleet list of the twenty-template world, with a duplicate and a malformed entry at the end."""
    lines = ["# the fleet", "templates:"]
    for full, state in states:
        if state.startswith("track 1.4"):
            lines += [f"  - repository: {full}", '    track: "1.4"']
        elif state == "two branches":
            lines += [f"  - repository: {full}", "    branches: [main]",
                      f"  - repository: {full}", "    branch: hackathon", '    track: "1.4"']
        else:
            lines.append(f"  - repository: {full}")
    lines += ["  - repository: acme/behind-a", "  - repository: not a repository", "  - reponame: acme/x"]
    return "\n".join(lines) + "\n"


def build_world(fake: FakeGitHub, tmp: Path) -> Path:
    """Upstream and the twenty templates of :data:`STATES`; returns the fleet list's path."""
    add_upstream(fake)
    for full, state in STATES:
        set_state(fake, full, state)
    path = Path(tmp) / "fleet.yml"
    path.write_text(fleet_list_text(), encoding="utf-8")
    return path


#: The states :func:`build_fleet` cycles: a scheduled run's usual mix.
CYCLE = ("up to date", "up to date", "behind", "pr open", "local", "track 1.4 done", "up to date", "pr old")


def build_fleet(fake: FakeGitHub, tmp: Path, n: int) -> Path:
    """Upstream and ``n`` templates cycling :data:`CYCLE` (the benchmark's fleet); returns the list's path."""
    add_upstream(fake)
    lines = ["templates:"]
    for i in range(n):
        full, state = f"fleet/t{i:04d}", CYCLE[i % len(CYCLE)]
        set_state(fake, full, state)
        lines.append(f"  - repository: {full}")
        if state.startswith("track"):
            lines.append('    track: "1.4"')
    path = Path(tmp) / f"fleet-{n}.yml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
