#!/usr/bin/env python3
"""GM traffic and balance of the kernels in the emulator: now part of `python -m ascend_quant_ops perf` (which adds
the timeline model's estimate). This script runs that report with the same options.

    PYTHONPATH=python python scripts/data_movement.py --op dynamic_quant --soc ascend310p --shape 64x4096
"""
import sys

import _package_path  # noqa: F401  (developer build or installed package)

from ascend_quant_ops.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(["perf"] + sys.argv[1:]))
