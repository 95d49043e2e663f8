"""Typed errors of ascend_quant_ops.

Every refusal names the operator, the argument, the constraint, the SoC when one applies, the limit (or the
expected value) and the actual value, and, where possible, what would work instead. The fields are attributes,
so that scripts can act on them without parsing the message. Every error round-trips through pickle and
copy.deepcopy with its fields (a multiprocessing worker that raises one hands it back to the parent intact).
"""
from __future__ import annotations

from typing import Any, Optional

__all__ = ["AqoError", "ConstraintError", "DTypeError", "BackendUnavailableError", "EmulatorError"]


def _rebuild(cls, kwargs, state):
    """Unpickling: construct `cls` from its fields, then restore any attribute added after construction."""
    err = cls(**kwargs)
    err.__dict__.update(state)
    return err


class AqoError(Exception):
    """Base class of every error this package raises on purpose."""


class ConstraintError(AqoError, ValueError):
    """An operator or SoC constraint is violated by the given inputs or parameters.

    Attributes: op, argument, constraint, soc, limit, expected, actual, suggestion.
    """

    def __init__(
        self,
        op: str,
        argument: str,
        constraint: str,
        *,
        actual: Any = None,
        expected: Any = None,
        limit: Any = None,
        soc: Optional[str] = None,
        suggestion: Optional[str] = None,
    ) -> None:
        self.op = op
        self.argument = argument
        self.constraint = constraint
        self.actual = actual
        self.expected = expected
        self.limit = limit
        self.soc = soc
        self.suggestion = suggestion
        super().__init__(self._render())

    def _render(self) -> str:
        where = f"{self.op}: argument '{self.argument}'"
        if self.soc:
            where += f" on {self.soc}"
        parts = [f"{where}: {self.constraint}"]
        if self.limit is not None:
            parts.append(f"limit {self.limit}")
        if self.expected is not None:
            parts.append(f"expected {self.expected}")
        if self.actual is not None:
            parts.append(f"got {self.actual}")
        msg = "; ".join(parts)
        if self.suggestion:
            msg += f". {self.suggestion}"
        return msg

    _FIELDS = ("op", "argument", "constraint", "actual", "expected", "limit", "soc", "suggestion")

    def __reduce__(self):
        # Exception's default reduce calls cls(*self.args) = cls(message), which this signature cannot take.
        return (_rebuild, (type(self), {f: getattr(self, f) for f in self._FIELDS}, dict(self.__dict__)))

    def to_dict(self) -> dict:
        return {
            "op": self.op,
            "argument": self.argument,
            "constraint": self.constraint,
            "soc": self.soc,
            "limit": self.limit,
            "expected": self.expected,
            "actual": self.actual,
            "suggestion": self.suggestion,
            "message": str(self),
        }


class DTypeError(ConstraintError, TypeError):
    """A tensor or parameter has a dtype the operator (or the SoC) does not accept. Also a TypeError."""


class BackendUnavailableError(AqoError, RuntimeError):
    """The requested backend cannot run here; `reason` says why and what would fix it."""

    def __init__(self, backend: str, reason: str) -> None:
        self.backend = backend
        self.reason = reason
        super().__init__(f"backend '{backend}' is not usable here: {reason}")

    def __reduce__(self):
        return (_rebuild, (type(self), {"backend": self.backend, "reason": self.reason}, dict(self.__dict__)))


class EmulatorError(AqoError, RuntimeError):
    """The AscendC CPU emulator caught a kernel fault (UB overflow, unaligned copy, illegal Cast mode, queue
    misuse, out-of-bounds GM access, bad tiling). The message names the kernel source line."""
