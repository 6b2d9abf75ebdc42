"""The verdict on a policy: whether its measured runs stay within tolerance of the fp32 reference."""

from __future__ import annotations

from collections.abc import Sequence

from castwise.doctor.report.data import ModeRun, PolicyResult


def judge(name: str, runs: Sequence[ModeRun], tolerance: float, reference_ok: bool) -> PolicyResult:
    """Within tolerance: the reference and every mode ran, no inf/nan was measured where fp32's values
    are finite (in outputs, loss, activations or gradients) unless the policy's loss scaler was measured
    to absorb it (:attr:`ModeRun.overflowed`), and the error is small enough."""
    result = PolicyResult(name, list(runs), within_tolerance=False)
    error = result.max_error
    result.within_tolerance = reference_ok and result.ok and not result.overflowed and (error or 0.0) <= tolerance
    return result
