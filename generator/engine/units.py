"""Unit definitions the engine computes with (not tunable: tunable numbers live in rules.yaml)."""

from __future__ import annotations

#: Bytes in a GiB; estimates are in GiB, what nvidia-smi and PyTorch report.
GIB = 2**30
#: Bits in a byte.
BITS_PER_BYTE = 8
#: Seconds in an hour.
SECONDS_PER_HOUR = 3600
#: FLOP/s in one TFLOP/s.
TERA = 1e12
#: Bytes/s in one GB/s (datasheet bandwidth is decimal GB/s).
GIGA = 1e9
#: Tokens in "per million tokens".
MILLION = 1e6
#: Parameters in "billions of parameters".
BILLION = 1e9
