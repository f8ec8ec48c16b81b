# Invented fixture modelled on ExecuTorch's torch_pin.py (FORMATS.md section 2).
# The torch release this ExecuTorch release is built and tested against.
TORCH_VERSION = "2.13.0"
# NIGHTLY_VERSION = "dev20260101"
