"""Checks on PEP 508 requirement text made before :mod:`packaging` sees it.

Why: ``packaging`` changed what it accepts between releases.  ``name ===``
(an operator with no version) parsed under packaging 25.x (a specifier
``===`` with an empty version) and raises ``InvalidRequirement`` under 26.x;
``name ==`` / ``name >=`` raise under both.  The bot must give the same
answer whatever packaging is installed, so an operator without a version is
detected here, by us, and every caller (upstream pin files, the template's
requirement files and pyproject strings) turns it into the same result.
"""

from __future__ import annotations

import re
from typing import Optional

# name, optional extras, then the specifier (PEP 508 "name_req"); a URL requirement has "@".
# linear: each run of white space is matched by one quantifier (``\s*(X)?\s*`` is quadratic without X)
_HEAD = re.compile(r"\s*[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?\s*(?:\[[^\]]*\]\s*)?")
_BARE_OPERATOR = re.compile(r"(===|==|~=|!=|<=|>=|<|>)\s*")


def empty_operator(text: str) -> Optional[str]:
    """The first version operator of a requirement that has no version after it, else None.

    ``"ethos-u-vela ==="`` -> ``"==="``; ``"torch >=2.1, <"`` -> ``"<"``;
    ``"torch (==)"`` -> ``"=="``; ``"torch==2.1"``, ``"torch"``, ``"x @ URL"`` -> None.
    Only the specifier part is looked at (before ``;`` markers).  Text that is
    not a requirement at all gives None (the caller's parser judges it).
    """
    head = _HEAD.match(text)
    if head is None:
        return None
    spec = text[head.end():].split(";", 1)[0].strip()
    if spec.startswith("@"):
        return None
    if spec.startswith("("):
        spec = spec[1:].rstrip().rstrip(")")
    for clause in spec.split(","):
        m = _BARE_OPERATOR.fullmatch(clause.strip())
        if m:
            return m.group(1)
    return None


def empty_operator_problem(text: str) -> Optional[str]:
    """A one-line reason when ``text`` has an operator with no version (see :func:`empty_operator`), else None."""
    op = empty_operator(text)
    if op is None:
        return None
    return f"the operator {op} has no version ({text.strip()!r})"


def specifier_empty_operator(spec: str) -> Optional[str]:
    """:func:`empty_operator` for a bare specifier (``">=3.10,<"``, a Poetry ``"==="``) rather than a requirement."""
    return empty_operator("x " + spec)
