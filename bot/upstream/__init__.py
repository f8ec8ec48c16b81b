"""Upstream "datasources": which ExecuTorch releases exist and what each one pins."""
