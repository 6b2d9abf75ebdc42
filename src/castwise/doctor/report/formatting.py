"""Figures as people read them: bytes, relative errors, percentages and ratios; never a bare 0 for inf/nan."""

from __future__ import annotations

NONFINITE = "inf/nan"
SCALED = "scaled"
"""A run whose only inf/nan were gradients its loss scaler was measured to absorb."""


def human_bytes(count: int) -> str:
    """1536 -> '1.5 KiB'."""
    size = float(count)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GiB"


def error_text(value: float | None, nonfinite: bool = False) -> str:
    """A relative error in short scientific notation; 'inf/nan' when not finite, '-' when unknown."""
    if nonfinite:
        return NONFINITE
    return "-" if value is None else f"{value:.1e}"


def milliseconds(seconds: float | None) -> str:
    """0.0041 -> '4.1 ms'."""
    return "-" if seconds is None else f"{seconds * 1e3:.1f} ms"


def percent(value: float | None, signed: bool = False) -> str:
    """0.0123 -> '1.2%' (or '+1.2%' signed); '-' when unknown."""
    if value is None:
        return "-"
    return f"{value:+.1%}" if signed else f"{value:.1%}"


def ratio(value: float | None) -> str:
    """0.512 -> '0.51x'; '-' when unknown."""
    return "-" if value is None else f"{value:.2f}x"
