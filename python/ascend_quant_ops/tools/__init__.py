"""The command-line tools of `aqo` (cli.py): plan, sweep, precision. Each module has `add_arguments(parser)` and
`run(args) -> exit status`; cli.py registers them as subcommands.

Exit status of every tool: 0 success, 1 a failed check (a refused plan, a failing sweep case or precision case),
2 a usage error (UsageError, or argparse's own). Nothing prints a traceback.
"""
from __future__ import annotations

import argparse
import math
import os
import tempfile
from pathlib import Path
from typing import List


class UsageError(Exception):
    """A command-line argument the tool cannot use: the message says which and why (exit status 2)."""


def shape_arg(text: str) -> List[int]:
    """argparse type of a shape: comma- or x-separated non-negative integers, e.g. 4096,7168 or 64x4096."""
    body = text.strip().strip("[]()").replace(" ", "")
    if not body:
        return []
    try:
        dims = [int(t) for t in body.replace("x", ",").split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"a shape is comma-separated integers, e.g. 4096,7168; got {text!r}")
    if any(d < 0 for d in dims):
        raise argparse.ArgumentTypeError(f"shape dimensions are non-negative; got {text!r}")
    return dims


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"an integer >= 1 is required; got {text!r}")
    if value < 1:
        raise argparse.ArgumentTypeError(f"an integer >= 1 is required; got {value}")
    return value


def non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"an integer >= 0 is required; got {text!r}")
    if value < 0:
        raise argparse.ArgumentTypeError(f"an integer >= 0 is required; got {value}")
    return value


def fraction_arg(text: str) -> float:
    """A finite number in [0, 1]."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a fraction in [0, 1] is required; got {text!r}")
    if not math.isfinite(value) or not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"a fraction in [0, 1] is required; got {text}")
    return value


def require_writable_dir(path: Path, flag: str) -> Path:
    """Creates `path` if needed and proves a file can be written there, before any work is done."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".aqo-write-check-"):
            pass
    except OSError as exc:
        raise UsageError(f"{flag} {path}: not a writable directory ({exc.strerror or exc})") from None
    if not os.access(path, os.W_OK):
        raise UsageError(f"{flag} {path}: not a writable directory")
    return path
