"""Byte-faithful text documents and all-or-nothing writes.

A template file is read as bytes and decoded as UTF-8 without touching line
endings (CRLF stays CRLF, a lone final line without newline stays so); a
UTF-8 BOM is remembered and written back.  Edits are span replacements on the
decoded text, so every byte outside the replaced spans is preserved.

:func:`write_all` stages every new content next to its file, then renames
each into place; if anything fails before the renames, nothing is changed,
and a failed rename rolls the already-renamed files back from the originals
held in memory.
"""

from __future__ import annotations

import bisect
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

from bot.errors import TemplateError
from bot.model import Edit

BOM = b"\xef\xbb\xbf"
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass
class TextDocument:
    """A decoded UTF-8 text file of the template.

    Attributes:
        path: repository-relative POSIX path (used in every message).
        text: decoded text, BOM removed, line endings untouched.
        bom: whether the file started with a UTF-8 BOM.
        raw: the original bytes.
    """

    path: str
    text: str
    bom: bool = False
    raw: bytes = b""
    _line_starts: list = field(default=None, repr=False)

    @classmethod
    def from_bytes(cls, path: str, raw: bytes) -> "TextDocument":
        """Decode ``raw`` as UTF-8 (optional BOM).

        Raises :class:`TemplateError` naming the file, the line and the byte
        offset of the first byte that is not UTF-8.
        """
        bom = raw.startswith(BOM)
        body = raw[3:] if bom else raw
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = body.count(b"\n", 0, exc.start) + 1
            raise TemplateError(
                f"not UTF-8 text (byte 0x{body[exc.start]:02x} at offset {exc.start}); "
                "convert the file to UTF-8 before running the bot",
                path=path, line=line) from None
        return cls(path=path, text=text, bom=bom, raw=raw)

    @classmethod
    def load(cls, root: Path, relpath: str) -> "TextDocument":
        """Read ``root/relpath``; errors name ``relpath``."""
        try:
            raw = (Path(root) / relpath).read_bytes()
        except OSError as exc:
            raise TemplateError(f"cannot read: {exc.strerror}", path=relpath) from None
        return cls.from_bytes(relpath, raw)

    def line_of(self, offset: int) -> int:
        """1-based line number of a character offset into ``text``.

        A line ends at ``\\n``, ``\\r\\n`` or a lone ``\\r`` (classic Mac line
        endings, which pip and PyYAML read as line breaks too).
        """
        if self._line_starts is None:
            starts = [0]
            t = self.text
            i = t.find("\n")
            while i != -1:
                starts.append(i + 1)
                i = t.find("\n", i + 1)
            if "\r" in t:
                starts = [0] + [m.end() for m in _LINE_BREAK.finditer(t)]
            self._line_starts = starts
        return bisect.bisect_right(self._line_starts, offset)

    def lines(self) -> list[tuple[int, int, str]]:
        """``[(line_number, start_offset, line_text_without_eol), ...]`` for every line."""
        out = []
        pos = 0
        for n, chunk in enumerate(self.text.splitlines(keepends=True), start=1):
            body = chunk.rstrip("\r\n")
            out.append((n, pos, body))
            pos += len(chunk)
        return out

    def apply(self, edits: Sequence[Edit]) -> bytes:
        """Return the new bytes with ``edits`` applied (BOM kept).

        Raises :class:`TemplateError` if two edits overlap or an edit's
        ``old`` text is not at its span (the file changed since planning).
        """
        text = self.text
        ordered = sorted(edits, key=lambda e: (e.start, e.end))
        for a, b in zip(ordered, ordered[1:]):
            if b.start < a.end:
                raise TemplateError(f"two planned edits overlap ({a.why!r} and {b.why!r})",
                                    path=self.path, line=a.line)
        parts = []
        pos = 0
        for e in ordered:
            if text[e.start:e.end] != e.old:
                raise TemplateError(f"expected {e.old!r} here, found {text[e.start:e.end]!r}",
                                    path=self.path, line=e.line)
            parts.append(text[pos:e.start])
            parts.append(e.new)
            pos = e.end
        parts.append(text[pos:])
        data = "".join(parts).encode("utf-8")
        return (BOM + data) if self.bom else data


def write_all(root: Path, contents: dict[str, bytes]) -> None:
    """Replace several files under ``root`` all-or-nothing.

    ``contents`` maps repository-relative paths to new bytes.  Each file's
    permission bits are kept.  Before anything is replaced, every target is
    checked to be a regular, writable file inside ``root`` (a symlink, or a
    path leaving ``root``, raises :class:`TemplateError`), and every new
    content is written to a temporary file in the same directory.  Then the
    temporary files are renamed over the targets; if a rename fails, the
    targets already replaced get their original bytes back.
    """
    root = Path(root).resolve()
    staged: list[tuple[Path, Path, bytes]] = []  # (target, tmp, original bytes)
    try:
        for rel, data in sorted(contents.items()):
            target = root / rel
            if target.is_symlink():
                raise TemplateError("is a symbolic link; the bot never writes through links", path=rel)
            real = target.resolve()
            if root not in real.parents:
                raise TemplateError("resolves outside the repository; refusing to write", path=rel)
            mode = stat.S_IMODE(real.stat().st_mode)
            # The owner write bit is checked as well as access(): root may write
            # anything, but a file its owner marked read-only is not ours to change.
            if not mode & stat.S_IWUSR or not os.access(real, os.W_OK) or not os.access(real.parent, os.W_OK):
                raise TemplateError("is read-only; make it writable or leave it out of the bump", path=rel)
            original = real.read_bytes()
            import tempfile  # only when writing: a dry run never loads it

            fd, tmp = tempfile.mkstemp(prefix=".epb-", dir=str(real.parent))
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data)
                os.chmod(tmp, mode)
            except BaseException:
                os.unlink(tmp)
                raise
            staged.append((real, Path(tmp), original))
    except OSError as exc:
        _discard(staged)
        raise TemplateError(f"cannot stage the new content: {exc.strerror}",
                            path=getattr(exc, "filename", None)) from None
    except BaseException:
        _discard(staged)
        raise
    done: list[tuple[Path, bytes]] = []
    try:
        for target, tmp, original in staged:
            os.replace(tmp, target)
            done.append((target, original))
    except OSError as exc:
        for target, original in done:
            target.write_bytes(original)
        _discard([s for s in staged if s[0] not in {d[0] for d in done}])
        raise TemplateError(f"cannot replace the file: {exc.strerror}; nothing was changed",
                            path=str(exc.filename)) from None


def _discard(staged: Iterable[tuple[Path, Path, bytes]]) -> None:
    for _, tmp, _ in staged:
        try:
            tmp.unlink()
        except OSError:
            pass
