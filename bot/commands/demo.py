"""``demo``: the whole bump, offline, on the sample the project ships.

Builds a small upstream ExecuTorch git repository with release tags from
``bot/sample/upstream`` in a temporary folder, copies the sample template
``bot/sample/template`` next to it, prints the unified diff and the summary
of the bump to the newest stable tag, applies it and audits the result
(``--dry-run``: applies nothing; with ``--keep DIR`` the pristine sample and
the upstream repository stay in DIR and the commands to run next are printed).

Then it writes two invented packs of the target version
(:func:`bot.sample.packgen.write_demo_packs`): a good
``packs/PyTorch.ExecuTorch.V.pack`` and the trap
``packs/trap/PyTorch.ExecuTorch.V.pack`` (built without the CMake
cross-compile: no ``include/flatbuffers/``, no generated headers; reproduced with build_pack.sh at v1.4.1), runs ``verify-pack``'s offline checks (archive, manifest, headers,
file references, components, template components) on both against the sample
template and prints one verdict line each: the good pack passes, the trap is
caught.  With ``--keep`` the packs stay in ``DIR/packs`` and the
``verify-pack`` commands to try on them are printed (``--compile-check`` when
``arm-none-eabi-g++`` is on PATH).  Nothing is compiled by the demo itself.

With ``--keep`` it also writes a small real ExecuTorch program for the good
pack's runtime, ``DIR/model/add_mul.pte`` (aten::add then aten::mul,
:func:`bot.sample.pte.add_mul`), and its reference outputs
``DIR/model/add_mul.expected.json`` (the ``run-model --expected`` JSON), and
prints the ``run-model`` command that runs it offline (the sample template's
own ``model/model.pte`` is a placeholder, no program).
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

NAME = "demo"
ORDER = 1
HELP = ("run a complete bump offline on the shipped sample template (prints the diff and the summary), "
        "then verify a good sample pack and the trap")

SAMPLE = Path(__file__).resolve().parent.parent / "sample"

# How bot.pack.checks words the cause of the flatbuffers-headers and generated-headers checks; said once
# in a verdict line, not per check.
_CAUSE_PAREN = " (the pack was built without the CMake cross-compile)"
_CAUSE_COLON = ": the pack was built without the CMake cross-compile"


def copy_template(dest: Path) -> Path:
    """Copy the sample template to ``dest`` (``dot-github`` becomes ``.github``); return ``dest``."""
    # pip byte-compiles the shipped sample's setup_venv.py: its __pycache__ is not part of the sample
    shutil.copytree(SAMPLE / "template", dest, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    dot = dest / "dot-github"
    if dot.exists():
        dot.rename(dest / ".github")
    return dest


def write_model(dest: Path) -> tuple[Path, Path]:
    """Write ``dest/add_mul.pte`` and ``dest/add_mul.expected.json``; return both paths.

    The program is :func:`bot.sample.pte.add_mul` (the sample pack's runtime holds
    its two operators); the JSON is its outputs on the runner's fixed inputs in
    the shape :func:`bot.modelrun.host.dump` writes. Raises ``OSError`` when
    ``dest`` cannot be written.
    """
    import json

    from bot.sample.pte import add_mul, add_mul_expected

    dest.mkdir(parents=True, exist_ok=True)
    pte, expected = dest / "add_mul.pte", dest / "add_mul.expected.json"
    pte.write_bytes(add_mul())
    expected.write_text(json.dumps(add_mul_expected()) + "\n", encoding="utf-8")
    return pte, expected


def next_commands(template: Path, upstream: Path, applied: bool, packs=None, version: str = "1.5.1",
              compile_check: bool = False, model: tuple[Path, Path] | None = None) -> str:
    """The commands a user can run next on a kept demo folder (``--keep``), one a line.

    ``packs`` (a :class:`bot.sample.packgen.DemoPacks`, optional) adds the two
    ``verify-pack`` commands for pack version ``version``, with ``--compile-check``
    when ``compile_check``; ``model`` (the ``.pte`` and its expected outputs,
    :func:`write_model`) with ``packs`` adds the ``run-model`` command on the good pack.
    """
    t, u = shlex.quote(str(template)), shlex.quote(str(upstream))
    lines = ["", "Kept. Try the commands yourself:",
             f"  executorch-pack-bot doctor --repo {t} --upstream {u}   # the install check, offline"]
    if applied:
        lines += [f"  executorch-pack-bot audit  --repo {t}",
                  f"  executorch-pack-bot update --repo {t} --upstream {u} --dry-run   # nothing left to do"]
    else:
        lines += [f"  executorch-pack-bot audit  --repo {t}",
                  f"  executorch-pack-bot update --repo {t} --upstream {u} --dry-run",
                  f"  executorch-pack-bot update --repo {t} --upstream {u}",
                  f"  executorch-pack-bot audit  --repo {t}"]
    if packs is not None:
        extra = f" --version {shlex.quote(version)} --template {t}" + (" --compile-check" if compile_check else "")
        lines += ["", "Verify the sample packs (the trap was built without the cross-compile):",
                  f"  executorch-pack-bot verify-pack {shlex.quote(str(packs.good))}{extra}",
                  f"  executorch-pack-bot verify-pack {shlex.quote(str(packs.trap))}{extra}   # fails"]
    if packs is not None and model is not None:
        pte, expected = (shlex.quote(str(p)) for p in model)
        lines += ["", "Run a small ExecuTorch program (aten::add, aten::mul) on the good pack's runtime in QEMU "
                      "(needs arm-none-eabi-gcc and qemu-system-arm; offline):",
                  f"  executorch-pack-bot run-model {shlex.quote(str(packs.good))} --pte {pte} --expected {expected}"]
    return "\n".join(lines)


def left_as_written(mentions) -> str:
    """Every mention the accounting left as written, one line each under its bucket, so that the counts of the
    summary line (``4 history, 2 other versions``) are the lines listed.

    ``mentions`` is a :class:`bot.engine.mentions.Accounting`; moved mentions are in the diff, not here."""
    names = {"history": "history", "other": "another thing's version", "review": "for review"}
    lines = []
    for bucket, name in names.items():
        items = [o for o in mentions.items if o.bucket == bucket]
        if items:
            lines.append(f"Left as written, {name} ({len(items)}):")
            lines += [f"  - {o.path}:{o.line}: {o.version} ({o.rule})" for o in items]
    return "\n".join(lines)


def verdict(label: str, report, *, expect_failure: bool) -> tuple[str, bool]:
    """One verdict line for a demo pack and whether it is the expected outcome.

    ``report`` is a :class:`bot.pack.report.PackReport`.  A failing report
    names each failed check and its detail (for the trap: the missing headers).
    """
    failed = [c for c in report.checks if c.status == "fail"]
    warned = report.count("warn")
    if not failed:
        line = f"{label}: passed ({report.count('pass')} checks passed, {warned} warning{'s' * (warned != 1)})"

    else:
        details = [f"{c.name}: {c.detail}" for c in failed]
        short = [d.replace(_CAUSE_PAREN, "").replace(_CAUSE_COLON, "") for d in details]
        cause = " (built without the CMake cross-compile)" if short != details else ""
        line = f"{label}: failed{cause}: " + "; ".join(short)
    ok = bool(failed) == expect_failure
    # a passed pack's warnings, each named under its verdict line
    warnings = "".join(f"\n    warning {c.name}" + (f": {c.detail}" if c.detail else "")
                       for c in report.checks if c.status == "warn") if not failed else ""
    return (line if ok else line + "  <- UNEXPECTED") + warnings, ok


def try_packs(work: Path, template: Path, version: str, tag: str) -> tuple[object, list[str], bool]:
    """Write the demo packs into ``work/packs`` and verify both against ``template`` (the offline checks, no compile).

    Returns (:class:`bot.sample.packgen.DemoPacks`, verdict lines, True when
    the good pack passed and the trap failed).
    """
    from bot.pack.verify import verify_pack
    from bot.sample.packgen import write_demo_packs

    packs = write_demo_packs(work / "packs", version)
    lines, ok = [], True
    for label, pack, bad in (("good pack", packs.good, False), ("trap pack", packs.trap, True)):
        report = verify_pack(pack, version, tag=tag, template=template)
        line, fine = verdict(f"{label} {pack.relative_to(work)}", report, expect_failure=bad)
        lines.append(line)
        ok = ok and fine
    return packs, lines, ok


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("--keep", type=Path, metavar="DIR",
                   help="build the sample in DIR (must not exist) and keep it, instead of a temporary folder: "
                        "DIR/template, DIR/executorch.git, the two packs in DIR/packs/ and a small ExecuTorch "
                        "program with its expected outputs in DIR/model/ (for run-model)")
    p.add_argument("--dry-run", action="store_true",
                   help="print the diff and the summary, apply nothing (with --keep: DIR keeps the pristine "
                        "1.4.0 sample and the upstream repository to try update/audit on)")


def run(args: argparse.Namespace) -> int:
    from bot import engine, inert
    from bot.errors import UsageError
    from bot.sample import build_upstream_repo
    from bot.textreport import audit_mentions_line, plan_summary
    from bot.upstream.git import GitSource

    if args.keep is not None:
        if args.keep.exists() or args.keep.is_symlink():
            raise UsageError(f"--keep {args.keep}: already exists; name a new folder")
        try:
            args.keep.mkdir(parents=True)
        except OSError as exc:
            raise UsageError(f"--keep {args.keep}: cannot create the folder: {exc.strerror}") from None
    work = args.keep or Path(tempfile.mkdtemp(prefix="executorch-pack-bot-demo-"))
    try:
        upstream = build_upstream_repo(work / "executorch.git")
        template = copy_template(work / "template")
        print(f"# upstream: {upstream} (a local git repository with release tags)")
        print(f"# template: {template} (the shipped sample, on ExecuTorch 1.4.0)")
        print(f"# equivalent command: executorch-pack-bot update --repo {template} --upstream {upstream} --dry-run")
        print()
        plan = engine.plan(template, GitSource(upstream),
                           progress=lambda m: print(f"# {m}", file=sys.stderr))
        sys.stdout.write(inert.log_safe(plan.diff()))
        print()
        sys.stdout.write(plan_summary(plan))
        if plan.mentions is not None:
            print(left_as_written(plan.mentions))
        print()
        if args.dry_run:
            print(f"Dry run: {len(plan.edits)} edits to {len(plan.contents)} files planned, nothing applied.")
            code = 0
        else:
            engine.apply(plan)
            audit = engine.audit(template)
            print(f"Applied {len(plan.edits)} edits to {len(plan.contents)} files; audit: "
                  + (audit.headline() if audit.agree else "PINS DISAGREE"))
            if audit.mentions is not None:
                print(f"audit after applying: {audit_mentions_line(audit.mentions)} (the new pin's mentions, "
                      f"not the old one's)")
                print(left_as_written(audit.mentions))
            code = 0 if audit.agree else 1
        version, tag = (plan.bump.new_pack, plan.bump.new_tag) if plan.bump else ("1.5.1", "v1.5.1")
        packs, lines, packs_ok = try_packs(work, template, version, tag)
        print()
        print(f"verify-pack on two sample packs of {version} (offline checks, against the template):")
        for line in lines:
            print("  " + line)
        if not packs_ok:
            code = 1
        if args.keep is not None:
            model = write_model(work / "model")
            print(next_commands(template, upstream, applied=not args.dry_run, packs=packs, version=version,
                            compile_check=shutil.which("arm-none-eabi-g++") is not None, model=model))
        return code
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
