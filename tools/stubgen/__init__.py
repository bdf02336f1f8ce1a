"""Type stubs for a pybind11 module, from the live module (tools/generate_stubs.py)."""
