"""The cbuild-pack lock file: the resolved ``PyTorch::ExecuTorch`` pack and the pins that selected it.

Facts (CMSIS-Toolbox docs/YML-CBuild-Format.md, "Lock Pack Versions"): ``cbuild setup`` writes
``*.cbuild-pack.yml`` with ``cbuild-pack: resolved-packs:`` items, each a
``resolved-pack: VENDOR::NAME@VERSION`` and a ``selected-by-pack:`` list of
the pin expressions that chose it (older CMSIS-Toolbox versions wrote
``selected-by:``; whichever key the file has is kept, since only the values
change).  ``create_ai_layer.py`` reads the ExecuTorch version from here.

The item whose ``resolved-pack`` is ``PyTorch::ExecuTorch@X`` gets the new
pack version, and so does every exact ``PyTorch::ExecuTorch@X`` entry of its
``selected-by-pack``/``selected-by`` list; a range entry there is flagged
(blocking).  Other resolved packs stay byte-identical.  Locating and checking
spans uses the YAML helpers of :mod:`bot.template.cmsis`.
"""

from __future__ import annotations

from bot.model import Bump, Edit, Finding, ManagerResult
from bot.template.cmsis import (PACK, YamlPath, check_yaml, load, locate, miscased_ids, pin_edits,
                                refuse_unread_references)
from bot.template.interface import Manager
from bot.textfile import TextDocument

_SELECTED_BY = ("selected-by-pack", "selected-by")


def _is_lock_position(path: YamlPath) -> bool:
    """``...resolved-packs[i].resolved-pack`` or ``...resolved-packs[i].selected-by(-pack)[j]``."""
    if len(path) >= 3 and path[-1] == "resolved-pack" and isinstance(path[-2], int) \
            and path[-3] == "resolved-packs":
        return True
    return (len(path) >= 4 and isinstance(path[-1], int) and path[-2] in _SELECTED_BY
            and isinstance(path[-3], int) and path[-4] == "resolved-packs")


class LockfileManager(Manager):
    """The ExecuTorch entries of ``*.cbuild-pack.yml`` / ``*.cbuild-pack.yaml``.

    ``extract`` gives one Finding (kind ``"lock"``) per ExecuTorch
    ``resolved-pack`` and ``selected-by(-pack)`` entry; ``update`` moves exact
    ones to ``bump.new_pack`` (Edit kind ``"lock"``, old/new only the version
    text), flags ranges (blocking ``range-pin``) and versions other than
    ``bump.old_pack`` (non-blocking ``pin-was-different``).  Raises
    :class:`~bot.template.interface.ManagerError` for invalid YAML (file and
    line) or an unsupported layout.
    """

    name = "lockfile"
    patterns = ("*.cbuild-pack.yml", "*.cbuild-pack.yaml")

    def _values(self, doc: TextDocument):
        node, data = load(doc)
        values = locate(doc, node, data, _is_lock_position)
        refuse_unread_references(doc, node, values)
        return values

    def extract(self, doc: TextDocument) -> list[Finding]:
        """Lock entries (kind ``"lock"``) and mis-cased pack IDs (kind ``"pack-id-case"``)."""
        node, _ = load(doc)
        return [Finding(path=doc.path, line=v.line, kind="lock", name=PACK, version=v.version,
                        exact=v.exact or v.version is None, text=v.value) for v in self._values(doc)] \
            + miscased_ids(doc, node, _is_lock_position)

    def update(self, doc: TextDocument, bump: Bump) -> ManagerResult:
        values = self._values(doc)
        resolved = pin_edits(doc, [v for v in values if v.path[-1] == "resolved-pack"], bump,
                             kind="lock", why=f"{PACK} resolved pack (lock file)",
                             what="resolved pack")
        selected = pin_edits(doc, [v for v in values if v.path[-1] != "resolved-pack"], bump,
                             kind="lock", why=f"{PACK} selected-by entry (lock file)",
                             what="selected-by entry")
        edits = sorted(resolved.edits + selected.edits, key=lambda e: e.start)
        flags = sorted(resolved.flags + selected.flags, key=lambda f: f.line or 0)
        return ManagerResult(edits=tuple(edits), flags=tuple(flags))

    def check(self, before: TextDocument, after: TextDocument, edits: list[Edit]) -> None:
        check_yaml(before, after, edits, _is_lock_position)
