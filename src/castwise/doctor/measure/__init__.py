"""Measuring a model: traced runs under a policy against the fp32 reference (per-module error,
overflow, underflow, dtypes, memory, time), trial training, MoE routing, fp8 rows and the
plain-PyTorch parity table. Measurements only: what they mean is decided in ``judge``."""
