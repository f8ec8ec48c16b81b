"""Invented fixture modelled on ExecuTorch's install_requirements.py (never run)."""

import subprocess
import sys

TORCHAO_NIGHTLY_VERSION = "0.18.0"


def python_is_compatible() -> bool:
    return sys.version_info >= (3, 10)


def install_requirements(use_pytorch_nightly: bool) -> None:
    torch_spec = ["torch==2.13.0"]
    requirements = torch_spec + [f"torchao=={TORCHAO_NIGHTLY_VERSION}"]
    subprocess.run([sys.executable, "-m", "pip", "install", *requirements], check=True)


if __name__ == "__main__":
    install_requirements(use_pytorch_nightly=False)
