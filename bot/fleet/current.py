"""What one template branch pins now, read through the API without a checkout.

One conditional request in the usual case: ``GET /repos/O/N/git/trees/REF?recursive=1``
(GitHub REST docs, "Get a tree": ``tree_sha`` may be a branch name or
``HEAD``, the default branch) with the ETag of the last run.  From the tree,
only the files a pin manager reads are kept (csolution/cproject/clayer,
``*.cbuild-pack.yml``, requirement files, ``pyproject.toml``, conda
environments: :data:`bot.template.scan.PIN_MANAGERS`) with the config file
``.github/executorch-pack-bot.yml``, each with its blob sha.  A file whose
blob the cache holds is not read again; the others are read with the
contents API at the branch.  They are written into a scratch folder and read
by the engine itself (:func:`bot.engine.read_template`,
:func:`bot.engine.current_pins`, :func:`bot.config.load_config`), so the
fleet reads a template exactly as ``check`` does.  The answer is cached per
digest of the pin files' blob shas: a branch whose pin files did not change
costs no file read even when other files changed.
"""

from __future__ import annotations

import base64
import hashlib
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from bot.errors import BotError, PlatformError
from bot.fleet.remote import MISSING, Remote

CONFIG_FILES = (".github/executorch-pack-bot.yml", ".github/executorch-pack-bot.yaml")
MAX_PIN_FILES = 200
LINK = "link:"   # a pin file's kept sha when the tree lists it as a symbolic link (GitHub REST docs, "Get a tree": mode)


@dataclass(frozen=True)
class Pins:
    """A template branch's state: ``current`` (PEP 440 text) and ``label`` (``"local"`` for a locally built
    pack, else None), the bot's branch for it (:attr:`bot.config.Config.branch`, ``{version}`` unreplaced)
    and base (``base:`` of the config, else None), whether its config keeps a dashboard issue (``dashboard:``,
    where reviewers' ignored versions then live: :mod:`bot.events.ignored`); or ``error`` (why it could not be read: ``missing``
    when GitHub answered 404) with the other fields empty."""

    current: str = ""
    label: Optional[str] = None
    bot_branch: str = ""
    base: Optional[str] = None
    error: str = ""
    missing: bool = False
    dashboard: bool = False


def plain_path(path) -> bool:
    """True when ``path`` is a plain repository-relative POSIX path: text, not absolute, no empty, ``.`` or
    ``..`` component, no NUL.  A tree entry's path is GitHub's answer, foreign input: only such a path is
    written into the scratch folder (``../x`` or ``/x`` would land outside it)."""
    return (isinstance(path, str) and 0 < len(path) <= 4096 and "\0" not in path
            and all(part not in ("", ".", "..") for part in path.split("/")))


def tree_value_ok(value) -> bool:
    """True when ``value`` has the shape :func:`pin_files` gives (a cached value is checked before use)."""
    return (isinstance(value, dict) and isinstance(value.get("truncated"), bool)
            and isinstance(value.get("files"), dict)
            and all(plain_path(k) and isinstance(v, str) for k, v in value["files"].items()))


def pins_value_ok(value) -> bool:
    """True when a cached pin answer has the fields :class:`Pins` takes with their types, and its version
    (when it has no error) is a version and its bot branch a valid branch name."""
    from packaging.version import InvalidVersion, Version

    from bot.config import valid_branch_name

    if not isinstance(value, dict):
        return False
    if not all(isinstance(value.get(k), str) for k in ("current", "bot_branch", "error")):
        return False
    if not all(value.get(k) is None or isinstance(value.get(k), str) for k in ("label", "base")):
        return False
    if not isinstance(value.get("dashboard"), bool):
        return False
    if value["error"]:
        return True
    try:
        Version(value["current"])
    except InvalidVersion:
        return False
    return valid_branch_name(value["bot_branch"].replace("{version}", "0.0.0"))


def pin_files(tree: dict) -> dict:
    """``{"truncated": bool, "files": {path: blob sha}}`` of a "Get a tree" answer: the files the pin
    managers read, and the config file, out of folders the scan never enters.  An entry whose path is
    not a plain relative path (:func:`plain_path`) is left out; a symbolic link's sha is kept as
    ``link:SHA`` (:func:`read_pins` refuses it)."""
    from bot.template import scan

    if not isinstance(tree, dict):
        return {"truncated": False, "files": {}}
    pins = [m for m in scan.managers() if m.name in scan.PIN_MANAGERS]
    files = {}
    entries = tree.get("tree")
    for e in entries if isinstance(entries, list) else ():
        if not isinstance(e, dict) or e.get("type") != "blob" or not plain_path(e.get("path")):
            continue
        path = e["path"]
        parts = path.split("/")
        if any(scan._skip_dir(p, "/".join(parts[:i + 1])) for i, p in enumerate(parts[:-1])):
            continue
        if path in CONFIG_FILES or any(m.matches(path) for m in pins):
            sha = e["sha"] if isinstance(e.get("sha"), str) else ""
            files[path] = LINK + sha if e.get("mode") == "120000" else sha   # mode 120000: a symbolic link
    return {"truncated": bool(tree.get("truncated")), "files": files}


def read_pins(remote: Remote, repository: str, branch: Optional[str]) -> Pins:
    """The pins of ``repository`` at ``branch`` (None: the default branch), as :class:`Pins`.

    Never raises for the template's own faults (a pin that disagrees, a bad
    config file): they are ``error``.  Raises :class:`~bot.errors.TransientError`
    when GitHub keeps failing (the caller resumes later) and
    :class:`~bot.errors.PlatformError` for another refusal.
    """
    from urllib.parse import quote

    ref = quote(branch, safe="/") if branch else "HEAD"   # a '#' or '%' in a branch name is part of it, not of the URL
    where = f"{repository}@{branch}" if branch else repository
    tree = remote.get(f"/repos/{repository}/git/trees/{ref}", {"recursive": "1"},
                      what=f"list the files of {where}", keep=pin_files, check=tree_value_ok)
    if tree is MISSING:
        return Pins(error=(f"GitHub answers 404 for {where}: the App is not installed on the repository, it does "
                           "not exist, or the branch does not exist"), missing=True)
    if tree.get("truncated"):
        return Pins(error=f"{where}: GitHub listed a truncated tree (too many files); run the bot in that "
                          "repository instead")
    files = tree["files"]
    link = next((path for path, sha in sorted(files.items()) if sha.startswith(LINK)), None)
    if link is not None:
        return Pins(error=f"{link}: a symbolic link in {where}; the bot reads no pin file through a link (its "
                          "target may be outside the repository): run `check` in that repository")
    if len(files) > MAX_PIN_FILES:
        return Pins(error=f"{where}: {len(files)} pin files, more than the fleet reads ({MAX_PIN_FILES})")
    digest = hashlib.sha256(json.dumps(sorted(files.items())).encode()).hexdigest()
    known = remote.cache.pin_result(digest)
    if known is not None and pins_value_ok(known):
        remote.cache.keep_blobs(files.values())   # one changed file later re-reads only that file
        return Pins(**{k: known.get(k) for k in ("current", "label", "bot_branch", "base", "error", "dashboard")})
    texts = {}
    for path, sha in sorted(files.items()):
        text = remote.cache.blob(sha) if sha else None
        if text is None:
            text = _read_file(remote, repository, branch, path, where)
            if sha:
                remote.cache.put_blob(sha, text)
        texts[path] = text
    pins = _pins_of(texts)
    remote.cache.put_pin_result(digest, {"current": pins.current, "label": pins.label, "bot_branch": pins.bot_branch,
                                         "base": pins.base, "error": pins.error, "dashboard": pins.dashboard})
    return pins


def _read_file(remote: Remote, repository: str, branch: Optional[str], path: str, where: str) -> str:
    """The text of one file through the contents API (base64, GitHub REST docs "Get repository content");
    undecodable bytes are kept as surrogate escapes, so the engine refuses them as it would in a checkout."""
    from urllib.parse import quote

    got = remote.get(f"/repos/{repository}/contents/{quote(path, safe='/')}", {"ref": branch} if branch else None,
                     what=f"read {path} of {where}", remember=False,
                     keep=lambda d: {"encoding": d.get("encoding"), "content": d.get("content")}
                     if isinstance(d, dict) else {})
    if got is MISSING or got.get("encoding") != "base64" or not isinstance(got.get("content"), str):
        raise PlatformError(f"cannot read {path} of {where}: the contents API gave no file content "
                            "(moved while the plan ran, or over 1 MB)")
    try:
        return base64.b64decode(got["content"]).decode("utf-8", "surrogateescape")
    except ValueError:
        raise PlatformError(f"cannot read {path} of {where}: undecodable base64") from None


def _pins_of(texts: dict) -> Pins:
    """Write ``texts`` into a scratch folder and read them as ``check`` reads a checkout."""
    from bot import engine
    from bot.config import load_config

    with tempfile.TemporaryDirectory(prefix="epb-fleet-") as tmp:
        root = Path(tmp)
        for path, text in texts.items():
            if not plain_path(path):     # pin_files keeps none such; never write outside the scratch folder
                return Pins(error=f"{path!r}: not a plain path inside the repository")
            dest = root / path
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(text.encode("utf-8", "surrogateescape"))
        try:
            config = load_config(root)
            current, label = engine.current_pins(engine.read_template(root))
        except BotError as exc:
            return Pins(error=str(exc).replace(str(root) + "/", "").replace(str(root), "."))
    return Pins(current=str(current), label=label, bot_branch=config.branch, base=config.base,
                dashboard=bool(config.dashboard))
