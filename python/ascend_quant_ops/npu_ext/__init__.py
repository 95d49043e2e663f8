"""The NPU extension: C++ source of the PrivateUse1 kernels and how to build it (see build.py)."""
