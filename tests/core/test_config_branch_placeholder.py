"""``branch:`` names its one placeholder ``{version}``; a refusal names what was written, at its line."""

from __future__ import annotations

import pytest

from bot.config import load_config
from bot.errors import UsageError

HINT = "is not a placeholder; the only one is {version}, e.g. bot/executorch-{version}"


@pytest.mark.parametrize("value, shown", [
    ("bot/{{version}}", "a brace"),          # no other {...} is written: a brace too many
    ("bot/{version}-{{x}}", "{x}"),
    ("bot/{ver}", "{ver}"),
    ("bot/{version!r}", "{version!r}"),
    ("bot/{}", "{}"),
])
def test_a_refused_branch_names_what_was_written(tmp_path, value, shown):
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "executorch-pack-bot.yml").write_text(f"labels: [x]\nbranch: '{value}'\n")
    with pytest.raises(UsageError) as ei:
        load_config(tmp_path)
    assert str(ei.value) == f".github/executorch-pack-bot.yml:2: branch: {shown} in {value!r} {HINT}"


@pytest.mark.parametrize("value", ["bot/{version}", "{version}-bot", "bot/executorch"])
def test_a_branch_with_its_placeholder_or_none_is_kept(tmp_path, value):
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "executorch-pack-bot.yml").write_text(f"branch: '{value}'\n")
    assert load_config(tmp_path).branch == value
