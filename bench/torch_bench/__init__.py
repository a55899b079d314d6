"""Helpers of bench/models_vs_torch.py and bench/models_vs_peers.py: normrt's
C API through ctypes, the shared timing protocol, model folders and exports
for the peer runtimes, and one module per case (*_case.py)."""
