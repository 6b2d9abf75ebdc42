"""Reading torch's dtype and precision errors: what went wrong, where, and what to change.

``explain`` takes a live exception (its ``__cause__``/``__context__`` chain included) or pasted
text (a traceback, a distributed log, a notebook cell, a bare message), finds the error, reads
the dtypes, the device and the op from every spelling torch has used, and hands back an
``Explanation`` whose fix fits the situation, or None when it does not recognise the error.
"""

from castwise.explainer.explanation import Confidence, Explanation, Family, Kind
from castwise.explainer.reader import explain

__all__ = ["Confidence", "Explanation", "Family", "Kind", "explain"]
