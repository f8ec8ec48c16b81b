"""The test pack generator, re-exported from :mod:`bot.sample.packgen` (where the demo uses it too)."""

from bot.sample.packgen import (  # noqa: F401
    DEFAULT_OPS, DEMO_OPS, build_pack_sh_spec, upstream_release_spec, FLATBUFFERS_HEADERS, RUNTIME_SOURCES, URL, DemoPacks, PackSpec, _pdsc, files_of,
    generated_header, make_pack, pdsc_text, realistic_spec, write_demo_packs,
)
