#!/usr/bin/env python3
"""The stand-ins for third-party actions and host tools in the workflow scenarios (tests/worlds/actions/README.md).

``python3 standin.py NAME`` with the action's inputs in ``IN_*`` variables; the test world
(tests/worlds/actworld.py) gives ``STANDIN_REPOS`` (a JSON file: ``{"owner/name": git directory}``),
``STANDIN_ARTIFACTS`` (the run's artifact folder) and ``STANDIN_APP_TOKEN``.  Also installed as
``cpackget`` and ``cbuild`` (the fake CMSIS-Toolbox) and ``cmake`` / ``sudo`` (host-mode seams):
the program name picks the behaviour.  Standard library only: it runs under the runner's python3.
"""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path


def fail(message: str) -> None:
    """Print a workflow ``::error`` and exit 1 (how the real actions fail a step)."""
    print(f"::error::{message}")
    sys.exit(1)


def output(name: str, value: str) -> None:
    with open(os.environ["GITHUB_OUTPUT"], "a", encoding="utf-8") as f:
        f.write(f"{name}={value}\n")


def git(*args: str, cwd=None) -> str:
    p = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if p.returncode:
        fail(f"git {' '.join(args)}: {p.stderr.strip()}")
    return p.stdout.strip()


def checkout() -> None:
    """actions/checkout: a clone of the named repository, on a branch (a SHA ref: detached at it)."""
    repos = json.loads(Path(os.environ["STANDIN_REPOS"]).read_text())
    name = os.environ["IN_REPOSITORY"]
    if name not in repos:
        fail(f"checkout stand-in: repository {name} is not one of the test's repositories ({', '.join(repos)})")
    dest = Path(os.environ["GITHUB_WORKSPACE"]) / os.environ.get("IN_PATH", ".")
    if dest.exists():
        shutil.rmtree(dest)
    git("clone", "-q", "--no-hardlinks", repos[name], str(dest))
    ref = os.environ.get("IN_REF", "")
    if not ref and name == os.environ.get("GITHUB_REPOSITORY"):
        event_ref = os.environ.get("GITHUB_REF", "")
        ref = event_ref[len("refs/heads/"):] if event_ref.startswith("refs/heads/") else ""
        if event_ref.startswith("refs/tags/"):   # a tag push: the tag's commit, detached
            ref = git("rev-parse", f"{event_ref}^{{commit}}", cwd=dest)
    if re.fullmatch(r"[0-9a-f]{40}", ref):
        git("checkout", "-q", "--detach", ref, cwd=dest)
    elif ref:
        git("checkout", "-q", "-B", ref, f"origin/{ref}", cwd=dest)
    print(f"checkout stand-in: {name} at {git('rev-parse', 'HEAD', cwd=dest)} in {dest}")


def upload_artifact() -> None:
    """actions/upload-artifact v4: files matching ``path`` (lines of globs), stored under ``name``.

    Like v4: a name already uploaded in the run is refused; the paths inside the artifact are relative
    to the matches' common folder; file modes are not kept (upload-artifact's README, "Permission Loss").
    """
    name = os.environ["IN_NAME"]
    store = Path(os.environ["STANDIN_ARTIFACTS"]) / name
    if name in os.environ.get("STANDIN_LOST_ARTIFACTS", "").split():   # the test: gone (expired, deleted)
        print(f"upload-artifact stand-in: {name} uploaded, then lost")
        return
    if store.exists():
        fail(f"Failed to CreateArtifact: an artifact with this name already exists on the workflow run: {name}")
    ws = Path(os.environ["GITHUB_WORKSPACE"])
    files = []
    for line in os.environ["IN_PATH"].splitlines():
        line = line.strip()
        if line:
            for m in glob.glob(str(ws / line), recursive=True):
                p = Path(m)
                files += [p] if p.is_file() else [q for q in p.rglob("*") if q.is_file()]
    if not files:
        how = os.environ.get("IN_IF_NO_FILES_FOUND", "warn")
        message = f"No files were found with the provided path: {os.environ['IN_PATH'].strip()}. No artifacts will be uploaded."
        if how == "error":
            fail(message)
        print(f"::warning::{message}" if how == "warn" else message)
        return
    root = Path(os.path.commonpath([str(f.parent) for f in files]))
    for f in files:
        to = store / f.relative_to(root)
        to.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, to)   # content only: no mode
        to.chmod(0o644)
    print(f"upload-artifact stand-in: {name}: {len(files)} file(s)")


def download_artifact() -> None:
    """actions/download-artifact v4: the artifact ``name`` into ``path`` (a missing one fails the step); without a
    name, every artifact whose name matches ``pattern`` (a glob; none: all), each into ``path/NAME/``, or all into
    ``path`` itself with ``merge-multiple: true``.  A pattern that matches nothing downloads nothing and succeeds
    (download-artifact v4's README, "Download multiple (filtered) Artifacts to the same directory")."""
    import fnmatch

    root = Path(os.environ["STANDIN_ARTIFACTS"])
    dest = Path(os.environ["GITHUB_WORKSPACE"]) / os.environ.get("IN_PATH", ".")
    name = os.environ.get("IN_NAME", "")
    if name:
        if not (root / name).is_dir():
            fail(f"Unable to download artifact(s): Artifact not found for name: {name}")
        found, merge = [name], True
    else:
        pattern = os.environ.get("IN_PATTERN", "") or "*"
        found = sorted(d.name for d in root.iterdir() if d.is_dir() and fnmatch.fnmatchcase(d.name, pattern))
        merge = os.environ.get("IN_MERGE_MULTIPLE", "false") == "true"
    for art in found:
        store = root / art
        for f in store.rglob("*"):
            if f.is_file():
                to = (dest if merge else dest / art) / f.relative_to(store)
                to.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(f, to)
    print(f"download-artifact stand-in: {len(found)} artifact(s) into {dest}: {', '.join(found)}")


def create_github_app_token() -> None:
    """actions/create-github-app-token: a token when a client id and a private key are given."""
    if not os.environ.get("IN_CLIENT_ID"):
        fail("Input required and not supplied: client-id")
    if not os.environ.get("IN_PRIVATE_KEY"):
        fail("Input required and not supplied: private-key")
    token = os.environ["STANDIN_APP_TOKEN"]
    print(f"::add-mask::{token}")
    with open(os.environ["STANDIN_APP_LOG"], "a", encoding="utf-8") as f:
        f.write(" ".join([os.environ.get("IN_PERMISSIONS", ""), f"metadata={os.environ.get('IN_METADATA', '')}",
                          f"owner={os.environ.get('IN_OWNER', '')}",
                          f"repositories={os.environ.get('IN_REPOSITORIES', '')}"]) + "\n")
    output("token", token)


def _cache_paths() -> list[Path]:
    """The ``path`` input's lines: relative to the workspace, ``~`` the runner's home."""
    ws = Path(os.environ["GITHUB_WORKSPACE"])
    return [ws / os.path.expanduser(line.strip()) for line in os.environ.get("INPUT_PATH", "").splitlines()
            if line.strip()]


def _cache_store() -> Path | None:
    """The cache folder of the test world (``$STANDIN_CACHE``), None when caches are off or the key is not one the
    test keeps (``$STANDIN_CACHE_KEYS``, a glob)."""
    import fnmatch

    store, keep = os.environ.get("STANDIN_CACHE", ""), os.environ.get("STANDIN_CACHE_KEYS", "*")
    if not store or not fnmatch.fnmatchcase(os.environ.get("INPUT_KEY", ""), keep):
        return None
    return Path(store)


def cache_restore() -> None:
    """actions/cache, main step: the entry of the primary key (``cache-hit`` true), else the newest whose key starts
    with one of ``restore-keys`` in order (``cache-hit`` false); nothing restored without ``$STANDIN_CACHE``.
    actions/cache's README, "Cache Restore"."""
    key, store = os.environ.get("INPUT_KEY", ""), _cache_store()
    saved = json.loads((store / "index.json").read_text()) if store and (store / "index.json").is_file() else []
    hit = next((e for e in saved if e["key"] == key), None)
    if hit is None:
        for prefix in filter(None, (ln.strip() for ln in os.environ.get("INPUT_RESTORE-KEYS", "").splitlines())):
            hit = next((e for e in reversed(saved) if e["key"].startswith(prefix)), None)
            if hit:
                break
    if hit is None:
        print(f"cache stand-in: nothing restored for {key}")
        output("cache-hit", "false")
        return
    for i, dest in enumerate(_cache_paths()):
        src = store / hit["dir"] / str(i)
        if src.is_dir():
            shutil.copytree(src, dest, dirs_exist_ok=True)
    print(f"cache stand-in: restored {hit['key']} for {key}")
    output("cache-hit", "true" if hit["key"] == key else "false")


def cache_save() -> None:
    """actions/cache, post step: the paths saved under the primary key, unless an entry has that key already
    (caches are immutable)."""
    key, store = os.environ.get("INPUT_KEY", ""), _cache_store()
    if store is None:
        return
    store.mkdir(parents=True, exist_ok=True)
    index = store / "index.json"
    saved = json.loads(index.read_text()) if index.is_file() else []
    if any(e["key"] == key for e in saved):
        print(f"cache stand-in: {key} is saved already")
        return
    entry = {"key": key, "dir": f"entry{len(saved)}"}
    for i, src in enumerate(_cache_paths()):
        if src.is_dir():
            shutil.copytree(src, store / entry["dir"] / str(i))
    index.write_text(json.dumps(saved + [entry]))
    print(f"cache stand-in: saved {key}")


def vcpkg() -> None:
    """ARM-software/cmsis-actions/vcpkg: CMSIS-Toolbox on PATH (here the fake cpackget and cbuild)."""
    config = Path(os.environ["GITHUB_WORKSPACE"]) / os.environ["IN_CONFIG"]
    if not config.is_file():
        fail(f"vcpkg stand-in: {config} not found")
    with open(os.environ["GITHUB_PATH"], "a", encoding="utf-8") as f:
        f.write(os.environ["STANDIN_TOOLBOX"] + "\n")


def cpackget(argv: list[str]) -> int:
    """cpackget init/add/list against ``--pack-root`` or $CMSIS_PACK_ROOT (PACK_ROOT/Vendor/Name/Version/)."""
    root = Path(os.environ.get("CMSIS_PACK_ROOT", ""))
    if argv[0] == "init":
        root = Path(argv[argv.index("--pack-root") + 1])
        (root / ".Web").mkdir(parents=True, exist_ok=True)
        return 0
    if argv[0] == "add":
        pack = Path(argv[-1])
        vendor, name, version = re.fullmatch(r"([^.]+)\.([^.]+)\.(.+)\.pack", pack.name).groups()
        with zipfile.ZipFile(pack) as zf:
            zf.extractall(root / vendor / name / version)
        return 0
    if argv[0] == "list":
        for d in sorted(root.glob("*/*/*")):
            if d.is_dir() and not d.parts[-3].startswith("."):
                print(f"{d.parts[-3]}::{d.parts[-2]}@{d.parts[-1]}")
        return 0
    print(f"cpackget stand-in: unknown {argv}", file=sys.stderr)
    return 2


def cbuild(argv: list[str]) -> int:
    """cbuild setup CSOLUTION --packs writes CSOLUTION's .cbuild-mlops.yml; cbuild CSOLUTION builds nothing."""
    if argv[0] == "setup":
        solution = argv[1]
        Path(solution.removesuffix(".csolution.yml") + ".cbuild-mlops.yml").write_text(
            f"cbuild-mlops:\n  solution: {solution}\n", encoding="utf-8")
    return 0


def cmake(argv: list[str]) -> int:
    """cmake: configure does nothing; --build BUILD writes the flatc headers and the flatbuffers include tree."""
    if argv and argv[0] == "--build":
        build = Path(argv[1])
        for name in ("program_generated.h", "scalar_type_generated.h"):
            p = build / "schema/include/executorch/schema" / name
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text("// automatically generated by the FlatBuffers compiler\n")
        fb = build / "third-party/flatc_ep/include/flatbuffers"
        fb.mkdir(parents=True, exist_ok=True)
        (fb / "flatbuffers.h").write_text("// flatbuffers\n")
    print("cmake stand-in:", " ".join(argv))
    return 0


def sudo(argv: list[str]) -> int:
    """sudo: apt-get is logged (the packages are on this machine already), anything else refused."""
    args = [a for a in argv if "=" not in a or not a.split("=")[0].isupper()]
    if args and args[0] == "env":
        args = args[1:]
    if args and args[0] == "apt-get":
        with open(os.environ["STANDIN_APT_LOG"], "a", encoding="utf-8") as f:
            f.write(" ".join(args) + "\n")
        return 0
    print(f"sudo stand-in: refusing {argv}", file=sys.stderr)
    return 1


def attest_build_provenance() -> None:
    """actions/attest-build-provenance: one JSON line per subject (``name``, ``sha256``) in ``$STANDIN_ATTEST_LOG``;
    a pattern matching no file fails, as the real action does."""
    files = sorted(f for pattern in os.environ["IN_SUBJECT_PATH"].split() for f in glob.glob(pattern)
                   if Path(f).is_file())
    if not files:
        fail(f"attest stand-in: no file matches {os.environ['IN_SUBJECT_PATH']!r}")
    import hashlib
    with open(os.environ["STANDIN_ATTEST_LOG"], "a", encoding="utf-8") as log:
        for f in files:
            log.write(json.dumps({"name": Path(f).name,
                                  "sha256": hashlib.sha256(Path(f).read_bytes()).hexdigest()}) + "\n")
    output("attestation-id", "1")


TOOLS = {"cpackget": cpackget, "cbuild": cbuild, "cmake": cmake, "sudo": sudo}
ACTIONS = {"checkout": checkout, "upload-artifact": upload_artifact, "download-artifact": download_artifact,
           "create-github-app-token": create_github_app_token, "vcpkg": vcpkg, "cache-restore": cache_restore,
           "cache-save": cache_save, "attest-build-provenance": attest_build_provenance}

if __name__ == "__main__":
    prog = Path(sys.argv[0]).name
    if prog in TOOLS:
        sys.exit(TOOLS[prog](sys.argv[1:]))
    ACTIONS[sys.argv[1]]()
