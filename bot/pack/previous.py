"""The previous version's pack of a template: the baseline of the operator comparison in every PR.

Where it comes from, in this order:

1. the pack the template points at with a ``path:`` beside its
   ``PyTorch::ExecuTorch`` pin (a csolution or cproject item, public CMSIS ExecuTorch templates such as Arm-Examples/CMSIS-Executorch): an unpacked pack folder holding ``PyTorch.ExecuTorch.pdsc``,
   or a ``.pack`` file, relative to the YAML file's folder;
2. the release asset ``PyTorch.ExecuTorch.<V>.pack`` of the tag the template
   pins now (``v1.4.0`` for ``@1.4.0`` and for a local build ``@1.4.0-local``),
   downloaded with its sha256 checked (:mod:`bot.github.assets`);
3. none: the reason is kept as a note, and the PR body says so.

:func:`write_previous` records the answer in ``DEST/previous-pack.json``
(``{"pack": file name or null, "source": text, "note": text or null}``), the
file ``verify-pack --baseline DEST`` reads (:func:`read_previous`).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from bot.errors import BotError, PackError

RECORD = "previous-pack.json"
PDSC = "PyTorch.ExecuTorch.pdsc"


@dataclass(frozen=True)
class Previous:
    """The previous pack: ``path`` (a ``.pack`` file or an unpacked pack folder) and where it came from, or a note.

    Attributes:
        path: the pack, or None when there is none.
        source: ``"the template's path: ../packs/PyTorch.ExecuTorch.1.4.0"`` or
            ``"release asset PyTorch.ExecuTorch.1.4.0.pack of v1.4.0"``.
        note: why there is none (one sentence, for the PR body), when ``path`` is None.
    """

    path: Optional[Path]
    source: str = ""
    note: Optional[str] = None


def template_path_pack(repo: Path) -> Optional[tuple[Path, str]]:
    """``(pack, "the template's path: TEXT (FILE:LINE)")`` for the first ExecuTorch pin with a ``path:`` that exists.

    Only csolution/cproject/clayer files the bot reads (:mod:`bot.template.cmsis`) are
    looked at; a path that leaves the repository is still used (it is the
    user's own pack folder), but a path that does not exist is skipped.
    """
    import yaml

    from bot.template.cmsis import CmsisManager, _is_pack_position, _path_value, load, locate
    from bot.textfile import TextDocument

    repo = Path(repo)
    for pattern in CmsisManager.patterns:
        for f in sorted(repo.rglob(pattern)):
            if ".git" in f.parts:
                continue
            try:
                doc = TextDocument.from_bytes(f.relative_to(repo).as_posix(), f.read_bytes())
                node, data = load(doc)
                values = locate(doc, node, data, _is_pack_position)
            except (BotError, OSError, UnicodeDecodeError, yaml.YAMLError):
                continue
            for v in values:
                local = _path_value(node, v.path[:-1])
                if local is None or not isinstance(local.value, str):
                    continue
                p = (f.parent / local.value).resolve()
                if (p.is_dir() and (p / PDSC).is_file()) or (p.is_file() and p.suffix == ".pack"):
                    return p, f"the template's path: {local.value} ({doc.path}:{v.line})"
    return None


def previous_pack(repo: Path, source, dest: Path, *, token: Optional[str] = None) -> Previous:
    """Find the template's current pack (see the module docstring) and put a copy of it in ``dest``.

    ``source``: the upstream (:class:`~bot.github.source.GitHubSource` gives
    releases; any other source gives no release asset).  Raises the
    :class:`~bot.errors.TemplateError` of reading the template's pins; a
    download that fails becomes the note (the verification still runs).
    """
    from bot import engine
    from bot.versions import to_semver, version_to_tag

    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    found = template_path_pack(repo)
    if found is not None:
        p, where = found
        target = dest / p.name
        if p.is_dir():
            target.mkdir(exist_ok=True)
            shutil.copy2(p / PDSC, target / PDSC)   # the comparison reads only the PDSC
        else:
            shutil.copy2(p, target)
        return Previous(target, where)
    current, _label = engine.current_pins(engine.read_template(Path(repo)))
    tag, version = version_to_tag(current), to_semver(current)
    name = f"PyTorch.ExecuTorch.{version}.pack"
    release = source.release(tag) if hasattr(source, "release") else None
    if release is None:
        return Previous(None, note=f"no previous pack to compare operators with: {getattr(source, 'describe', str)()} "
                                   f"has no release {tag}, and the template points at no local pack with path:")
    asset = release.asset(name)
    if asset is None:
        return Previous(None, note=f"no previous pack to compare operators with: the release {tag} has no {name} "
                                   "asset, and the template points at no local pack with path:")
    from bot.github.assets import download_asset
    try:
        path = download_asset(asset, dest, token=token)
    except BotError as exc:
        return Previous(None, note=f"no previous pack to compare operators with: {name} of {tag} could not be "
                                   f"downloaded ({exc.message})")
    return Previous(path, f"release asset {name} of {tag}")


def write_previous(prev: Previous, dest: Path) -> Path:
    """Write ``DEST/previous-pack.json`` for ``verify-pack --baseline DEST``; returns its path."""
    record = {"pack": prev.path.name if prev.path else None, "source": prev.source, "note": prev.note}
    out = Path(dest) / RECORD
    out.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return out


def read_previous(folder: Path) -> Previous:
    """The :class:`Previous` recorded in ``FOLDER/previous-pack.json``.

    Raises :class:`PackError` (exit 2) naming the file when it is missing,
    not JSON of that shape, or names a pack that is not in the folder.
    """
    rec = Path(folder) / RECORD
    try:
        data = json.loads(rec.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PackError(f"--baseline: {folder} is a folder without {RECORD} (write it with previous-pack, or "
                        "give a .pack file or an unpacked pack folder)", path=str(rec)) from None
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise PackError(f"--baseline: cannot read: {exc}", path=str(rec)) from None
    if not isinstance(data, dict) or not isinstance(data.get("pack"), (str, type(None))):
        raise PackError("--baseline: not a previous-pack record", path=str(rec))
    if data["pack"] is None:
        return Previous(None, str(data.get("source") or ""), str(data.get("note") or "no previous pack"))
    name = data["pack"]
    p = Path(folder) / name
    if "/" in name or "\\" in name or name in ("", ".", "..") or not p.exists():
        raise PackError(f"--baseline: the recorded pack {name!r} is not in {folder}", path=str(rec))
    return Previous(p, str(data.get("source") or ""))
