"""What a hardware test of the bump needs: the boards the template targets and the numbers its docs quote.

- Boards: the ``target-types`` of every ``*.csolution.yml`` (CMSIS-Toolbox
  "csolution project format": each entry has ``type`` and a ``board`` and/or
  ``device``).
- Measured numbers: lines of the template's Markdown/text docs that quote a
  measurement (cycle counts, fps, inferences per second, latency in ms/us, a
  CRC or checksum), and the rows of a Markdown table whose header names such a
  measurement (``| model | fps | notes |``: the row ``| ResNet-8 | 61 | |``
  quotes 61 fps).  A line that only describes what a run prints ("prints
  the cycle count of 1 inference") quotes no measured value and is left
  out, unless it also holds a number with its unit.  Numbers measured before a bump were measured with the
  old ExecuTorch and Vela; a line naming the old version says so outright.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

MAX_FILE_BYTES = 1 << 20
MAX_DOC_FILES = 2000
_SKIP = {".git", "node_modules", ".venv", "venv", "__pycache__", "build", "out", "tmp"}
_DOCS = (".md", ".markdown", ".rst", ".txt")
# A number next to a measurement word (either order); the words anchor the match, so the scan stays linear.
_MEASURE = re.compile(r"(?i)\b(?:\d[\d,.]*\s*(?:k|m)?\s*(?:cycles|fps|inf(?:erences)?/s|ms|µs|us)\b"
                      r"|(?:cycles|fps|crc(?:32)?|checksum)\b[^\n]{0,40}?(?:0x[0-9a-f]+|\d))")
# A number with its unit ("61 fps", "12,345 cycles"): a value, wherever it stands.
_VALUE = re.compile(r"(?i)\b\d[\d,.]*\s*(?:k|m)?\s*(?:cycles|fps|inf(?:erences)?/s|ms|µs|us)\b")
# A line that describes what a run prints ("the application prints the cycle count of 1 inference", "reports the
# CRC32 of each of the 3 outputs"): a measurement word with a number after it there is no measured value.
_DESCRIBES_OUTPUT = re.compile(r"(?i)\b(?:prints?|printed|printing|outputs|shows?|displays?|logs|reports?)\b"
                               r"[^\n]{0,60}?\b(?:cycles?|fps|crc(?:32)?|checksum)\b")
# A table header cell naming a measurement, and a table's header/body separator row (GitHub Flavored Markdown).
_MEASURE_HEADER = re.compile(r"(?i)\b(?:cycles|fps|inf(?:erences)?/s|latency|crc(?:32)?|checksum|ms|µs|us)\b")
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$")
_TABLE_ROW = re.compile(r"^\s*\|")
_NUMBER_CELL = re.compile(r"\d[\d.,]*")


@dataclass(frozen=True)
class Board:
    """One csolution target type: ``type`` name, ``board`` and ``device`` (None when not stated), the file and line."""

    type: str
    board: Optional[str]
    device: Optional[str]
    path: str
    line: int


@dataclass(frozen=True)
class Measurement:
    """A doc line quoting a measured number: ``path``, ``line``, the line's ``text``, ``old`` (it names the old version)."""

    path: str
    line: int
    text: str
    old: bool


def _walk(repo: Path, suffixes: tuple[str, ...], limit: int):
    count = 0
    for dirpath, dirnames, filenames in os.walk(repo):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP and not d.startswith("."))
        for name in sorted(filenames):
            if name.lower().endswith(suffixes):
                p = Path(dirpath) / name
                if p.is_symlink() or not p.is_file():
                    continue
                count += 1
                if count > limit:
                    return
                yield p


def _text(p: Path) -> Optional[str]:
    try:
        with open(p, "rb") as fh:
            raw = fh.read(MAX_FILE_BYTES + 1)
        return raw.decode("utf-8-sig") if len(raw) <= MAX_FILE_BYTES else None
    except (OSError, UnicodeDecodeError):
        return None


def boards(repo: Path) -> list[Board]:
    """Every ``target-types`` entry of the ``*.csolution.yml`` files under ``repo`` (unreadable files skipped)."""
    import yaml

    out = []
    for p in _walk(Path(repo), (".csolution.yml", ".csolution.yaml"), 200):
        text = _text(p)
        if text is None:
            continue
        try:
            root = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        except (yaml.YAMLError, RecursionError):
            continue
        rel = p.relative_to(repo).as_posix()
        from bot.yamlnodes import mappings
        for m in mappings(root):
            for k, v in m.value:
                if not (isinstance(k, yaml.ScalarNode) and k.value == "target-types"
                        and isinstance(v, yaml.SequenceNode)):
                    continue
                for item in v.value:
                    if not isinstance(item, yaml.MappingNode):
                        continue
                    f = {ik.value: iv.value for ik, iv in item.value
                         if isinstance(ik, yaml.ScalarNode) and isinstance(iv, yaml.ScalarNode)}
                    if f.get("type"):
                        out.append(Board(f["type"], f.get("board"), f.get("device"), rel,
                                         item.start_mark.line + 1))
    return sorted(set(out), key=lambda b: (b.path, b.line))


def measurements(repo: Path, old_versions: tuple[str, ...] = ()) -> list[Measurement]:
    """Doc lines quoting a measured number (see the module docstring), in path/line order.

    ``old_versions``: the versions before the bump (ExecuTorch, Vela); a line
    naming one of them is marked ``old``.
    """
    olds = [v for v in old_versions if v]
    old_rx = re.compile(r"(?<![\w.])(?:" + "|".join(re.escape(v) for v in olds) + r")(?![\w]|\.\d)") if olds else None
    out = []
    for p in _walk(Path(repo), _DOCS, MAX_DOC_FILES):
        text = _text(p)
        if text is None:
            continue
        rel = p.relative_to(repo).as_posix()
        lines = text.splitlines()
        measured_table = False   # inside the body of a table whose header names a measurement
        for no, line in enumerate(lines, 1):
            if len(line) > 2000:
                continue
            if _TABLE_ROW.match(line) and no < len(lines) and _TABLE_SEP.match(lines[no]) and "-" in lines[no]:
                measured_table = bool(_MEASURE_HEADER.search(line))   # a header row
                continue
            if not _TABLE_ROW.match(line):
                measured_table = False
            in_table = measured_table and any(_NUMBER_CELL.fullmatch(c.strip()) for c in line.split("|")[1:-1])
            quoted = _MEASURE.search(line) and (_VALUE.search(line) or not _DESCRIBES_OUTPUT.search(line))
            if in_table or quoted:
                out.append(Measurement(rel, no, line.strip(), bool(old_rx and old_rx.search(line))))
    return out
