"""Create the template's virtual environment (sample for the executorch-pack-bot demo)."""
import subprocess
import sys
import venv

# ExecuTorch 1.4 declares requires-python >=3.10,<3.15; check before creating the venv.
if not ((3, 10) <= sys.version_info[:2] < (3, 15)):
    sys.exit("Python 3.10 to 3.14 is required")

venv.create(".venv", with_pip=True)
subprocess.check_call([".venv/bin/pip", "install", "-r", "requirements.txt"])
