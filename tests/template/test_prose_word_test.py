"""Whether a text names ExecuTorch is decided by ``"executorch" in text.lower()`` on a whole text: the same
answer as the pattern EXECUTORCH (re.IGNORECASE), checked on seeded random texts mixing letter cases,
look-alike letters of other scripts and the characters whose lower case is longer (``İ``)."""

from __future__ import annotations

import random

import pytest

from bot.template.prose.sentences import EXECUTORCH

PIECES = ["executorch", "EXECUTORCH", "ExecuTorch", "execu", "torch", "e", "x", "c", "u", "t", "o", "r", "h",
          "E", "X", "C", "U", "T", "O", "R", "H", "\u0130", "\u0131", "\u212a", "\u017f", "\u0435", "\u0441",
          "\u0445", "\u043e", "\u0440", "\u0443", "\u0442", "\u1e9e", "\u00df", "\ufb06", " ", "\n"]


@pytest.mark.parametrize("seed", range(4))
def test_lower_and_in_answers_as_the_pattern(seed):
    rnd = random.Random(seed)
    yes = 0
    for _ in range(3000):
        text = "".join(rnd.choice(PIECES) for _ in range(rnd.randrange(1, 12)))
        expected = EXECUTORCH.search(text) is not None
        assert ("executorch" in text.lower()) is expected, text
        yes += expected
    assert yes > 100
