"""Comparing a template's pin with upstream's when the template's carries a PEP 440 local label.

A template can pin a local build of a wheel, ``torch==2.14.0+cpu`` (the CPU
wheels of download.pytorch.org/whl/cpu carry ``+cpu``); upstream pins the
release, ``torch==2.14.0``.  The bump keeps the label on the edit
(:func:`bot.template.requirements.new_version_text`), and every comparison
of the template's value with upstream's must then ignore it: PEP 440 sorts
``2.14.0+cpu`` *after* ``2.14.0`` and calls them different ("Local version
identifiers", PEP 440: a local label is for builds of the same release), so a
plain ``Version`` comparison reports a line that is right as a downgrade or a
change.  These helpers compare the public parts (``Version.public``).
"""

from __future__ import annotations

from typing import Optional

from packaging.version import InvalidVersion, Version


def public_version(text: Optional[str]) -> Optional[Version]:
    """The PEP 440 version of ``text`` without its local label, or None when ``text`` is not a version.

    ``"2.14.0+cpu"`` -> ``Version("2.14.0")``; ``"2.14.0"`` -> ``Version("2.14.0")``;
    ``"1.0.0rc1+cu126"`` -> ``Version("1.0.0rc1")``; ``"main"``, ``""``, ``None`` -> None.
    """
    try:
        return Version(Version(text or "").public)
    except InvalidVersion:
        return None


def same_release(a: Optional[str], b: Optional[str]) -> bool:
    """True when ``a`` and ``b`` name the same release, local labels ignored.

    ``("2.14.0+cpu", "2.14.0")`` -> True; ``("2.14", "2.14.0")`` -> True (PEP 440);
    ``("2.14.0+cpu", "2.13.0")`` -> False.  Text that is not a version is
    compared as text (``("main", "main")`` -> True); None equals only None.
    """
    va, vb = public_version(a), public_version(b)
    if va is None or vb is None:
        return a == b
    return va == vb


def older_release(new: Optional[str], have: Optional[str]) -> bool:
    """True when ``new`` is an older release than ``have``, local labels ignored; False when either is not a version.

    ``("2.13.0", "2.14.0+cpu")`` -> True; ``("2.14.0", "2.14.0+cpu")`` -> False;
    ``("2.14.0+cpu", "2.14.0")`` -> False; ``("4.0.0", "4.1.0")`` -> True.
    """
    vn, vh = public_version(new), public_version(have)
    return vn is not None and vh is not None and vn < vh
