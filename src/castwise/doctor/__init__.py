"""Diagnosing a model's precision: tracing, the error catalogue, comparison against fp32, the report."""

from castwise.doctor.diagnosis import DEFAULT_POLICIES, DEFAULT_TOLERANCE, diagnose
from castwise.doctor.example import ExampleClassifier, example_inputs, example_labels, example_model
from castwise.doctor.parity import ModeResult, ParityRow, run_parity
from castwise.doctor.render_html import render_html, write_html
from castwise.doctor.render_text import render_text
from castwise.doctor.report import (
    Finding,
    KeepFix,
    ModeRun,
    ModuleStats,
    PolicyResult,
    Recommendation,
    Report,
    Routing,
    Training,
    TrainingMemory,
    TrainingRun,
)
from castwise.doctor.schema import REPORT_SCHEMA

__all__ = [
    "DEFAULT_POLICIES",
    "DEFAULT_TOLERANCE",
    "ExampleClassifier",
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
    "Routing",
    "Training",
    "TrainingMemory",
    "TrainingRun",
    "diagnose",
    "example_inputs",
    "example_labels",
    "example_model",
    "render_html",
    "render_text",
    "run_parity",
    "write_html",
]
