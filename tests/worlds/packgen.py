"""The test pack generator, re-exported from :mod:`bot.sample.packgen` (where the demo uses it too)."""

from bot.sample.packgen import (  # noqa: F401
    DEFAULT_OPS, DEMO_OPS, FLATBUFFERS_HEADERS, RUNTIME_SOURCES, URL, DemoPacks, PackSpec, _pdsc,
    build_pack_sh_spec, files_of, generated_header, make_pack, pdsc_text, realistic_spec, upstream_release_spec,
    write_demo_packs,
)
