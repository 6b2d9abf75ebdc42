"""Diagnosing a model's precision: tracing, the error catalogue, comparison against fp32, the report."""

from castwise.doctor.catalogue import Explanation, explain
from castwise.doctor.diagnosis import DEFAULT_POLICIES, DEFAULT_TOLERANCE, diagnose
from castwise.doctor.example import ExampleClassifier, example_inputs, example_model
from castwise.doctor.parity import ModeResult, ParityRow, run_parity
from castwise.doctor.report import Finding, KeepFix, ModeRun, ModuleStats, PolicyResult, Recommendation, Report
from castwise.doctor.schema import REPORT_SCHEMA

__all__ = [
    "DEFAULT_POLICIES",
    "DEFAULT_TOLERANCE",
    "ExampleClassifier",
    "Explanation",
    "Finding",
    "KeepFix",
    "ModeResult",
    "ModeRun",
    "ModuleStats",
    "ParityRow",
    "PolicyResult",
    "REPORT_SCHEMA",
    "Recommendation",
    "Report",
    "diagnose",
    "example_inputs",
    "example_model",
    "explain",
    "run_parity",
]
