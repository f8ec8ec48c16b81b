#!/usr/bin/env bash
# Placeholder: the real script takes --executorch-root --build-dir --version --output-dir.
echo "sample upstream: build_pack.sh is a placeholder" >&2
exit 2
