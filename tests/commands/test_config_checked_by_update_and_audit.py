"""``update`` and ``audit`` check every setting of the config file, as ``check`` and ``run`` do: a typo
or a bad value fails at once with the file and line (exit 2), and nothing is written."""

from __future__ import annotations

import pytest

from bot.cli import main
from bot.commands.demo import copy_template
from bot.sample import build_upstream_repo


@pytest.fixture(scope="module")
def upstream(tmp_path_factory):
    return build_upstream_repo(tmp_path_factory.mktemp("up") / "executorch.git")


def _snapshot(root):
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("text,line,message", [
    ("labels: [x]\nautomerge: yes-please\n", 2, "automerge: 'yes-please' is not one of off, on-approval"),
    ("brnach: bot/x\n", 1, "unknown setting 'brnach' (known: "),
    ("draft: auto\nbranch: bot/executorch-{ver}\n", 2, "branch: {ver} in 'bot/executorch-{ver}' is not a placeholder"),
])
@pytest.mark.parametrize("command", ["update", "audit"])
def test_a_bad_setting_fails_update_and_audit_with_its_line(tmp_path, upstream, capsys, command, text, line, message):
    tpl = copy_template(tmp_path / "template")
    (tpl / ".github").mkdir(exist_ok=True)
    (tpl / ".github" / "executorch-pack-bot.yml").write_text(text)
    before = _snapshot(tpl)
    argv = [command, "--repo", str(tpl)] + (["--upstream", str(upstream)] if command == "update" else [])
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2
    assert f".github/executorch-pack-bot.yml:{line}: {message}" in err
    assert _snapshot(tpl) == before


def test_the_readme_settings_pass_update_and_audit(tmp_path, upstream, capsys):
    tpl = copy_template(tmp_path / "template")
    (tpl / ".github").mkdir(exist_ok=True)
    (tpl / ".github" / "executorch-pack-bot.yml").write_text(
        "branch: bot/executorch-{version}\nlabels: [dependencies]\nautomerge: on-approval\ncommit: api\n")
    assert main(["audit", "--repo", str(tpl)]) == 0
    assert main(["update", "--repo", str(tpl), "--upstream", str(upstream), "--dry-run"]) == 0
