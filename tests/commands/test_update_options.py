"""``update`` options that can fail on their own: ``--plan-file`` that cannot be written, ``--set``
given twice.
"""

from __future__ import annotations

from helpers import assert_refused


def test_plan_file_that_cannot_be_written_changes_nothing(template, upstream_repo, capsys, tmp_path):
    """An unwritable --plan-file used to escape as an internal error after the template was written."""
    assert_refused(capsys, template, upstream_repo, "--plan-file", tmp_path / "missing" / "plan.json",
                   message=["plan.json"])


def test_same_set_given_twice_is_refused(template, upstream_repo, capsys):
    assert_refused(capsys, template, upstream_repo, "--set", "torch=2.15.0", "--set", "Torch=2.16.0",
                   message=["--set", "torch", "twice"])
