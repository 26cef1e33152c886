"""Triton kernels measured on the H200 for asyncsim's validation data (issue 3)."""
