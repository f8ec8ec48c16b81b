"""Prose manager: ExecuTorch version mentions in documentation and in comments.

What it reads (public CMSIS ExecuTorch templates such as Arm-Examples/CMSIS-Executorch, rows README / docs / pack maintenance
page / setup_venv / workflows): Markdown, reStructuredText and plain-text
files are prose as a whole, code blocks included (YAML and shell inside
Markdown are prose, not pins).  In every other handled file only the
*comments* are prose: YAML (``#`` comments outside any scalar; in
``.github/workflows`` also the shell comments of block-scalar ``run``
scripts), requirements files (whole-line and inline ``#`` comments),
Python (``#`` comments via :mod:`tokenize`; docstrings and strings are
code), shell scripts and Dockerfiles (``#`` at a word start, outside
quotes), Windows batch (``REM`` and ``::`` lines), CMake (``#`` and
``#[[...]]`` comments outside quoted arguments) and C/C++ sources and
headers (``//`` and ``/* */`` outside literals; vendored trees such as
``ai_layer/engine`` are never scanned).  A YAML or requirement
*value* is never edited here; the cmsis, lockfile, requirements and
scripts managers own those spans, so edits never overlap.

Which mentions move on a bump (the "current" version is ``bump.old_executorch``
or ``bump.old_pack``, compared as text after whole-version matching):

* strong forms, anywhere in prose: ``PyTorch::ExecuTorch@X`` (also ``@^X``,
  ``@~X``, ``@>=X``; the pack ID spelled exactly so, as CMSIS writes it), ``executorch==X`` (any case, with extras),
  ``PyTorch.ExecuTorch.X.pack``, the release URL
  ``executorch/releases/download/vX/`` (or ``/X/``, and ``releases/tag/``),
  source links ``executorch/tree|blob/vX``, and the word form
  "ExecuTorch X" / "ExecuTorch vX" / "ExecuTorch version X" (the word in
  any letter case, so ``executorch 1.4.0`` counts too), and a statement of
  the version in use, present tense: "ExecuTorch is X", "The ExecuTorch
  version is X", "ExecuTorch is pinned to vX", "ExecuTorch is currently X"
  ("ExecuTorch was X" is not one).  A sentence that restates the current
  version in several forms ("ExecuTorch is 1.4.0 (the pack
  ``PyTorch::ExecuTorch@1.4.0``, pip ``executorch==1.4.0``).") moves whole,
  every mention in it, unless a rule below makes it history or mixed;
* weak forms, only when the same or the previous paragraph (blank-line
  separated block) mentions ExecuTorch: a bare pack version ``@X`` / ``@^X``
  ("exact rather than a ``@^X`` range"), "the vX tag", "tag vX", git refs
  (``git checkout vX``, ``--branch vX``, ``-b vX``), ``X-local``
  (``--version X-local``, ``VERSION=X-local``) and ``release/MAJOR.MINOR``;
* major.minor forms ("ExecuTorch 1.4", ``release/1.4``) move only when the
  bump changes major.minor; otherwise they are still right and stay;
* restatements of the derived pins, for every package of ``bump.changes``
  other than executorch whose old value is known: ``torch==Y`` (pip form)
  under the paragraph rule above, and the word form "torch Y" / "PyTorch Y"
  only inside a sentence that mentions ExecuTorch.

What never moves: a version is matched whole (never inside ``0.5.1``,
``21.5.10`` or ``3.1.5-rc.1``), so other packs, tools and libraries stay
byte-identical.  A mention of another ExecuTorch version is history: it
stays and becomes a non-blocking ``history-mention`` flag.  A line that
reads as a measurement (a number with a unit such as fps, ms, cycles, KB,
MB, %, MHz, or the words measured/benchmark/results) is history even when
it names the current version: it is flagged, never edited.  So is a test
claim ("tested with", "verified on", "validated against"): nobody ran the
new versions.

History text is never rewritten:

* a file whose name says it is history (:func:`is_history_file`:
  ``CHANGELOG*``, ``CHANGES*``, ``HISTORY*``, ``NEWS*``, ``RELEASE*NOTES*``,
  any case, any extension) gets no edit at all: each of its mentions is a
  ``history-mention`` flag;
* a Markdown section whose heading holds a date (``### 2026-05: ExecuTorch
  1.4.0``, ``## v1.4.0 (2026-05-14)``) or names history (Changelog, History,
  Release notes, What changed, What's new, Changes; any case) is history down
  to the next heading of the same or a higher level, heading line included
  (:func:`history_sections`): its mentions are ``history-mention`` flags;
* a sentence (it may span lines; Markdown headings, list items, table rows and
  every code-block line start a new one; in other files a sentence stays
  inside its comment block) in which "ExecuTorch OLD" is the subject of a
  past-tense change verb ("ExecuTorch 1.4.0 changed the .pte format") is a
  version-change statement: history, one ``history-mention`` flag, no edit;
* a sentence that claims compatibility ("requires", "needs", "supports",
  "compatible", "works with") with another tool's named ``X.Y.Z``
  ("ExecuTorch 1.4.0 requires CMSIS-Toolbox 2.15.0") is mixed (below);
* a sentence that would be edited but also names another ExecuTorch version,
  holds a bare three-part version (``X.Y.Z``) the bump does not move (the
  ``1.5.0`` of "ExecuTorch 1.4.0 -> 1.5.0"; a version that names another
  tool, path or package, as in ``CMSIS-Toolbox 2.14.1``, ``PackChk 1.4.5``,
  ``release/3.1.5-rc.1``, ``flatbuffers==24.3.25``, does not count, and
  neither does ``X.Y`` such as ``Vela 5.1``: :func:`_bare_version`), or carries the old version as bare text
  outside every mention edited (the link text of ``[1.4.0 release
  notes](.../releases/tag/v1.4.0)``) is left as written: one non-blocking
  ``mixed-mention`` flag for the sentence says why;
* a mention is either edited or flagged, never both.

The package, by role: :mod:`~bot.template.prose.regions` (file kinds and
their comment regions), :mod:`~bot.template.prose.forms` (the mention
recognisers), :mod:`~bot.template.prose.history` (history files and
sections), :mod:`~bot.template.prose.sentences` (sentence rules) and
:mod:`~bot.template.prose.manager` (:class:`ProseManager`).
"""

from bot.template.prose.forms import FORM_WHY, GUARD, VER, Mention, find_mentions
from bot.template.prose.history import HISTORY_FILES, history_sections, is_history_file
from bot.template.prose.manager import ProseManager
from bot.template.prose.regions import comment_spans, file_kind, is_workflow, prose_regions

__all__ = ["FORM_WHY", "GUARD", "HISTORY_FILES", "VER", "Mention", "ProseManager", "comment_spans",
           "file_kind", "find_mentions", "history_sections", "is_history_file", "is_workflow", "prose_regions"]
