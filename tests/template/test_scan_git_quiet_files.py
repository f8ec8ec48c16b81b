"""Files git finds quiet are never opened, and nothing changes: the plan, the accounting and the audit
are the same as when the walk reads every file.

bot.engine.read.GIT_QUIET_FILES switches between the two paths.  Compared whole (the plan's JSON, its
findings, new contents and mentions accounting, and the audit's JSON) on seeded generated git
checkouts holding tracked, untracked, gitignored, skipped-folder, excluded, symlinked, binary, CRLF,
upper-case EXECUTORCH, UTF-16 and non-UTF-8 files; on a template whose tracked versions include one
without a digit.digit (then quiet files are searched too); and when git is missing, is not a
checkout, or fails (then every file is read).
"""

from __future__ import annotations

import os
import random
import stat
import subprocess

import pytest

from bot import engine
from bot.commands.demo import copy_template
from bot.engine import read as readmod
from bot import quietfiles
from bot.quietfiles import QuietFiles, versions_have_quiet_shape
from bot.errors import BotError
from bot.sample import build_upstream_repo
from bot.template import scan as scanmod
from bot.upstream.git import GitSource

GIT_ENV = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid")


#: The tests that need git's answer (the others check the fallback, or compare with whatever git says).
needs_git = pytest.mark.needs("git-pcre")


@pytest.fixture(autouse=True)
def patient(monkeypatch):
    """Wait for git as long as it takes (a busy test machine must not change which path runs)."""
    monkeypatch.setattr(readmod, "GIT_WAIT", 120.0)


@pytest.fixture(scope="module")
def upstream(tmp_path_factory):
    return GitSource(build_upstream_repo(tmp_path_factory.mktemp("up") / "executorch.git"))


def _whole(plan) -> dict:
    out = plan.to_json()
    out["findings"] = [repr(f) for f in plan.findings]
    out["contents"] = {k: v.decode("utf-8", "replace") for k, v in sorted(plan.contents.items())}
    out["mentions"] = plan.mentions.to_json() if plan.mentions is not None else None
    out["flags_in_order"] = [repr(f) for f in plan.flags]
    return out


def _both(monkeypatch, fn):
    """``fn()`` with git's quiet files, then with the walk alone: results, or error texts."""
    out = []
    for on in (True, False):
        monkeypatch.setattr(readmod, "GIT_QUIET_FILES", on)
        try:
            out.append(fn())
        except BotError as exc:
            out.append(f"{type(exc).__name__}: {exc}")
    return out


def _git(repo, *args):
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=GIT_ENV)


WORDS = ["ExecuTorch", "executorch", "EXECUTORCH", "the", "runtime", "pack", "torch", "version", "release",
         "v", "==", "@", "PyTorch::ExecuTorch@", "release/", "-local", "tag", "#", "//", "/*", "*/", "\n",
         "\n\n", "`", "|", "since", "measured", "fps", "Changelog"]
VALUES = ["1.4.0", "1.4", "1.5.1", "1.3.0", "1.2.0", "2.13.0", "0.14.0", "0.5f", "1.0e-6", "3.10", "42", "2",
          "1.4.0-local", "1.4.0rc1", "v1.4.0", "2025.07.0", "1.2.3.4", "1.\u0663.0", "\u0661.\u0664.\u0660"]


def _text(rnd: random.Random) -> str:
    toks = []
    for _ in range(rnd.randrange(3, 40)):
        toks.append(rnd.choice(VALUES) if rnd.random() < 0.25 else rnd.choice(WORDS))
    r = rnd.random()
    if r < 0.3:     # no digit at all: quiet unless it names ExecuTorch
        toks = [t for t in toks if not any(c.isdigit() for c in t)]
    elif r < 0.45:  # neither the word nor a digit: quiet
        toks = [t for t in toks if not any(c.isdigit() for c in t) and "xecu" not in t.lower()]
    return " ".join(toks) + "\n"


def _encode(rnd: random.Random, text: str) -> bytes:
    """UTF-8 mostly; CRLF line ends, or Latin-1 for ASCII-only text of no ExecuTorch (read either way)."""
    r = rnd.random()
    if r < 0.2:
        text = text.replace("\n", "\r\n")
    if r > 0.9 and text.isascii() and "xecu" not in text.lower():
        return (text.rstrip("\n") + " caf\u00e9 1.4.0\n").encode("latin-1")  # not UTF-8: counted as Latin-1
    return text.encode("utf-8")


def generated_checkout(dest, seed: int, files: int = 120):
    """A git checkout of the sample plus ``files`` random files in every state git and the walk know."""
    rnd = random.Random(seed)
    tpl = copy_template(dest)
    suffixes = [".md", ".txt", ".h", ".c", ".cpp", ".py", ".rst", ".cmake", ".json", ".cfg", ""]
    places = ["gen/a", "gen/b/deep", "docs", "src", "vendor/lib", "build/out", "ai_layer/engine/inc", "old",
              "notes", "cmake-out-arm", "x.egg-info"]
    untracked, ignored = [], []
    for i in range(files):
        place = rnd.choice(places)
        name = f"f{i}{rnd.choice(suffixes)}"
        p = tpl / place / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(_encode(rnd, _text(rnd)))
        r = rnd.random()
        if r < 0.2:
            untracked.append(p)
        elif r < 0.35:
            ignored.append(p.relative_to(tpl).as_posix())
    # binaries: a NUL (skipped), high bytes with and without a digit.digit, a 3 MB file (over the limit)
    (tpl / "gen" / "blob.bin").write_bytes(b"\x89PNG\r\n\x1a\n\0\0" + bytes(range(256)) * 8)
    (tpl / "gen" / "high.dat").write_bytes(b"\xff\xfe\x80 no version here\n")
    (tpl / "gen" / "high_v.dat").write_bytes(b"\xc3\xa9 1.4.0 \xff\n")
    (tpl / "gen" / "big.txt").write_bytes(b"executorch 1.4.0\n" + b"x" * (3 * 1024 * 1024))
    # UTF-16 text without the word (skipped), upper-case EXECUTORCH with a version
    (tpl / "gen" / "wide.bin").write_bytes("no word, version 1.4.0\n".encode("utf-16"))
    (tpl / "docs" / "UPPER.md").write_bytes(b"EXECUTORCH 1.4.0 AND EXECUTORCH V1.4.0 TAG\r\n")
    # symbolic links: to a file inside, to one outside, dangling
    outside = dest.parent / f"outside-{seed}.md"
    outside.write_text("ExecuTorch 1.4.0 outside\n")
    (tpl / "docs" / "link_in.md").symlink_to("UPPER.md")
    (tpl / "docs" / "link_out.md").symlink_to(outside)
    (tpl / "docs" / "dangling.md").symlink_to("nowhere.md")
    # excluded by the config file and by --exclude
    (tpl / "old" / "excluded.md").write_text("ExecuTorch 1.4.0 in an excluded page\n")
    (tpl / ".github" / "executorch-pack-bot.yml").write_text("exclude:\n  - old/*\n")
    (tpl / ".gitignore").write_text("".join(f"/{rel}\n" for rel in ignored) + "*.log\n")
    (tpl / "gen" / "run.log").write_text("build of ExecuTorch 1.4.0 finished; 1.3.0 before\n")
    _git(tpl, "init", "-q")
    _git(tpl, "add", "-A")
    for p in untracked:
        _git(tpl, "rm", "-q", "--cached", str(p.relative_to(tpl)))
    _git(tpl, "commit", "-qm", "generated")
    return tpl


@needs_git
@pytest.mark.parametrize("seed", [11, 12, 13, 14, 15])
def test_plan_audit_and_accounting_are_the_same_with_git_and_with_the_walk(tmp_path, monkeypatch, upstream, seed):
    tpl = generated_checkout(tmp_path / "t", seed)
    with_git, walk = _both(monkeypatch, lambda: _whole(engine.plan(tpl, upstream, exclude=("notes",))))
    assert isinstance(with_git, dict), with_git
    assert with_git == walk
    assert with_git["edits"] and with_git["mentions"]["items"]   # a real bump, a real accounting
    a, b = _both(monkeypatch, lambda: engine.audit(tpl, exclude=("notes",)).to_json())
    assert a == b
    # git was put to work: files were left unopened, the walk alone leaves none
    monkeypatch.setattr(readmod, "GIT_QUIET_FILES", True)
    quiet = engine.read_template(tpl, exclude=("notes",))._quiet
    assert not {"gen/high.dat", "gen/wide.bin", "gen/blob.bin", "docs/UPPER.md", "gen/high_v.dat"} & quiet
    assert len(quiet) > 10   # ASCII files without a digit.digit
    monkeypatch.setattr(readmod, "GIT_QUIET_FILES", False)
    assert engine.read_template(tpl, exclude=("notes",))._quiet == frozenset()


@needs_git
@pytest.mark.parametrize("seed", [16, 17])
def test_without_the_byte_filter_git_and_the_walk_agree_too(tmp_path, monkeypatch, upstream, seed):
    tpl = generated_checkout(tmp_path / "t", seed)
    monkeypatch.setattr(readmod, "BYTE_FILTER", False)
    with_git, walk = _both(monkeypatch, lambda: _whole(engine.plan(tpl, upstream)))
    assert isinstance(with_git, dict) and with_git == walk
    monkeypatch.setattr(readmod, "GIT_QUIET_FILES", True)
    read = engine.read_template(tpl)
    assert read._quiet and not any(b"xecu" in (tpl / rel).read_bytes().lower() for rel in read._quiet)


@needs_git
@pytest.mark.parametrize("answer_after", [0, 40, 10_000])
def test_git_answering_while_the_files_are_read_changes_nothing(tmp_path, monkeypatch, upstream, answer_after):
    # without GIT_WAIT the reader starts at once and uses git's answer from the file where it comes
    tpl = generated_checkout(tmp_path / "t", 18)
    monkeypatch.setattr(readmod, "GIT_QUIET_FILES", False)
    walk = _whole(engine.plan(tpl, upstream))
    asked = []

    def done(self):   # git "answers" after that many files; result() then waits for its real answer
        asked.append(1)
        return len(asked) > answer_after

    monkeypatch.setattr(QuietFiles, "done", done)
    monkeypatch.setattr(QuietFiles, "result", lambda self, timeout=None, real=QuietFiles.result: real(self, 120))
    monkeypatch.setattr(readmod, "GIT_QUIET_FILES", True)
    monkeypatch.setattr(readmod, "GIT_WAIT", None)
    assert _whole(engine.plan(tpl, upstream)) == walk
    asked.clear()
    read = engine.read_template(tpl)
    read.others_for(["1.4.0"])                           # the accounting's turn: git's answer is taken
    assert read._quiet                                   # git answered (after the read at the latest)
    assert bool(read._quiet_prose) is (answer_after < 100)   # quiet prose files were skipped once it had


@needs_git
def test_a_quiet_file_is_never_opened(tmp_path, monkeypatch):
    tpl = copy_template(tmp_path / "t")
    (tpl / "docs").mkdir()
    (tpl / "docs" / "plain.md").write_text("no word and no version here\n")
    (tpl / "docs" / "kept.md").write_text("a digit.digit 0.5 is enough to be read\n")
    opened = []
    real_open = open

    def spy(path, *a, **k):
        opened.append(os.fspath(path))
        return real_open(path, *a, **k)

    monkeypatch.setattr("builtins.open", spy)
    monkeypatch.setattr(readmod, "GIT_QUIET_FILES", True)
    tpl_read = engine.read_template(tpl)
    assert not any(p.endswith("docs/plain.md") for p in opened)
    assert any(p.endswith("docs/kept.md") for p in opened)
    assert "docs/plain.md" in tpl_read._quiet and "docs/kept.md" in tpl_read.others


CONDA_TWO = "name: et\ndependencies:\n  - python=3.11\n  - pytorch=2\n  - pip\n"


@needs_git
def test_a_tracked_version_without_digit_dot_digit_searches_the_quiet_files_too(tmp_path, monkeypatch, upstream):
    # a conda-level "pytorch=2" is tracked as "2": files with a lone 2 and a "." hold occurrences
    tpl = copy_template(tmp_path / "t")
    (tpl / "environment.yml").write_text(CONDA_TWO)
    (tpl / "docs").mkdir()
    (tpl / "docs" / "two.md").write_text("Use pytorch 2. Nothing else.\n")           # prose, quiet
    (tpl / "docs" / "two.cfg").write_text("level = 2. done\n")                       # no manager, quiet
    (tpl / "docs" / "nodot.md").write_text("pytorch 2 without a dot\n")              # quiet, no "."
    (tpl / "docs" / "two_et.md").write_text("ExecuTorch with pytorch 2. ok\n")     # quiet, left out by the filter
    monkeypatch.setattr(readmod, "GIT_QUIET_FILES", True)
    read = engine.read_template(tpl)
    assert {"docs/two.md", "docs/two.cfg", "docs/nodot.md", "docs/two_et.md"} <= read._quiet
    assert not versions_have_quiet_shape(["1.4.0", "2"]) and versions_have_quiet_shape(["1.4.0", "1.\u0663"])
    searched = read.others_for(["2"])
    assert {"docs/two.md", "docs/two.cfg"} <= set(searched)
    assert not {"docs/nodot.md", "docs/two_et.md"} & set(searched)
    assert "docs/two.md" not in read.others_for(["1.4.0"])
    with_git, walk = _both(monkeypatch, lambda: _whole(engine.plan(tpl, upstream)))
    assert with_git == walk
    items = {(o["path"], o["version"]) for o in with_git["mentions"]["items"]}
    assert {("docs/two.md", "2"), ("docs/two.cfg", "2")} <= items


def test_refused_files_are_refused_the_same_way(tmp_path, monkeypatch, upstream):
    for name, raw in (("wide.md", "ExecuTorch 1.4.0 notes\n".encode("utf-16")),
                      ("wide32.md", "ExecuTorch notes\n".encode("utf-32")),
                      ("nul.md", b"EXECUTORCH runtime\0 notes\n"),
                      ("latin1.md", "ExecuTorch d\u00e9j\u00e0 vu\n".encode("latin-1"))):
        tpl = copy_template(tmp_path / name)
        (tpl / "docs").mkdir()
        (tpl / "docs" / name).write_bytes(raw)
        with_git, walk = _both(monkeypatch, lambda: _whole(engine.plan(tpl, upstream)))
        assert with_git == walk
        assert isinstance(with_git, str) and with_git.startswith("TemplateError"), (name, with_git)
        assert f"docs/{name}" in with_git


@pytest.mark.parametrize("prose_first", [True, False])
def test_of_two_refused_files_the_first_in_path_order_is_named(tmp_path, monkeypatch, upstream, prose_first):
    # a pin file is read while git works; its error still waits for its turn in path order
    tpl = copy_template(tmp_path / "t")
    prose = tpl / ("a-docs" if prose_first else "zz-docs") / "nul.md"
    prose.parent.mkdir()
    prose.write_bytes(b"EXECUTORCH runtime\0 notes\n")
    (tpl / "requirements.txt").write_bytes(b"executorch==1.4.0\0\n")
    with_git, walk = _both(monkeypatch, lambda: _whole(engine.plan(tpl, upstream)))
    assert with_git == walk
    assert isinstance(with_git, str) and with_git.startswith("TemplateError")
    named = prose.relative_to(tpl).as_posix() if prose_first else "requirements.txt"
    assert with_git.split(":", 2)[1].strip() == named, with_git


def _fake_git(tmp_path, script: str) -> str:
    bindir = tmp_path / "fakebin"
    bindir.mkdir(exist_ok=True)
    git = bindir / "git"
    git.write_text("#!/bin/sh\n" + script)
    git.chmod(git.stat().st_mode | stat.S_IEXEC)
    return str(bindir)


@pytest.mark.parametrize("how", ["missing", "fails", "warns", "not-a-checkout"])
def test_without_a_working_git_every_file_is_read_and_the_result_is_the_walks(tmp_path, monkeypatch, upstream,
                                                                             how):
    if how == "not-a-checkout":
        tpl = copy_template(tmp_path / "t")           # no git init: git grep --no-index still answers
        (tpl / "docs").mkdir()
        (tpl / "docs" / "plain.md").write_text("no word, no version\n")
    else:
        tpl = generated_checkout(tmp_path / "t", 21, files=40)
    monkeypatch.setattr(readmod, "GIT_QUIET_FILES", False)
    walk = _whole(engine.plan(tpl, upstream))
    if how == "missing":
        monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    elif how == "fails":      # git grep failing: exit status 2
        monkeypatch.setenv("PATH", _fake_git(tmp_path, "echo 'fatal: cannot grep' >&2\nexit 2\n"))
    elif how == "warns":      # exit 0, but a file it could not read: its answer is not trusted
        monkeypatch.setenv("PATH", _fake_git(tmp_path, "printf 'docs/x.md\\0'\necho 'error: unable to read' >&2\n"))
    monkeypatch.setattr(readmod, "GIT_QUIET_FILES", True)
    read = engine.read_template(tpl)
    assert (read._quiet == frozenset()) is (how != "not-a-checkout")
    if how == "not-a-checkout":
        assert "docs/plain.md" in read._quiet
    assert _whole(engine.plan(tpl, upstream)) == walk


def test_git_slower_than_its_wait_is_stopped_and_every_file_is_read(tmp_path, monkeypatch, upstream):
    tpl = copy_template(tmp_path / "t")
    monkeypatch.setattr(readmod, "GIT_QUIET_FILES", False)
    walk = _whole(engine.plan(tpl, upstream))
    monkeypatch.setenv("PATH", _fake_git(tmp_path, "exec sleep 30\n"))
    monkeypatch.setattr(readmod, "GIT_QUIET_FILES", True)
    monkeypatch.setattr(readmod, "GIT_WAIT", 0.05)
    assert engine.read_template(tpl)._quiet == frozenset()
    assert _whole(engine.plan(tpl, upstream)) == walk


@needs_git
def test_quiet_files_results_of_git(tmp_path):
    tpl = tmp_path / "t"
    (tpl / "vendor").mkdir(parents=True)
    (tpl / "a.md").write_text("plain\n")
    (tpl / "b.md").write_text("ExecuTorch\n")
    (tpl / "c.md").write_text("x 1.4 y\n")
    (tpl / "d.md").write_bytes("e\u0301 1.\u0663\n".encode())     # digit, dot, non-ASCII
    (tpl / "e.md").write_bytes("ExecuTorch".encode("utf-16-le"))
    (tpl / "f.md").write_bytes("ExecuTorch".encode("utf-32-be"))
    (tpl / "g.md").write_bytes(b"\xff\xfe no version\n")                 # not ASCII
    (tpl / "vendor" / "h.md").write_text("plain\n")               # a skipped folder: git never looks
    assert QuietFiles(str(tpl)).result() == frozenset({"a.md", "b.md"})
    assert QuietFiles(str(tpl), byte_filter=False).result() == frozenset({"a.md"})


def test_memoised_manager_matching_equals_asking_every_manager(tmp_path):
    rnd = random.Random(5)
    names = ["requirements.txt", "requirements-dev.txt", "dev-requirements2.txt", "constraints.txt", "base.txt",
             "x.in", "req1.in", "environment.yml", "environment-1.yml", "conda-env2.yml", "a.csolution.yml",
             "b1.cproject.yaml", "p.cbuild-pack.yml", "pyproject.toml", "Dockerfile", "Dockerfile.2", "run1.sh",
             "CMakeLists.txt", "x.cmake", "Makefile", "m.mk", "CHANGELOG.md", "NEWS1", "release-notes.txt",
             "f12.cpp", "f3.h", "README.md", "doc.rst", "data.json", "uv.lock", "w1.yml", "w22.yaml", "n.c"]
    dirs = ["", "requirements", "a/requirements", ".github/workflows", "x/.github/workflows", "src/part01",
            "requirements/sub"]
    for i in range(300):
        p = tmp_path / rnd.choice(dirs) / rnd.choice(names).replace("1", str(i))
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("x\n")
    memo = scanmod.discover(tmp_path)
    direct = scanmod.discover(tmp_path, mgrs=scanmod.managers())
    assert [(r, [m.name for m in ms]) for r, ms in memo.files] == \
        [(r, [m.name for m in ms]) for r, ms in direct.files]
    assert (memo.others, memo.skipped, memo.python_locks) == (direct.others, direct.skipped, direct.python_locks)
    assert len(memo.files) > 100
    # the key holds everything the default managers look at: one key, one answer
    answers: dict = {}
    for rel in direct.files:
        key = scanmod.match_key(rel[0])
        names = [m.name for m in rel[1]]
        assert answers.setdefault(key, names) == names, rel[0]
    assert scanmod.match_key("docs/part07/f123.md") == (False, b"f000.md", False)


def test_the_folders_git_is_kept_out_of_are_the_walks():
    assert set(quietfiles.SKIPPED_NAMES) == set(scanmod.SKIP_DIRS)
    assert quietfiles.SKIPPED_PREFIXES == scanmod.SKIP_DIR_PREFIXES
    assert quietfiles.SKIPPED_SUBTREES == scanmod.SKIP_SUBTREES


@needs_git
def test_update_starts_git_before_its_imports_and_the_reader_takes_that_run(tmp_path, monkeypatch, upstream):
    tpl = copy_template(tmp_path / "t")
    (tpl / "docs").mkdir()
    (tpl / "docs" / "plain.md").write_text("no word and no version here\n")
    started, taken = [], []
    real_init, real_take = QuietFiles.__init__, quietfiles.take

    def init(self, repo, byte_filter=True):
        started.append(repo)
        real_init(self, repo, byte_filter)

    def take(repo, byte_filter):
        got = real_take(repo, byte_filter)
        taken.append(got is not None)
        return got

    monkeypatch.setattr(QuietFiles, "__init__", init)
    monkeypatch.setattr(quietfiles, "take", take)
    from bot.cli import main
    assert main(["update", "--repo", str(tpl), "--upstream", str(upstream.path), "--dry-run", "--json"]) == 0
    assert started == [os.path.realpath(tpl)] and taken == [True]
    assert quietfiles._EARLY == {}


@needs_git
def test_a_run_nothing_takes_is_stopped(tmp_path):
    quietfiles.prestart(tmp_path)
    early = quietfiles._EARLY[os.path.realpath(tmp_path)]
    quietfiles.discard(tmp_path)
    assert quietfiles._EARLY == {} and early._proc.poll() is not None
    quietfiles.prestart(tmp_path)
    assert quietfiles.take(tmp_path, byte_filter=False) is None and quietfiles._EARLY == {}
