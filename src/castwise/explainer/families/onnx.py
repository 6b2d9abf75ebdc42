"""onnxruntime's type errors: an exported graph whose dtypes disagree with each other or with what it is fed.

ONNX has no type promotion and every tensor of a graph has a declared type, so a model exported (or converted
afterwards) partly in one precision fails where two precisions meet: a node whose inputs differ (``Type parameter (T)
bound to different types``), a node whose output is not the type the graph declares for it (``Type (tensor(A)) of
output arg (X) of node (N) does not match expected type (tensor(B))``, typical of a float16 conversion that left a Cast
or a declared type behind), or an input fed in another dtype than the one declared (``Unexpected input data type.
Actual: (A) , expected: (B)``, a model exported with fp16 inputs fed fp32 arrays; TFLite's ``Got value of type FLOAT32
but expected type UINT8``, a full-integer model fed floats). onnx's own type inference names element types by their
``TensorProto`` codes (``Mismatched tensor element type: source=9 target=2``), read here as dtypes. A float16 graph can
also fail as arithmetic: a node that turns float16 values into sizes or indices (Resize's scales, Range, shape
arithmetic) overflows (``... running Resize node ... Integer overflow``), or find an operator with no float16 version in
its opset or execution provider (``Type 'tensor(float16)' of input parameter ... is invalid``, ``Could not find an
implementation for ConvTranspose(11) node``). onnxruntime spells dtypes ``tensor(float16)``. Messages naming integer
dtypes only in the last two are declined: which integer the graph wants is not a precision question castwise reads.
"""

from __future__ import annotations

import re

from castwise.explainer.advice import a, dtype_list, mixed_story
from castwise.explainer.clues import low_precision_said, paste_search
from castwise.explainer.explanation import Confidence, Explanation, Kind
from castwise.explainer.failures import Failure
from castwise.explainer.families.mixed import mixed_float
from castwise.explainer.rules import Rule, dtypes, explained, message_only, rule
from castwise.explainer.spelling import full_name, is_complex, is_floating, is_low_precision

_ONNX_OPS = (("scatter", Kind.INDEXED_WRITE), ("matmul", Kind.MATMUL), ("gemm", Kind.MATMUL),
             ("conv", Kind.CONV_WEIGHT), ("layernorm", Kind.NORM_PARAM), ("batchnorm", Kind.NORM_PARAM),
             ("instancenorm", Kind.NORM_PARAM), ("groupnorm", Kind.NORM_PARAM))
"""ONNX operator types (a node's name starts with one) and the kind of a two-dtype error in them."""

_NODE = r"[\w/.:-]{1,200}"
"""A node or tensor name in an exported graph (torch.onnx names them by module path: ``/encoder/conv/Cast``)."""

_OP_TYPE = re.compile(r"(\w+?)(?:_\d+)?(?:_output_\d+)?$")


_BOUND_TYPES = rf"\(tensor\((?P<a>\w{{1,20}})\) and tensor\((?P<b>\w{{1,20}})\)\)?(?: in node\s*\((?P<node>{_NODE})\))?"
"""The two types and the node of onnxruntime's ``bound to different types`` message."""
_BOUND_TYPES_LINE = re.compile(rf"^\s*{_BOUND_TYPES}")


def _op_kind(op_type: str) -> Kind:
    """The kind of a two-dtype error in an ONNX operator (its type, or a node name that starts with it)."""
    lowered = op_type.lower()
    return next((kind for prefix, kind in _ONNX_OPS if lowered.startswith(prefix)), Kind.SCALAR_TYPE)


def _type_parameter(found: re.Match[str], failure: Failure) -> Explanation:
    """``Type parameter (T) of Optype (O) bound to different types (tensor(A) and tensor(B)) in node (N)``: one node
    of an exported graph gets inputs of two dtypes, which ONNX never promotes; a paste may wrap the types onto the
    next line, or cut the message after ``Type parameter (T)``. The operator type (or the node's name) picks the
    kind."""
    types = found if found["a"] else paste_search(failure, _BOUND_TYPES_LINE)
    names = dtypes(types, "a", "b") if types else ()
    node = types["node"] if types else None
    op_type = (found["optype"] or (node or "").rsplit("/", 1)[-1]).lower()
    kind = _op_kind(op_type)
    story_culprit, story_fix = mixed_story(names)
    shown = f"the exported ONNX graph's node {node}" if node else "a node of the exported ONNX graph"
    got = f"{dtype_list(names)} inputs" if names else "inputs of two types (the message is cut before it names them)"
    return mixed_float(
        kind, failure, names, f"ONNX node {node}" if node else "an ONNX node",
        f"{shown} gets {got}; ONNX has no type promotion, so the model exported two dtypes where torch had "
        "promoted them",
        culprit=story_culprit,
        fix=f"{story_fix}, then export again (torch promotes mixed dtypes where ONNX cannot)",
    )


def _inconsistent_input(found: re.Match[str], failure: Failure) -> Explanation:
    """onnx's shape inference (its checker, or the exporter running it) finding one input of a node in another type
    than the others (``(op_type:BatchNormalization, node name: ...): scale has inconsistent type tensor(float)``): the
    graph was exported with two precisions meeting at that node."""
    names = dtypes(found, "got")
    op_type = found["optype"]
    kind = _op_kind(op_type)
    return mixed_float(
        kind, failure, names, f"ONNX {op_type} node",
        f"the exported ONNX graph's {op_type} node gets its `{found['input']}` as {dtype_list(names)} but its other "
        "inputs in another type; ONNX has no type promotion, so two precisions were exported into one node",
        culprit="a model exported under autocast, where torch ran the op with parameters in one dtype and inputs in "
        "another (normalization layers keep fp32 parameters), or a model converted to half in part",
        fix="export outside autocast from a model in one dtype (`model.half()` with half example inputs, or fp32 "
        "throughout and a float16 conversion of the export)",
    )


def _floating_pair(found: re.Match[str]) -> tuple[str, str] | None:
    """The two dtypes (``got``, ``want``) a message names, when both are floating and they differ."""
    names = dtypes(found, "got", "want")
    if len(names) != 2 or names[0] == names[1] or not all(is_floating(name) for name in names):
        return None
    return names[0], names[1]


def _output_type(found: re.Match[str], failure: Failure) -> Explanation | None:
    """A node's output is not the type the graph declares for it: a conversion to another precision left one
    declared type (or one Cast) in the precision the model had before."""
    pair = _floating_pair(found)
    if pair is None:
        return None
    got, want = pair
    node = found["node"]
    op_type = _OP_TYPE.search((node or found["arg"]).rsplit("/", 1)[-1])
    shown = f"node {node}" if node else f"node writing {found['arg']}"
    return explained(
        Kind.SCALAR_TYPE, failure,
        f"the exported ONNX graph's {shown} outputs {got} but the graph declares {want} for that output "
        f"({found['arg']}); ONNX checks every declared type and never converts, so the graph holds two precisions",
        f"a model converted to another precision in part: a float16 conversion after export (onnxconverter_common's "
        f"`convert_float_to_float16`, a `--half` export) that changed a {op_type[1] if op_type else 'node'}'s output "
        f"to {got} but left the type declared for it (or for its consumer) as {want}",
        "make the graph one precision: export the model in the dtype it should run in (`model.half()` with half "
        "example inputs before `torch.onnx.export`), or convert the fp32 export as a whole (`convert_float_to_float16"
        "(model, keep_io_types=True)`, with the node's op type in `op_block_list` if it must stay fp32); a converter "
        "that leaves a declared type behind is worth updating or reporting with the node's name",
        op=f"ONNX {shown}", names=pair,
    )


_ELEMENT_TYPES = {"1": "f32", "2": "uint8", "3": "int8", "4": "uint16", "5": "int16", "6": "int32", "7": "int64",
                  "9": "bool", "10": "f16", "11": "f64", "12": "uint32", "13": "uint64", "14": "complex64",
                  "15": "complex128", "16": "bf16", "17": "float8_e4m3fn", "19": "float8_e5m2"}
"""ONNX's ``TensorProto`` element-type codes, as castwise's dtype names."""


def _inferred_element_types(found: re.Match[str], failure: Failure) -> Explanation | None:
    """onnx's ``[TypeInferenceError] Mismatched tensor element type: source=9 target=2``: the types as ``TensorProto``
    codes, read here; declined for a code torch has no dtype for (a string)."""
    if found["a"] not in _ELEMENT_TYPES or found["b"] not in _ELEMENT_TYPES:
        return None
    names = (_ELEMENT_TYPES[found["a"]], _ELEMENT_TYPES[found["b"]])
    return explained(
        Kind.SCALAR_TYPE, failure,
        f"ONNX's type inference found a tensor of {names[0]} flowing where the graph declares {names[1]} (its codes "
        f"{found['a']} and {found['b']}): an ONNX graph never converts, so the exported graph holds the two types",
        f"an op the exporter wrote with one element type while the model gave it another: a {names[0]} value (a mask, "
        "an index, a 16-bit activation) reaching a node exported for another, often through an in-place op or a "
        "dtype the exporter does not track",
        f"make the dtypes explicit in the model before export (`x.to(torch.{full_name(names[1])})` where the two "
        "meet), or update torch and onnx: newer exporters insert the Cast themselves",
        op="ONNX type inference", names=names, confidence=Confidence.LOW,
    )


def _initializer_type(found: re.Match[str], failure: Failure) -> Explanation | None:
    """A weight (initializer) stored in one precision where the node that reads it expects another: a float16
    conversion that changed the initializer but not its consumer."""
    pair = _floating_pair(found)
    if pair is None:
        return None
    got, want = pair
    return explained(
        Kind.SCALAR_TYPE, failure,
        f"the ONNX graph stores the initializer {found['name']} as {got} but the node that reads it expects {want}; "
        "ONNX never converts, so the graph holds two precisions",
        f"a float16 conversion of an exported model (`convert_float_to_float16`, most often with `keep_io_types=True` "
        f"or an `op_block_list`) that converted a weight to {got} while its consumer (a node kept in {want}) was left "
        "as it was",
        "convert the export whole (`convert_float_to_float16(model, keep_io_types=True)` without `disable_shape_infer`"
        ", so the converter sees every consumer), add the consuming node's op type to `op_block_list` so its weights "
        "stay fp32 too, or export from torch in the precision it should run in (`model.half()` before "
        "`torch.onnx.export`)",
        op=f"ONNX initializer {found['name']}", names=pair,
    )


def _input_type(found: re.Match[str], failure: Failure) -> Explanation | None:
    """An input array fed in another dtype than the one the exported model declares for it."""
    names = dtypes(found, "got", "want")
    if len(names) == 2 and is_floating(names[1]) and not is_floating(names[0]):
        return _integer_input(failure, names[0], names[1])
    pair = _floating_pair(found)
    if pair is None:
        return None
    got, want = pair
    cast = f"`x.astype(np.{full_name(want)})`" if want != "bf16" else "an array of that dtype"
    return explained(
        Kind.SCALAR_TYPE, failure,
        f"the ONNX model declares its input as {want} but was fed {got}; onnxruntime never converts inputs",
        f"a model exported or converted with {want} inputs (a `--half` export, a float16 conversion without "
        f"`keep_io_types`) fed the {got} arrays the original model took (numpy and image loaders make float32 or "
        "float64)",
        f"feed the declared dtype: {cast} before `session.run` (`session.get_inputs()[i].type` says which); or export "
        f"with {got} inputs (`keep_io_types=True` when converting to float16) so the model casts them itself",
        op="onnxruntime session input", names=pair,
    )


def _tflite_input(found: re.Match[str], failure: Failure) -> Explanation | None:
    """TFLite's ``Got value of type FLOAT32 but expected type UINT8 for input 0``: an input array of another dtype
    than the converted model declares (a quantized model takes uint8 or int8)."""
    names = dtypes(found, "got", "want")
    if len(names) != 2:
        return None
    got, want = names
    return explained(
        Kind.SCALAR_TYPE, failure,
        f"the TFLite model declares input {found['index']} as {want} and was fed {got}; the interpreter never "
        "converts inputs",
        f"a model converted with {want} inputs (full-integer quantization makes uint8/int8 inputs) fed the {got} "
        "arrays the original model took",
        f"feed the declared dtype (`interpreter.get_input_details()[i]['dtype']`; for a quantized input scale it with "
        f"the input's quantization parameters, then `.astype(np.{full_name(want)})`), or convert the model with "
        f"{got} inputs",
        op="TFLite interpreter input", names=names,
    )


def _integer_input(failure: Failure, got: str, want: str) -> Explanation:
    """An ONNX model that takes a floating input fed integers: raw samples, pixels or a count passed as they are."""
    return explained(
        Kind.SCALAR_TYPE, failure,
        f"the ONNX model declares this input as {want} but was fed {got}; onnxruntime never converts inputs",
        f"integer data passed as it was read ({got}: PCM audio samples, pixels, a speed or length given as an int), "
        "or a model version whose inputs changed from the one the calling code was written for",
        f"convert before `session.run`: `x.astype(np.{full_name(want)})` (int16 audio samples scaled to [-1, 1]: "
        "`x / 32768`); `session.get_inputs()[i].type` says what each input takes; check the model file matches the "
        "code's version",
        op="onnxruntime session input", names=(got, want),
    )


def _integer_overflow(found: re.Match[str], failure: Failure) -> Explanation | None:
    """``Non-zero status code returned while running Resize node ... Integer overflow`` in a graph the paste says is
    float16: a size or index computed from a 16-bit value."""
    names = low_precision_said(failure)
    if not names:
        return None
    node = found["node"]
    return explained(
        Kind.VALUE_OVERFLOW, failure,
        f"the {node} node of a {names[0]} graph computed a size or index from {names[0]} values and it overflowed: "
        f"{names[0]} cannot hold the value (or its precision) that node needs",
        f"a graph converted to {names[0]} whole (`float16_converter`, `convert_float_to_float16`), including the "
        "nodes that compute shapes, scales and indices (Resize, Range, Shape arithmetic)",
        f"convert again keeping those nodes in float32 (`op_block_list=['{node}']`, `keep_io_types=True`), or run the "
        "model in float32",
        op=f"ONNX {node} node", names=names[:1], confidence=Confidence.LOW,
    )


def _invalid_input_type(found: re.Match[str], failure: Failure) -> Explanation | None:
    """``Type 'tensor(float16)' of input parameter (x) of operator (Resize) ... is invalid``: an operator that, in the
    exported opset, takes no 16-bit input."""
    names = tuple(name for name in dtypes(found, "a") if is_low_precision(name))
    return _operator_lacks(failure, found["op"], names, "the graph's opset") if names else None


def _no_implementation(found: re.Match[str], failure: Failure) -> Explanation:
    """``Could not find an implementation for ConvTranspose(11) node`` (older: ``Failed to find kernel for Sub``): the
    execution provider has no kernel for that operator in the graph's dtype, named when the paste says a 16-bit one."""
    names = low_precision_said(failure)[:1]
    op = found["op"] or found["op2"]
    where = "onnxruntime's execution provider (the CPU one most often)"
    if names:
        return _operator_lacks(failure, op, names, where, Confidence.LOW)
    return explained(
        Kind.NO_KERNEL, failure,
        f"the ONNX operator {op} has no kernel in {where} for this graph's version of it: most often for the dtypes "
        "its inputs have here (float16, float64 or an integer type), sometimes for the opset it was exported with",
        "a model exported with inputs or weights in a dtype that operator lacks there: a 16-bit export, float64 "
        "numpy inputs or a `.double()` model, integer inputs to a float operator",
        f"look up {op}'s input types and opset in the graph (Netron, `onnx.load`), export in float32 "
        "(`model.float()` and float32 example inputs before `torch.onnx.export`) and feed float32 arrays, or run the "
        "float16 model on the CUDA execution provider",
        op=f"ONNX {op}", confidence=Confidence.LOW,
    )


def _operator_lacks(failure: Failure, op: str, names: tuple[str, ...], where: str,
                    confidence: Confidence = Confidence.HIGH) -> Explanation:
    return explained(
        Kind.NO_KERNEL, failure,
        f"the ONNX operator {op} has no {names[0]} version in {where}",
        f"a model exported or converted to {names[0]} whole, including an operator that only runs in float32 there",
        f"keep {op} in float32 when converting (`convert_float_to_float16(model, op_block_list=['{op}'])`), export "
        "with a newer opset, or run the float16 model on the CUDA execution provider (the float32 model on the CPU)",
        op=f"ONNX {op}", names=names, confidence=confidence,
    )


def _no_double(found: re.Match[str], failure: Failure) -> Explanation:
    op = found["op"]
    return explained(
        Kind.NO_KERNEL, failure,
        f"onnxruntime's {op} operator has no float64 (double) kernel",
        "a model exported in float64 (a `.double()` model, or float64 example inputs from numpy)",
        "export in float32: `model.float()` and float32 example inputs before `torch.onnx.export`, and feed the "
        "session float32 arrays (`x.astype(np.float32)`)",
        op=f"ONNX {op}", names=("f64",),
    )


def _no_onnx_type(found: re.Match[str], failure: Failure) -> Explanation | None:
    """The TorchScript ONNX exporter's ``ScalarType ComplexDouble is an unexpected tensor scalar type``: a tensor in
    the graph has a dtype it maps to no ONNX type (complex; bf16 in old torch)."""
    names = dtypes(found, "a")
    if not names:
        return None
    complex_data = is_complex(names[0])
    return explained(
        Kind.NO_KERNEL, failure,
        f"the ONNX exporter found {a(names[0])} tensor in the traced graph and has no ONNX type to write it as",
        "complex math in the model (an FFT, `torch.stft(return_complex=True)`, `torch.polar`, rotary embeddings "
        "computed with complex numbers)" if complex_data else f"a tensor left in {names[0]} (a buffer, a constant or "
        "the model itself) exported by a torch whose exporter does not map that dtype",
        "keep complex tensors out of the exported graph: compute with real and imaginary parts (`torch.view_as_real`, "
        "`torch.stft(..., return_complex=False)`), move the FFT outside the model, or try the dynamo exporter "
        "(`torch.onnx.export(..., dynamo=True)`)" if complex_data else "export with the model and inputs in float32 "
        "or float16 (`model.float()`), or update torch",
        op="torch.onnx.export", names=names,
    )


_onnx_without_fp8 = message_only(
    Kind.NO_KERNEL,
    "the installed `onnx` package has no fp8 element types (`TensorProto.FLOAT8E4M3FN` came with onnx 1.14), and a "
    "tool that uses them (onnxruntime's quantization, an exporter) looked one up",
    "an older onnx beside a newer onnxruntime or exporter (pinned by another package, or installed before it)",
    "update onnx to a version with fp8 types (`pip install -U onnx`, 1.14 or newer) alongside onnxruntime",
    op="onnx TensorProto", names=("float8_e4m3fn",),
)


_precision_free_cast = message_only(
    Kind.NO_KERNEL,
    "onnxruntime's CPU provider has few float16 kernels: it placed casts around the operators it can only run in "
    "float32 (the `InsertedPrecisionFreeCast` nodes), and one of those casts failed",
    "a model exported or built in float16 run on the CPU execution provider (float16 is a GPU format there: int4 and "
    "float32 models run on the CPU)",
    "on the CPU, build or export the model in float32 (or int4 for size), and keep the float16 model for the CUDA or "
    "DirectML execution provider",
    op="ONNX Runtime's CPU provider", names=("f16",), device="cpu",
)


def _parser_lacks_type(found: re.Match[str], failure: Failure) -> Explanation:
    """TensorRT's ONNX parser's ``Unsupported ONNX data type: UINT8``: an input or initializer of a type this TensorRT
    cannot build with."""
    names = dtypes(found, "a")
    shown = names[0] if names else found["a"]
    return explained(
        Kind.NO_KERNEL, failure,
        f"TensorRT's ONNX parser has no {shown} for what the model uses it for (an input, an initializer or a cast): "
        "this TensorRT cannot build the graph with that type",
        f"a model exported with {shown} tensors in its graph (an image input left as uint8, int64 or double "
        "constants, a cast to them) and built with a TensorRT version that lacks the type there",
        "export the model with float32 (or int32) in those places, doing the conversion outside the engine (feed "
        "`img.float()` and normalise before inference), or use a newer TensorRT that takes the type",
        op="TensorRT ONNX parser", names=names,
    )


RULES: tuple[Rule, ...] = (
    rule(r"\bInsertedPrecisionFreeCast_", _precision_free_cast),
    rule(r"Unsupported ONNX data type: (?P<a>UINT8|INT8|INT16|UINT16|DOUBLE|FLOAT16|BFLOAT16|BOOL)\b",
         _parser_lacks_type),
    rule(r"^[`'\"]?FLOAT8E(?:4M3FN|5M2)\b|has no attribute '?FLOAT8E(?:4M3FN|5M2)\b", _onnx_without_fp8),
    rule(r"\b(?P<op>\w{1,40}) operator does not support double yet", _no_double),
    rule(r"ScalarType (?P<a>\w{1,20}) is an unexpected tensor scalar type", _no_onnx_type),
    rule(r"Mismatched tensor element type:? source=(?P<a>\d{1,2}),? target=(?P<b>\d{1,2})", _inferred_element_types),
    rule(r"\(op_type:(?P<optype>\w{1,40}),\s*node name:\s*[^)\n]{0,200}\):\s*(?P<input>\w{1,30}) has inconsistent type "
         r"tensor\((?P<got>\w{1,20})\)", _inconsistent_input),
    rule(r"Data in initializer '(?P<name>[^'\n]{1,120})' has element type tensor\((?P<got>\w{1,20})\) but usage of "
         r"initializer in graph expects tensor\((?P<want>\w{1,20})\)", _initializer_type),
    rule(rf"(?:Type parameter )?\(\w{{1,20}}\)(?: of Optype \((?P<optype>\w{{1,40}})\))? ?bound to different types"
         rf"(?: {_BOUND_TYPES})?|Type Error: Type parameter \(\w{{1,20}}\)\s*$", _type_parameter),
    rule(rf"Type \(tensor\((?P<got>\w{{1,20}})\)\) of output arg \((?P<arg>{_NODE})\) of node "
         rf"\((?P<node>{_NODE})?\) does not match expected type \(tensor\((?P<want>\w{{1,20}})\)\)", _output_type),
    rule(r"while running (?P<node>\w{1,40}) node\b[^\n]{0,400}?\bInteger overflow\b", _integer_overflow),
    rule(r"Unexpected input data type\.?\s*Actual:\s*\(tensor\((?P<got>\w{1,20})\)\)\s*,\s*expected:\s*"
         r"\(tensor\((?P<want>\w{1,20})\)\)", _input_type),
    rule(r"Type '?tensor\((?P<a>\w{1,20})\)'? of input parameter \([^)\n]{1,200}\) of operator \((?P<op>\w{1,40})\)"
         r"[^\n]{0,300}?is invalid", _invalid_input_type),
    rule(r"Got value of type (?P<got>[A-Z]{3,8}\d{1,2}) but expected type (?P<want>[A-Z]{3,8}\d{1,2}) for input "
         r"(?P<index>\d{1,3})", _tflite_input),
    rule(r"Could not find an implementation for (?P<op>\w{1,40})\(\d{1,3}\) node|Failed to find kernel for "
         r"(?P<op2>\w{1,40})\b", _no_implementation),
)
