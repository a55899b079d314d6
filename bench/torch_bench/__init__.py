"""Helpers of bench/models_vs_torch.py: normrt's C API through ctypes, the
shared timing protocol, and one module per architecture (*_case.py)."""
