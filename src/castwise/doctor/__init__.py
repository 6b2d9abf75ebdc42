"""Diagnosing a model's precision: measuring it under each policy against fp32, judging what was
measured, the report data and its renderers, and the targets it is run on.

One sub-package per job, data flowing one way: ``targets`` (what to diagnose: a factory, a
transformers folder, the built-in example) and ``measure`` (traced runs, comparison, trial training,
routing, fp8 rows, parity) produce :mod:`report` data; ``judge`` turns measurements into verdicts,
findings and the recommendation; ``render`` writes the report for people (text, HTML, charts).
:mod:`castwise.doctor.diagnosis` (``cw.diagnose``) runs them in that order.
"""

from castwise.doctor.diagnosis import DEFAULT_POLICIES, DEFAULT_TOLERANCE, diagnose
from castwise.doctor.measure.parity import run_parity
from castwise.doctor.render.html import render_html, write_html
from castwise.doctor.render.text import render_text
from castwise.doctor.report.data import (
    Finding,
    KeepFix,
    ModeResult,
    ModeRun,
    ModuleStats,
    ParityRow,
    PolicyResult,
    Recommendation,
    Report,
    Routing,
    Training,
    TrainingMemory,
    TrainingRun,
)
from castwise.doctor.report.schema import REPORT_SCHEMA
from castwise.doctor.targets.example import ExampleClassifier, example_inputs, example_labels, example_model

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
