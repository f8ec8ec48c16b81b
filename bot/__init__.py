"""executorch-pack-bot: keeps a CMSIS ExecuTorch firmware template on one ExecuTorch version.

The package is split by role (see docs/architecture.md):

* ``bot.upstream``  -- what ExecuTorch released and what it pins at a tag ("datasources");
* ``bot.template``  -- one module per template file kind that finds and rewrites pins ("managers");
* ``bot.pack``      -- building and verifying the ``PyTorch::ExecuTorch`` CMSIS pack;
* ``bot.github``    -- the GitHub platform layer (releases, pull requests);
* ``bot.commands``  -- one module per command-line subcommand.
"""

__version__ = "0.1.0"
