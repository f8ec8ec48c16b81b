"""A variable named after a tracked pin, whatever separates the parts of its name (make allows ``-`` and
``.`` in a variable name beside ``_``), and torch's conda name ``pytorch`` in a variable: its value is the
pin the bump moves, for review, never another thing's version (docs/mentions.md, "The buckets")."""

from __future__ import annotations

import pytest

from bot.engine.mentions import account
from bot.model import Flag
from helpers import SAMPLE_BUMP
from mentionkit import assert_accounting, template

REVIEW = ("names {s} {v} and the bot cannot tell whether it is this template's version, history or another "
          "thing's version; left as written: edit it by hand, or list it under ignore-mentions: in "
          ".github/executorch-pack-bot.yml with a reason: {t}")


@pytest.mark.parametrize("line, version, subject", [
    ("ETHOS-U-VELA_VERSION := 5.1.0", "5.1.0", "ethos-u-vela"),
    ("ETHOS-U-VELA := 5.1.0", "5.1.0", "ethos-u-vela"),
    ("ethos-u-vela_version = 5.1.0", "5.1.0", "ethos-u-vela"),
    ("ETHOS.U.VELA_VERSION ?= 5.1.0", "5.1.0", "ethos-u-vela"),
    ("TOSA-TOOLS_VERSION=2026.5.0", "2026.5.0", "tosa-tools"),
    ("PYTORCH_VERSION = 2.13.0", "2.13.0", "torch"),
])
def test_a_variable_naming_the_pin_with_any_separator_is_for_review(line, version, subject):
    acc = account(template(others={"build.mk": line + "\n"}), SAMPLE_BUMP, [], [])
    assert_accounting(acc, [("build.mk", 1, line.index(version) + 1, version, subject, "review", "review-mention",
                             line)],
                      flags=[Flag("review-mention", REVIEW.format(s=subject, v=version, t=line), path="build.mk",
                                  line=1, blocking=False)])


@pytest.mark.parametrize("line, version, subject, rule", [
    ("BSP-PACK_VERSION := 5.1.0", "5.1.0", "ethos-u-vela", "another variable (BSP-PACK_VERSION)"),
    ("ETHOS-U_VERSION := 5.1.0", "5.1.0", "ethos-u-vela", "another variable (ETHOS-U_VERSION)"),
    ("PYTORCH_VERSION = 0.18.0", "0.18.0", "torchao", "another variable (PYTORCH_VERSION)"),
])
def test_a_variable_naming_part_of_the_pin_or_another_thing_is_another_variable(line, version, subject, rule):
    acc = account(template(others={"build.mk": line + "\n"}), SAMPLE_BUMP, [], [])
    assert_accounting(acc, [("build.mk", 1, line.index(version) + 1, version, subject, "other", rule, line)])
