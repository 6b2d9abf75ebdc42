"""Diagnosing a model's precision: the built-in example and naive-vs-castwise parity."""

from castwise.doctor.example import ExampleClassifier, example_inputs, example_model
from castwise.doctor.parity import ModeResult, ParityRow, run_parity

__all__ = ["ExampleClassifier", "ModeResult", "ParityRow", "example_inputs", "example_model", "run_parity"]
