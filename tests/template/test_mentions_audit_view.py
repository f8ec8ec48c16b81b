"""The accounting as ``audit`` sees it (docs/mentions.md): a hypothetical bump to the next minor release that
moves the derived pins the template pins too, the managers asked what it would edit, the accounting named after
the pinned version, and a ``review-mention`` flag for every review line; and the summary line and JSON shape."""

from __future__ import annotations

from bot.engine.mentions import account, accounting_flags, audit_accounting, hypothetical_bump
from bot.errors import BotError
from bot.model import Bump, Edit, Finding, Flag, ManagerResult, PinChange
from helpers import minor_bump
from mentionkit import assert_accounting, template


def req(name, version, exact=True):
    return Finding("requirements.txt", 1, "requirement", name, version, exact=exact)


# -- the hypothetical bump -----------------------------------------------------------------------------------

def test_the_hypothetical_bump_goes_to_the_next_minor_and_moves_the_audited_pins_the_template_pins():
    tpl = template(findings=[req("torch", "2.13.0"), req("torch", "2.12.0"), req("torchao", "0.18.1"),
                             req("ethos-u-vela", "5"), req("tosa-tools", "2026.5"),
                             req("numpy", "1.26.0"), req("flatbuffers", "24.3.25")])
    assert hypothetical_bump(tpl, "1.4.2") == Bump(
        "1.4.2", "1.5.0", "1.4.2", "1.5.0", "v1.4.2", "v1.5.0",
        (PinChange("executorch", "1.4.2", "1.5.0", "audit"), PinChange("torch", "2.13.0", "2.14.0", "audit"),
         PinChange("torchao", "0.18.1", "0.19.0", "audit"), PinChange("ethos-u-vela", "5", "6", "audit"),
         PinChange("tosa-tools", "2026.5", "2026.6.0", "audit")),
        new_commit="0" * 40)   # a placeholder: a commit pin naming the pinned release is what a bump moves


def test_the_hypothetical_bump_leaves_out_a_pin_that_is_no_pep440_version():
    tpl = template(findings=[req("torch", "not-a-version"), req("torchao", "0.18.0")])
    assert hypothetical_bump(tpl, "1.4.0").changes == (PinChange("executorch", "1.4.0", "1.5.0", "audit"),
                                                       PinChange("torchao", "0.18.0", "0.19.0", "audit"))


def test_the_hypothetical_bump_of_a_pre_release_uses_its_semver_pack_form():
    assert hypothetical_bump(template(), "1.0.0rc1") == Bump(
        "1.0.0rc1", "1.1.0", "1.0.0-rc1", "1.1.0", "v1.0.0rc1", "v1.1.0",
        (PinChange("executorch", "1.0.0rc1", "1.1.0", "audit"),), new_commit="0" * 40)


# -- audit's accounting ---------------------------------------------------------------------------------------

class _Manager:
    """A manager that answers ``update`` with fixed edits and flags (or raises), recording the bump it got."""

    name = "pins"

    def __init__(self, result=None, error=None):
        self.result, self.error, self.bumps = result, error, []

    def update(self, doc, bump):
        self.bumps.append(bump)
        if self.error:
            raise self.error
        return self.result


def test_audit_asks_every_manager_keeps_version_free_flags_and_names_the_pinned_version():
    from bot.engine.read import Loaded, Template
    from bot.textfile import TextDocument
    a_text = "pin 1.4.0\nhist 1.4.0\nmix 1.4.0\nlabel 1.4.0\nold 1.3.0\n"
    moves = _Manager(ManagerResult(
        edits=(Edit("a.txt", 4, 9, "1.4.0", "1.5.0", 1, "pin", "the pin"),),
        flags=(Flag("history-mention", "h", path="a.txt", line=2, blocking=False),
               Flag("mixed-mention", "m", path="a.txt", line=3, blocking=False),
               Flag("leftover", "the placeholder target 1.5.0", path="a.txt", line=4, blocking=False))))
    refuses = _Manager(error=BotError("a hashed pin", path="b.txt", line=1))
    moves_b = _Manager(ManagerResult(edits=(Edit("b.txt", 4, 9, "1.4.0", "1.5.0", 1, "pin", "the pin"),)))
    tpl = Template(template().repo, files=[Loaded(TextDocument("a.txt", a_text), [moves]),
                                           Loaded(TextDocument("b.txt", "pin 1.4.0\n"), [refuses, moves_b])])
    given = Flag("conda-pin", "c", path="a.txt", line=4, blocking=False)
    acc = audit_accounting(tpl, "1.4.0", flags=(given,))
    assert [b.new_executorch for b in moves.bumps + refuses.bumps + moves_b.bumps] == ["1.5.0"] * 3
    review = ("names ExecuTorch {v} and the bot cannot tell whether it is this template's version, history or "
              "another thing's version; left as written: edit it by hand, or list it under ignore-mentions: in "
              ".github/executorch-pack-bot.yml with a reason: {t}")
    assert_accounting(acc, [
        ("a.txt", 1, 5, "1.4.0", "ExecuTorch", "moved", "the pin", "pin 1.4.0"),
        ("a.txt", 2, 6, "1.4.0", "ExecuTorch", "history", "history-mention", "hist 1.4.0"),
        ("a.txt", 3, 5, "1.4.0", "ExecuTorch", "review", "mixed-mention", "mix 1.4.0"),
        ("a.txt", 4, 7, "1.4.0", "ExecuTorch", "review", "conda-pin", "label 1.4.0"),  # leftover is not kept
        ("a.txt", 5, 5, "1.3.0", "ExecuTorch", "review", "review-mention", "old 1.3.0"),
        ("b.txt", 1, 5, "1.4.0", "ExecuTorch", "moved", "the pin", "pin 1.4.0"),  # the second manager's edit
    ], flags=[Flag("review-mention", review.format(v="1.3.0", t="old 1.3.0"), path="a.txt", line=5,
                   blocking=False)])
    assert acc.tracked == (("ExecuTorch", "1.4.0"), ("ExecuTorch", "1.4"), ("ExecuTorch", "earlier than 1.4.0 (1.x.y)"))


def test_audit_of_a_later_pinned_version_tracks_the_releases_before_it():
    acc = audit_accounting(template(others={"n.txt": "1.4.0 1.4.9 1.5.0\n"}), "1.5.0")
    assert [(o.version, o.bucket) for o in acc.items] == [("1.4.0", "review"), ("1.4.9", "review"),
                                                           ("1.5.0", "review")]
    assert acc.version == "1.5.0"


def test_accounting_flags_list_every_review_line_once_after_the_listed_ones():
    acc = account(template(others={"a.txt": "x 1.4.0 1.3.0\nlabel 1.4.0\n"}), minor_bump(), [],
                  [Flag("leftover", "l", path="a.txt", line=2, blocking=False),
                   Flag("mixed-mention", "m", path="a.txt", line=1, blocking=False)])
    assert acc.flags == []
    listed = (Flag("leftover", "l", path="a.txt", line=2, blocking=False),)
    assert accounting_flags(acc, listed) == [
        Flag("review-mention", "names ExecuTorch 1.4.0, left for review (mixed-mention): edit it by hand, or list it "
             "under ignore-mentions: in .github/executorch-pack-bot.yml with a reason: x 1.4.0 1.3.0",
             path="a.txt", line=1, blocking=False)]
    assert [(f.path, f.line) for f in accounting_flags(acc)] == [("a.txt", 1), ("a.txt", 2)]


def test_accounting_flags_keep_the_accountings_own_flags_first():
    acc = account(template(others={"a.txt": "label 1.4.0\nmix 1.4.0\n"}), minor_bump(), [],
                  [Flag("mixed-mention", "m", path="a.txt", line=2, blocking=False)])
    out = accounting_flags(acc)
    assert out[0] is acc.flags[0]
    assert [(f.code, f.path, f.line, f.blocking) for f in out] == [("review-mention", "a.txt", 1, False),
                                                                   ("review-mention", "a.txt", 2, False)]


# -- the summary and the JSON ---------------------------------------------------------------------------------

def test_the_summary_and_the_json_count_every_bucket():
    text = "pin 1.4.0\nnumpy==1.4.0\nlabel 1.4.0\nmeasured 1.4.0\n"
    acc = account(template(files={"a.txt": text}), minor_bump(),
                  [Edit("a.txt", 4, 9, "1.4.0", "1.5.1", 1, "pin", "the pin")], [])
    assert acc.summary() == "mentions of 1.4.0: 1 moved, 1 history, 1 other version, 1 for review"
    item = {"path": "a.txt", "line": 3, "column": 7, "version": "1.4.0", "subject": "ExecuTorch", "bucket": "review",
            "rule": "review-mention", "text": "label 1.4.0"}
    assert acc.to_json() == {
        "version": "1.4.0",
        "tracked": [{"subject": "ExecuTorch", "version": "1.4.0"}, {"subject": "ExecuTorch", "version": "1.4"},
                    {"subject": "torch", "version": "2.13.0"}, {"subject": "torchao", "version": "0.18.0"},
                    {"subject": "flatbuffers", "version": "24.3.25"},
                    {"subject": "ExecuTorch", "version": "earlier than 1.4.0 (1.x.y)"}],
        "counts": {"moved": 1, "history": 1, "other": 1, "review": 1},
        "review": [item],
        "items": [{**item, "line": 1, "column": 5, "bucket": "moved", "rule": "the pin", "text": "pin 1.4.0"},
                  {**item, "line": 2, "column": 8, "bucket": "other", "rule": "another package (numpy)",
                   "text": "numpy==1.4.0"},
                  item,
                  {**item, "line": 4, "column": 10, "bucket": "history", "rule": "a measurement or test claim",
                   "text": "measured 1.4.0"}]}


def test_the_summary_says_versions_for_none_or_several_others():
    none = account(template(), minor_bump(), [], [])
    assert none.summary() == "mentions of 1.4.0: 0 moved, 0 history, 0 other versions, 0 for review"
    assert none.to_json()["counts"] == {"moved": 0, "history": 0, "other": 0, "review": 0}
    two = account(template(others={"a.txt": "numpy==1.4.0 scipy==1.4.0\n"}), minor_bump(), [], [])
    assert two.summary() == "mentions of 1.4.0: 0 moved, 0 history, 2 other versions, 0 for review"
