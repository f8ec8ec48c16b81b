"""The release workflow's steps that are more than one command (.github/workflows/release.yml); stdlib only, so
it runs before anything is installed.

    python .github/release/release.py check vX.Y.Z            # the tag is pyproject.toml's version, CHANGELOG has it
    python .github/release/release.py notes vX.Y.Z NOTES.md   # CHANGELOG.md's section for X.Y.Z, as the notes
    python .github/release/release.py publish vX.Y.Z NOTES.md dist/*   # the GitHub release with its assets
    python .github/release/release.py move-major vX.Y.Z SHA   # the moving major tag vX at the release's commit

Facts used: a release tag is ``vMAJOR.MINOR.PATCH`` (docs/releasing.md); CHANGELOG.md follows Keep a Changelog
1.1.0 (a version's section starts ``## [X.Y.Z]`` and ends at the next ``## ``); GitHub's REST API creates a
release with ``POST /repos/{owner}/{repo}/releases`` (tag_name, name, body) and uploads an asset with ``POST``
to the release's ``upload_url`` (``?name=``, the file as the body); both take the token as
``Authorization: Bearer``.  Exit 0 done, 2 bad input (the file and line named), 3 GitHub failed.
"""

from __future__ import annotations

import json
import os
import re
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TAG = re.compile(r"v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)")


class BadInput(Exception):
    """A tag, pyproject.toml or CHANGELOG.md that does not allow the release (exit 2)."""


def version_of(tag: str) -> str:
    """``vX.Y.Z`` -> ``X.Y.Z``; anything else is :class:`BadInput`."""
    if not TAG.fullmatch(tag):
        raise BadInput(f"tag {tag!r}: a release tag is vMAJOR.MINOR.PATCH (docs/releasing.md)")
    return tag[1:]


def _read(path: Path) -> str:
    """A file's UTF-8 text; :class:`BadInput` naming it when it is missing, a folder or not UTF-8."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"{path.name}: cannot read it ({getattr(exc, 'strerror', None) or exc})") from None


def pyproject_version(root: Path = ROOT) -> str:
    """The ``version = "..."`` of pyproject.toml's ``[project]`` table; :class:`BadInput` when there is none (a
    ``dynamic`` version included: the release checks the tag against a written one)."""
    import tomllib
    try:
        doc = tomllib.loads(_read(root / "pyproject.toml"))
    except tomllib.TOMLDecodeError as exc:
        raise BadInput(f"pyproject.toml: not valid TOML ({exc})") from None
    project = doc.get("project")
    version = project.get("version") if isinstance(project, dict) else None
    if not isinstance(version, str):
        raise BadInput("pyproject.toml: no [project] version string to check the tag against")
    return version


def notes(version: str, root: Path = ROOT) -> str:
    """CHANGELOG.md's section for ``version`` without its heading, stripped; :class:`BadInput` when there is none
    or it is empty."""
    lines = _read(root / "CHANGELOG.md").splitlines()
    head = re.compile(rf"^## \[{re.escape(version)}\](\s|$)")
    start = next((i for i, ln in enumerate(lines) if head.match(ln)), None)
    if start is None:
        raise BadInput(f"CHANGELOG.md: no section '## [{version}]' (move the Unreleased entries under it)")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    body = "\n".join(lines[start + 1:end]).strip()
    if not body:
        raise BadInput(f"CHANGELOG.md:{start + 1}: the section '## [{version}]' is empty")
    return body + "\n"


def check(tag: str, root: Path = ROOT) -> None:
    """The tag names pyproject.toml's version and CHANGELOG.md has a section for it."""
    version = version_of(tag)
    declared = pyproject_version(root)
    if declared != version:
        raise BadInput(f"pyproject.toml: version is {declared!r}, the tag {tag} says {version!r}")
    notes(version, root)


def _request(method: str, url: str, token: str, data: bytes, content_type: str) -> dict:
    req = urllib.request.Request(url, data=data, method=method, headers={
        "Authorization": f"Bearer {token}", "Accept": "application/vnd.github+json",
        "X-GitHub-Api-Version": "2022-11-28", "Content-Type": content_type})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read() or b"{}")


def publish(tag: str, notes_file: Path, assets: list[Path], *, repo: str, api: str, token: str) -> str:
    """Create the release of ``tag`` with ``notes_file`` as its body and upload each asset; returns its html_url.
    Every file is read before the first request (:class:`BadInput` naming one that cannot be), so a missing asset
    never leaves a release without its assets."""
    body = _read(notes_file)
    contents = []
    for path in assets:
        try:
            contents.append((path, path.read_bytes()))
        except OSError as exc:
            raise BadInput(f"{path}: cannot read the asset ({exc.strerror or exc})") from None
    rel = _request("POST", f"{api}/repos/{repo}/releases", token,
                   json.dumps({"tag_name": tag, "name": f"executorch-pack-bot {version_of(tag)}", "body": body,
                               "draft": False, "prerelease": False}).encode(), "application/json")
    upload = rel["upload_url"].split("{", 1)[0]
    for path, data in contents:
        _request("POST", f"{upload}?{urllib.parse.urlencode({'name': path.name})}", token, data,
                 "application/octet-stream")
    return rel["html_url"]


def move_major(tag: str, sha: str, *, repo: str, api: str, token: str) -> str:
    """Point the moving major tag ``vX`` of ``tag`` at commit ``sha``: ``PATCH /repos/{owner}/{repo}/git/refs/
    tags/vX`` (force), or ``POST .../git/refs`` when it does not exist yet (404).  Returns ``vX``."""
    major = "v" + version_of(tag).split(".")[0]
    try:
        _request("PATCH", f"{api}/repos/{repo}/git/refs/tags/{major}", token,
                 json.dumps({"sha": sha, "force": True}).encode(), "application/json")
    except urllib.error.HTTPError as exc:
        if exc.code not in (404, 422):
            raise
        _request("POST", f"{api}/repos/{repo}/git/refs", token,
                 json.dumps({"ref": f"refs/tags/{major}", "sha": sha}).encode(), "application/json")
    return major


def _github() -> dict:
    """The repository, API URL and token of the workflow's environment; :class:`BadInput` naming what is missing."""
    missing = [k for k in ("GITHUB_REPOSITORY", "GITHUB_TOKEN") if not os.environ.get(k)]
    if missing:
        raise BadInput(f"{' and '.join(missing)} not set (the release workflow's environment sets them)")
    api = os.environ.get("GITHUB_API_URL", "https://api.github.com")
    if urllib.parse.urlsplit(api).scheme not in ("http", "https"):
        raise BadInput(f"GITHUB_API_URL {api!r} is not an http(s) URL")
    return {"repo": os.environ["GITHUB_REPOSITORY"], "api": api, "token": os.environ["GITHUB_TOKEN"]}


def main(argv: list[str]) -> int:
    try:
        if len(argv) == 2 and argv[0] == "check":
            check(argv[1])
        elif len(argv) == 3 and argv[0] == "notes":
            text = notes(version_of(argv[1]))
            try:
                Path(argv[2]).write_text(text, encoding="utf-8")
            except OSError as exc:
                raise BadInput(f"{argv[2]}: cannot write the notes ({exc.strerror or exc})") from None
        elif len(argv) >= 4 and argv[0] == "publish":
            url = publish(argv[1], Path(argv[2]), [Path(a) for a in argv[3:]], **_github())
            print(f"released: {url}")
        elif len(argv) == 3 and argv[0] == "move-major":
            major = move_major(argv[1], argv[2], **_github())
            print(f"{major} -> {argv[2]}")
        else:
            print(__doc__.split("\n\n")[1], file=sys.stderr)
            return 2
    except BadInput as exc:
        print(f"release: error: {exc}", file=sys.stderr)
        return 2
    except (urllib.error.URLError, OSError) as exc:
        print(f"release: error: GitHub: {exc}", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
