"""The user's ``--set NAME=VERSION`` pins, parsed for :func:`bot.engine.plan`."""

from __future__ import annotations

from packaging.version import InvalidVersion, Version

from bot.errors import UsageError
from bot.model import norm


def parse_sets(items: list[str]) -> dict[str, str]:
    """``["torchao=0.19.0"]`` -> ``{"torchao": "0.19.0"}`` (keys PEP 503 names).

    Raises :class:`UsageError` for an item that is not ``NAME=VERSION``, a value
    that is not a PEP 440 version, or one package given twice with different values.
    """
    out: dict[str, str] = {}
    for item in items or []:
        name, sep, version = item.partition("=")
        name, version = name.strip(), version.strip().lstrip("=")
        if not sep or not name or not version:
            raise UsageError(f"--set {item!r}: expected NAME=VERSION, e.g. --set torchao=0.19.0")
        try:
            Version(version)
        except InvalidVersion:
            raise UsageError(f"--set {item!r}: {version!r} is not a version") from None
        key = norm(name)
        if key in out and Version(out[key]) != Version(version):
            raise UsageError(f"--set {item!r}: {key} is given twice ({out[key]} and {version}); "
                             "give each package once")
        out[key] = version
    return out
