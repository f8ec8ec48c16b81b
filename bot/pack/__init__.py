"""The ``PyTorch::ExecuTorch`` CMSIS pack: building it and verifying it.

* :mod:`bot.pack.archive`  -- zip safety (names, sizes, ratios, CRC) and bounded streaming reads;
* :mod:`bot.pack.pdsc`     -- hardened lxml parsing of the ``.pdsc`` manifest;
* :mod:`bot.pack.checks`   -- the structural checks (manifest, headers, references, components);
* :mod:`bot.pack.baseline` -- operator components against an older pack and a template's layers;
* :mod:`bot.pack.validator`, :mod:`bot.pack.cpackget`, :mod:`bot.pack.compile` -- external tools;
* :mod:`bot.pack.verify`   -- :func:`~bot.pack.verify.verify_pack`, every check in one call;
* :mod:`bot.pack.report`   -- :class:`~bot.pack.report.PackReport` and its text/JSON/Markdown forms.

Facts come from ExecuTorch's cmsis_pack/ at v1.4.1, its release asset and the CMSIS-Toolbox docs.  This package imports nothing
heavy at import time (lxml is imported by :mod:`bot.pack.pdsc` only).
"""
