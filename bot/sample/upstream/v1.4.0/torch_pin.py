# Invented fixture modelled on ExecuTorch's torch_pin.py (ExecuTorch's pin files at tags v1.0.0 to v1.4.1).
# The torch release this ExecuTorch release is built and tested against.
TORCH_VERSION = "2.13.0"
# NIGHTLY_VERSION = "dev20260101"
