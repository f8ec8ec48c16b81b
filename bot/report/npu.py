"""The Ethos-U estimates as the pull-request body and ``npu-estimate`` show them: one Markdown table per model,
old against new (:class:`bot.modelrun.npu.NpuEstimate` of each side), and what made each side's numbers.
The numbers are Vela's estimates for one system configuration and memory mode; no NPU was run."""

from __future__ import annotations

from bot import inert

#: The rows of :func:`table`: (heading, attribute, format).
_ROWS = (("delegates", "delegates", "{:d}"), ("operators on the NPU", "npu_ops", "len"),
         ("operators on the CPU", "cpu_ops", "len"), ("NPU cycles", "npu_cycles", "{:,}"),
         ("total cycles", "total_cycles", "{:,}"), ("inference (µs)", "inference_us", "{:.3f}"),
         ("MACs", "macs", "{:,}"), ("SRAM (KiB)", "sram_kib", "{:.2f}"), ("flash (KiB)", "flash_kib", "{:.2f}"),
         ("weights encoded (bytes)", "weights_encoded", "{:,}"))


def _cell(e, attr: str, fmt: str) -> str:
    if e is None:
        return "—"
    if e.status != "lowered":
        return "not lowered"
    v = getattr(e, attr)
    return str(len(v)) if fmt == "len" else fmt.format(v)


def _side(e) -> str:
    if e is None:
        return "old: not estimated"
    how = f"Vela {e.vela_version}, {e.system_config}, {e.memory_mode}" if e.status == "lowered" else e.error
    return inert.markdown(f"{e.label}: {how}" + (f" ({e.basis})" if e.basis else ""), cap=600)


def table(old, new) -> str:
    """One model's Markdown table, old against new, then what made each side's numbers and the CPU operators.

    Every string of an estimate is written as inert Markdown (a code span, or escaped text: the estimates may
    come from a file a job with upstream code wrote); the table says the numbers are estimates."""
    head = f"{inert.code(new.model)} on {inert.markdown(new.target)} (Vela's estimates; no NPU was run)"
    lines = [head, "", f"| | {inert.markdown(old.label if old else 'old')} | {inert.markdown(new.label)} |",
             "| --- | ---: | ---: |"]
    for title, attr, fmt in _ROWS:
        lines.append(f"| {title} | {_cell(old, attr, fmt)} | {_cell(new, attr, fmt)} |")
    lines += ["", "- " + _side(old), "- " + _side(new)]
    if new.status == "lowered" and new.cpu_ops:
        lines.append("- on the CPU with " + inert.markdown(new.label) + ": "
                     + ", ".join(inert.code(x) for x in new.cpu_ops))
    return "\n".join(lines)
