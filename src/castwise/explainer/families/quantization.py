"""Quantization: torch.ao's quantized tensors in float ops, float tensors in quantized ops, quantization's own ops,
and adapters merged into a library's quantized model.

A converted (int8) model carries quantized tensors (``QUInt8``) between its layers: one reaching a float
op was not dequantized, and a float one reaching a quantized op was not quantized. The ops that make
quantized tensors (``quantize_per_channel``, observers, fake-quant in QAT, fp16 dynamic quantization's
linear) compute in fp32 only: a model cast to bf16/fp16 before or after being prepared gives them 16-bit
tensors, and zero points must be int32. Quantized convolutions and linears take quint8 activations and qint8
weights, and quantized tensors exist only in the quantized dtypes; tracing with fake tensors supports none.
"""

from __future__ import annotations

import re

from castwise.explainer.clues import CONV, MATMUL, Op, first_shown, low_precision_said
from castwise.explainer.explanation import Confidence, Explanation, Kind
from castwise.explainer.failures import Failure
from castwise.explainer.rules import Rule, dtype_read, dtypes, explained, message_only, rule

QUANTIZED_DTYPE = re.compile(r"\bQU?Int(?:8|32)\b|\bq(?:u)?int(?:8|32)\b")
"""torch.ao's quantized dtypes as messages print them (``QUInt8``, ``torch.qint8``)."""

QUANTIZATION_OP = Op("a torch.ao quantization op", re.compile(
    r"[/\\]torch[/\\]ao[/\\](?:quantization|nn[/\\](?:quantized|qat|intrinsic))[/\\]|fake_quant|"
    r"\bquantized\.\w+\(|\bquantize_per_(?:tensor|channel)\(", re.IGNORECASE))
"""Frames of torch.ao's observers, fake-quant and quantized modules (``torch.ops.quantized.linear_dynamic_fp16``)."""

_DEQUANTIZE = (
    "dequantize before that op: a `DeQuantStub` in the model (converted with it), or `x.dequantize()`; use "
    "`torch.ao.nn.quantized.FloatFunctional` for additions and concatenations of quantized tensors, and make sure "
    "every module the forward runs was converted (or left float on purpose)"
)


def _not_dequantized(kind: Kind, failure: Failure, cause: str, op: str, names: tuple[str, ...]) -> Explanation:
    """A quantized tensor that reached a float op (``cause`` says which): it was not dequantized."""
    return explained(
        kind, failure, cause,
        "a quantized model (after `torch.ao.quantization.convert`) whose forward runs a float op on a quantized "
        "tensor: a missing `DeQuantStub`, a `+`/`torch.cat` on quantized tensors, or a layer left out of the "
        "conversion (a head added later, a layer whose qconfig is None)",
        _DEQUANTIZE, op=op, names=names,
    )


def quantized_activation(failure: Failure, kind: Kind, names: tuple[str, ...], op: str) -> Explanation:
    """A quantized tensor (``QUInt8``) beside a float one in ``op`` (a plain Linear): it was not dequantized."""
    return _not_dequantized(
        kind, failure, f"{op} got a quantized tensor (torch.ao's quint8/qint8) beside a float one: quantized tensors "
        "go only into quantized layers", op, names,
    )


def _quantized_backend(found: re.Match[str], failure: Failure) -> Explanation:
    """``Could not run 'aten::x' with arguments from the 'QuantizedCPU' backend``: a float-only op got a quantized
    tensor."""
    op = found["op"]
    return _not_dequantized(
        Kind.NO_KERNEL, failure, f"`{op}` has no kernel for quantized (int8) tensors: a quantized tensor reached an op "
        "that only takes floats", op, ("int8",),
    )


def _float_into_quantized(found: re.Match[str], failure: Failure) -> Explanation:
    """``Could not run 'quantized::linear' with arguments from the 'CPU' backend``: a float tensor reached an op of a
    converted (quantized) model."""
    op = found["op"]
    return explained(
        Kind.NO_KERNEL, failure,
        f"`{op}` takes quantized tensors and got a plain float one: the input was not quantized before a layer of a "
        "converted (int8) model",
        "a model converted with `torch.ao.quantization.convert` whose forward has no `QuantStub` before its first "
        "quantized layer, or a float tensor fed past it (a skip connection, a layer added after conversion)",
        "quantize the input first: a `QuantStub` at the start of `forward` (prepared and converted with the model), or "
        "`torch.quantize_per_tensor(x, scale, zero_point, torch.quint8)`; dequantize again before float ops",
        op=op, names=(),
    )


def fp32_only(failure: Failure, names: tuple[str, ...], op: str) -> Explanation:
    """A quantization op (an observer, fake-quant, a quantize call, an fp16 dynamic-quantized linear) given the
    16-bit ``names[-1]``: they compute in fp32 only."""
    dtype = names[-1] if names else "16-bit"
    return explained(
        Kind.NO_KERNEL, failure,
        f"{op} got {dtype} tensors, and torch.ao's quantization ops (observers, fake-quant, `quantize_per_*`, "
        "dynamic-quantized layers, even the fp16 one) compute in fp32 only",
        "a model prepared for quantization (QAT, observers) or dynamically quantized and then cast to 16-bit, fed "
        "16-bit activations, or 16-bit (bf16/fp16) weights quantized straight from a low-precision checkpoint",
        "give quantization fp32: keep the prepared or quantized model in fp32 (no `.half()`/`.to(torch.bfloat16)` "
        "on it) and feed it `x.float()`; quantize weights from `w.float()`; cast to 16-bit only the float parts "
        "outside it",
        op=op, names=names[-1:],
    )


def shown_quantization(failure: Failure, names: tuple[str, ...]) -> Explanation | None:
    """``fp32_only`` when the innermost frames show a quantization op, else None."""
    return fp32_only(failure, names, QUANTIZATION_OP.name) if first_shown(failure, QUANTIZATION_OP) else None


def _quantized_on_cuda(found: re.Match[str], failure: Failure) -> Explanation:
    """``getCudnnDataTypeFromScalarType() not supported for QUInt8``: a torch.ao quantized tensor sent to cuDNN."""
    del found
    return _cpu_only_quantized(failure, "cuDNN", "cuda")


def _quantized_op_on_device(found: re.Match[str], failure: Failure) -> Explanation:
    """``The operator 'quantized::linear_dynamic' is not currently implemented for the XPU device``."""
    return _cpu_only_quantized(failure, found["op"], found["device"].lower())


def _cpu_only_quantized(failure: Failure, op: str, device: str) -> Explanation:
    """A torch.ao quantized tensor (quint8/qint8) or quantized op on a GPU ``device``: its kernels are the CPU's."""
    shown = "CUDA" if device == "cuda" else device.upper()
    return explained(
        Kind.NO_KERNEL, failure,
        f"a torch.ao quantized (quint8/qint8) model reached `{op}` on {shown}: torch.ao's quantized ops (those "
        f"`quantize_dynamic` and `torch.ao.quantization` use) are CPU kernels (fbgemm, qnnpack, x86), with none for "
        f"{shown}",
        f"a model quantized with torch.ao (dynamic, eager or FX graph mode) moved to or run on {shown} (`.to(...)`, "
        "GPU weights or inputs)",
        "run the quantized model on the CPU (`model.cpu()` and CPU inputs); for a quantized model on a GPU, use a "
        "library that quantizes for it (torchao's int8/int4/fp8 configs, bitsandbytes) or export it to a GPU runtime "
        "(TensorRT)",
        op=op, names=("int8",), device=device,
    )


def _float_only_quantize(found: re.Match[str], failure: Failure) -> Explanation:
    """``quantize_tensor_per_channel_affine expects a Float Tensor, got BFloat16`` (older torch: ``quantize only works
    on Float Tensor.``, the 16-bit dtype then the one the paste names)."""
    return fp32_only(failure, dtypes(found, "dtype") or low_precision_said(failure)[:1], f"`{found['op']}`")


_quantized_unimplemented = message_only(
    Kind.NO_KERNEL,
    "an op got a quantized (int8) tensor and has no QuantizedCPU kernel: in a converted torch.ao model, float-only "
    "ops (arithmetic with `+`/`*`, `torch.cat`, some activations and norms) need their quantized forms",
    "a model converted with `torch.ao.quantization.convert` whose forward adds, multiplies or concatenates quantized "
    "tensors with plain operators, or runs an op with no quantized kernel between QuantStub and DeQuantStub",
    "replace the arithmetic with `torch.ao.nn.quantized.FloatFunctional` (`self.add = FloatFunctional()`, then "
    "`self.add.add(x, y)`), or put a `DeQuantStub` before the float-only op and a `QuantStub` after it",
    op="a quantized tensor in a float op", names=("int8",),
)


def _no_quantized_engine(found: re.Match[str], failure: Failure) -> Explanation:
    """``Didn't find engine for operation quantized::linear_prepack NoQEngine``: no quantized engine selected (none
    available on this CPU, such as fbgemm on ARM)."""
    op = found["op"]
    return explained(
        Kind.NO_KERNEL, failure,
        f"`{op}` found no quantized engine to run on: `torch.backends.quantized.engine` is unset (NoQEngine), as it is "
        "where the default engine (fbgemm, x86) is not available, such as on ARM and Apple silicon",
        "a torch.ao quantized model (dynamic or static quantization) run on a machine whose torch has no default "
        "quantized engine",
        "select one that this torch has before quantizing and running: `torch.backends.quantized.engine = 'qnnpack'` "
        "(ARM, mobile) or `'x86'`/`'fbgemm'` on x86 (`torch.backends.quantized.supported_engines` lists them)",
        op=op, names=("int8",),
    )


def _engine_input_type(found: re.Match[str], failure: Failure) -> Explanation:
    """``quantized::conv2d_relu (ONEDNN): data type of input should be QUint.``: activations quantized for another
    engine (qint8, as qnnpack's symmetric configs make them) run on one that takes quint8."""
    op, engine = found["op"], found["engine"].lower()
    return explained(
        Kind.NO_KERNEL, failure,
        f"`{op}` on the {engine} engine takes quint8 activations and got another quantized dtype: the model was "
        "prepared with a qconfig for another engine (qnnpack's symmetric qint8, say)",
        "a model quantized with one engine's qconfig (a qnnpack or symmetric qint8 config, from a tutorial or mobile "
        f"code) and run with `torch.backends.quantized.engine = '{engine}'`, or the reverse",
        f"prepare and convert with the qconfig of the engine you run (`get_default_qconfig_mapping('{engine}')`), or "
        "run with the engine the model was prepared for (`torch.backends.quantized.engine = 'qnnpack'`)",
        op=op, names=("uint8",),
    )


def _zero_point(found: re.Match[str], failure: Failure) -> Explanation:
    """``Zero-point must be Int32, Float or Half, found Long``: zero points rounded with ``.long()``."""
    names, shown = dtype_read(found, "dtype")
    return explained(
        Kind.INTEGER_OPERAND, failure,
        f"fake-quant's zero points must be int32 (or floating) and got {shown}",
        "zero points computed by hand and rounded with `.round().long()` (or built with `torch.tensor([...])`, which "
        "makes int64)",
        "make the zero points int32: `zero_point.to(torch.int32)` (`.int()`), or take scale and zero point from an "
        "observer's `calculate_qparams()`",
        op="fake_quantize_per_channel_affine", names=names,
    )


def _scale(found: re.Match[str], failure: Failure) -> Explanation:
    """``Scale must be Float or BFloat16, found Double``: fake-quant's scales computed in another dtype."""
    names, shown = dtype_read(found, "dtype")
    made = (
        "scales computed from numpy statistics (numpy makes float64: `np.zeros`, `np.abs(...).max()`) or from a "
        "float64 tensor" if names == ("f64",) else "scales computed from 16-bit weights or activations and kept in "
        "their dtype"
    )
    return explained(
        Kind.OP_DTYPE, failure, f"fake-quant's scales must be float32 (or bf16) and got {shown}", made,
        "make the scales float32: `scale.float()` (`array.astype(np.float32)` before `torch.from_numpy`), or take "
        "scale and zero point from an observer's `calculate_qparams()`",
        op="fake-quant (`fake_quantize_per_*_affine`)", names=names,
    )


_merge_into_quantized = message_only(
    Kind.NO_KERNEL,
    "LoRA weights cannot be merged into a quantized model: its weights are packed integers (GPTQ, AWQ, 4/8-bit), "
    "and adding the adapter's 16-bit update to them would need dequantizing and quantizing again",
    "`merge_and_unload()` (or a trainer's export step) on an adapter trained on a quantized base model",
    "load the base model unquantized (fp16/bf16 `torch_dtype`), attach the adapter, merge there, then quantize the "
    "merged model again if you need it quantized; or serve the adapter unmerged",
    op="LoRA merge into a quantized model",
)


def _packed_weight_type(found: re.Match[str], failure: Failure) -> Explanation:
    """A quantized kernel's check that its packed input has one integer dtype (``b_q_weight type is not kInt``)."""
    names, dtype = dtype_read(found, "dtype")
    return explained(
        Kind.SCALAR_TYPE, failure,
        f"a quantized kernel's check failed: `{found['name']}` must be {dtype} (how the format packs its weights) and "
        "is not",
        "a quantized checkpoint's packed tensors (`qweight`, `b_q_weight`) loaded or converted into another dtype (a "
        "state dict saved after a cast, a loader that is not the library's own), or a checkpoint packed for another "
        "kernel than the one chosen",
        "load the checkpoint with the quantization library's own loader and do not convert the model afterwards; if "
        "it still fails, update the library (its kernels and packing change between versions) or choose another "
        "backend for the format",
        op="a quantized kernel", names=names, confidence=Confidence.LOW,
    )


_torchao_linear_missing = message_only(
    Kind.NO_KERNEL,
    "torchao has no kernel for this quantized Linear: no implementation matches its weight layout, its activation "
    "dtype (int8 activations, bf16/fp16 inputs) and the device",
    "a quantization config (e.g. `Int8DynamicActivationInt4WeightConfig`) applied on a device or with an input dtype "
    "its kernels do not cover, or a torchao too old for that combination",
    "use a config whose kernel the device and dtype have (torchao's table of supported configs; "
    "`Int4WeightOnlyConfig` with bf16 inputs on CUDA, for instance), or update torchao and torch together",
    op="torchao quantized linear",
)


def _subclass_op_missing(found: re.Match[str], failure: Failure) -> Explanation:
    """torchao's ``AffineQuantizedTensor dispatch: attempting to run unimplemented operator/function: aten.permute``:
    a quantized weight (a tensor subclass) reached an op its class does not implement."""
    op = found["op"]
    return explained(
        Kind.NO_KERNEL, failure,
        f"a torchao quantized tensor ({found['cls']}) reached `{op}`, which its class does not implement: quantized "
        "weights support only the ops their kernels need (mostly linear and a few views)",
        f"code that handles a quantized weight like an ordinary tensor (`{op}` on `layer.weight`: a transpose or "
        "permute in a custom forward, a LoRA or export step, `torch.compile` of a path the subclass lacks), or a "
        "torchao older than the one the code was written for",
        "update torchao (and torch with it); quantize after the step that touches the weight, or leave that layer "
        "out of quantization (the config's `filter_fn`), or dequantize it first",
        op=f"torchao {found['cls']}", names=(), confidence=Confidence.LOW,
    )


_bnb_4bit_type = message_only(
    Kind.NO_KERNEL,
    "bitsandbytes' 4-bit quantization has two data types, `nf4` and `fp4`: the one asked for is not one of them",
    "`bnb_4bit_quant_type` (or a loader's 4-bit option) set to another name, often `int4` from a model card meant for "
    "AWQ or GPTQ weights",
    "set `bnb_4bit_quant_type='nf4'` (or `'fp4'`); for int4 weights load an AWQ or GPTQ checkpoint with its own "
    "loader instead of bitsandbytes",
    op="bitsandbytes 4-bit quantization",
)


_cast_after_quantizing = message_only(
    Kind.SCALAR_TYPE,
    "a quantized model cannot be converted to another dtype after loading (`.to(torch.float16)`, `.half()`): its "
    "packed integer weights and their scales would be corrupted, so the library refuses",
    "a model loaded quantized (bitsandbytes 4/8-bit, GGUF, torchao, quanto) then cast as a whole, often by an app "
    "or pipeline that converts every component to one dtype",
    "give the dtype when loading (`torch_dtype=` in `from_pretrained`/`from_single_file`, which sets the unquantized "
    "layers' dtype) and move the model only with `.to(device)`; in an app, turn off its dtype cast for quantized "
    "models or load an unquantized checkpoint",
    op="casting a quantized model",
)


def _int4_activations(found: re.Match[str], failure: Failure) -> Explanation:
    """``_weight_int4pack_mm_cpu : expect A to be float16 or bfloat16 tensor``: torch's int4 weight-only matmul given
    activations of another dtype (float32)."""
    op = found["op"]
    return explained(
        Kind.NO_KERNEL, failure,
        f"torch's int4 weight-only matmul (`{op}`) takes its activations in {found['listed']} only, and got another "
        "dtype (float32 most often)",
        "a model quantized to int4 weight-only (torchao's `Int4WeightOnlyConfig`, gpt-fast's int4) run with float32 "
        "activations: the model or its inputs were left in fp32",
        "run the quantized model in bf16 (convert it with `model.to(torch.bfloat16)` before quantizing, and feed bf16 "
        "inputs); update torch and torchao, whose int4 CPU path changed across releases",
        op=op,
    )


def quantized_pair(failure: Failure, names: tuple[str, ...], op: Op | None) -> Explanation:
    """Two quantized dtypes a torch.ao op does not take together (``expected scalar type QInt8 but found QUInt8``,
    ``expected activation data type QUInt8 but got QInt8``): activations are quint8 and weights qint8."""
    kind = {CONV: Kind.CONV_WEIGHT, MATMUL: Kind.MATMUL}.get(op, Kind.SCALAR_TYPE) if op else Kind.SCALAR_TYPE
    return explained(
        kind, failure,
        f"a quantized op ({op.name if op else 'torch.ao'}) expected {names[0]} and got {names[1]}: torch.ao's "
        "quantized convolutions and linears take quint8 activations and qint8 weights" if len(names) == 2 else
        "a quantized op got a quantized dtype it does not take",
        "weights quantized as quint8 (one `dtype` used for inputs and weights in `quantize_per_tensor`), or a qconfig "
        "whose observers make qint8 activations (qnnpack's symmetric configs) on an engine that takes quint8",
        "quantize weights to torch.qint8 and activations to torch.quint8 (`quantize_per_tensor(w, s, z, "
        "torch.qint8)`), or prepare the model with the engine's default qconfig "
        "(`get_default_qconfig('x86')`/`'qnnpack'`)",
        op=op.name if op else "a quantized op", names=names,
    )


_not_a_quantized_dtype = message_only(
    Kind.NO_KERNEL,
    "a quantized tensor was asked for with a dtype that is not a quantized one: quantized tensors are made only as "
    "qint8, quint8, qint32 or quint4x2, never as int8/uint8",
    "`quantize_per_tensor` / `_empty_affine_quantized` (or a binding's equivalent, tch's `Kind`) given torch.int8 or "
    "torch.uint8 where torch.qint8 or torch.quint8 is meant",
    "pass a quantized dtype: torch.qint8 for weights, torch.quint8 for activations (in tch, `Kind::QInt8`/"
    "`Kind::QUInt8`)",
    op="new_qtensor",
)


_quantized_fake = message_only(
    Kind.NO_KERNEL,
    "torch.compile / torch.export traced a torch.ao quantized tensor, which fake-tensor propagation does not support "
    "(\"quantized nyi in meta tensors\")",
    "a model converted with eager or FX quantization (quint8/qint8 tensors between its layers) passed to "
    "`torch.export` or `torch.compile`",
    "export the float model and quantize it with the PT2E flow (`prepare_pt2e`/`convert_pt2e` with a quantizer for "
    "the backend, XNNPACKQuantizer for ExecuTorch), or run the eager-quantized model without compiling it",
    op="fake tensor propagation",
)


def _quantized_data_type(found: re.Match[str], failure: Failure) -> Explanation:
    return quantized_pair(failure, dtypes(found, "a", "b"), None)


_no_int8_matmul = message_only(
    Kind.NO_KERNEL,
    "bitsandbytes found no int8 matrix multiply for this GPU: its LLM.int8() kernels (igemmlt) need int8 tensor "
    "cores (Turing and newer, compute capability 7.5+), or the build it loaded lacks them",
    "`load_in_8bit=True` (8-bit quantization) on an older card (Pascal P40/P100, Maxwell M40, GTX 10xx), or a "
    "bitsandbytes build without the matmul kernels for this CUDA version",
    "use 4-bit loading (`load_in_4bit=True`, which dequantizes to fp16/fp32 for the matmul) or plain fp16 on this GPU; "
    "update bitsandbytes (newer releases fall back to dequantized matmuls on older GPUs) and check it loaded the "
    "CUDA build (`python -m bitsandbytes`)",
    op="bitsandbytes int8 matmul", names=("int8",), device="cuda",
)


_fp8_moe_scales = message_only(
    Kind.NO_KERNEL,
    "this fused MoE kernel runs fp8 only with one scale per tensor, and the checkpoint was quantized with another "
    "scheme (per-channel or per-group scales)",
    "an fp8 checkpoint made with per-channel (`strategy='channel'`) or block scales, served on a backend whose fp8 "
    "MoE path (often the ROCm one) takes only per-tensor scales",
    "use an fp8 checkpoint quantized per tensor for this backend, or a backend and release whose fused MoE takes "
    "per-channel scales (update the serving engine), or serve the bf16 weights",
    op="fp8 fused MoE", names=("float8_e4m3fn",),
)


_embedding_qconfig = message_only(
    Kind.NO_KERNEL,
    "torch.ao's dynamic or static int8 quantization has no kernel for `nn.Embedding`: embeddings are quantized only "
    "weight-only, with float scale and zero point per row",
    "`torch.quantization.quantize_dynamic`/`prepare` given a whole model (its embeddings included) with the default "
    "qconfig",
    "leave the embeddings out (`quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8)`), or give them "
    "`float_qparams_weight_only_qconfig` (`model.embeddings.word_embeddings.qconfig = "
    "torch.ao.quantization.float_qparams_weight_only_qconfig`)",
    op="nn.Embedding quantization",
)


def _no_quantized_kernel(found: re.Match[str], failure: Failure) -> Explanation:
    """``empty not implemented for TensorTypeSet(VariableTensorId, QuantizedCPUTensorId)``: an op with no kernel for
    quantized tensors reached by one."""
    op = found["op"]
    return explained(
        Kind.NO_KERNEL, failure,
        f"`{op}` has no kernel for quantized tensors, and a quantized tensor reached it",
        "a quantized model whose float part (an op or a module left unquantized) gets quantized activations: a "
        "missing `DeQuantStub` before it, or an op called on a quantized weight",
        f"dequantize before `{op}` (`x.dequantize()`, or a `DeQuantStub`/`QuantStub` pair around the float part), or "
        "replace the op with a quantized one (`torch.ao.nn.quantized.FloatFunctional` for add, mul, cat)",
        op=op,
    )


_unknown_quantized_type_id = message_only(
    Kind.NO_KERNEL,
    "this (old) torch met a quantized tensor where its code knows no quantized type: an op or a conversion (to "
    "another device, a copy, a view) that had no quantized path then",
    "a quantized tensor (`quint8`/`qint8`, from `torch.quantize_per_tensor` or a quantized model) passed to an op "
    "or a call that takes only float tensors",
    "dequantize before that call (`x.dequantize()`), or update torch, whose later releases give quantized tensors "
    "those paths",
    op="a quantized tensor", names=("quint8",), confidence=Confidence.LOW,
)


_int8_arch = message_only(
    Kind.NO_KERNEL,
    "the serving engine's int8 activation-and-weight kernels (W8A8 scaled matmul) have no path for this GPU's "
    "architecture: the checkpoint is quantized to int8 and the engine cannot run int8 matmuls here",
    "an int8 W8A8 checkpoint (llm-compressor's, SmoothQuant's) served on a GPU whose architecture the engine's "
    "int8 CUTLASS kernels do not cover (the newest architectures in releases that raise this, or too old a one)",
    "serve a checkpoint quantized another way on this GPU (fp8 W8A8, or weight-only int4/int8 such as GPTQ or AWQ), "
    "run the int8 one on a GPU the engine lists for int8, or update the engine if a newer release adds the kernel",
    op="int8 scaled matmul", names=("int8",),
)


RULES: tuple[Rule, ...] = (
    rule(r"\bInt8 not supported (?:for|on) this architecture", _int8_arch),
    rule(r"Unknown TensorTypeId: Quantized\w{0,10}TensorId", _unknown_quantized_type_id),
    rule(r"\b(?P<op>\w{1,40}) not implemented for TensorTypeSet\([^)\n]{0,120}\bQuantized\w{0,10}TensorId",
         _no_quantized_kernel),
    rule(r"Embedding quantization is only supported with float_qparams_weight_only_qconfig", _embedding_qconfig),
    rule(r"Your GPU does not support Int8 Matmul", _no_int8_matmul),
    rule(r"For FP8 Fused MoE layers,? only per-tensor scales for weights and activations are supported",
         _fp8_moe_scales),
    rule(r"\bQuantizedLinearNotImplementedError\b", _torchao_linear_missing),
    rule(r"Casting a quantized model to a new `?dtype`? is unsupported", _cast_after_quantizing),
    rule(r"\b(?P<cls>\w{1,40}Tensor) dispatch: attempting to run unimplemented operator/function: "
         r"(?P<op>aten\.\w{1,60}(?:\.\w{1,20})?)", _subclass_op_missing),
    rule(r"4-bit quantization data type \w{1,20} is not implemented", _bnb_4bit_type),
    rule(r"(?P<op>_weight_int4pack_mm\w{0,20}) ?: expect A to be "
         r"(?P<listed>(?:float16|bfloat16|float32|,| |or){3,40}?) tensor", _int4_activations),
    rule(r"The operator '(?P<op>quantized::\w{1,60})' is not currently implemented for the (?P<device>\w{1,10}) "
         r"device", _quantized_op_on_device),
    rule(r"Could not run '(?P<op>(?:aten|prepacked)::[\w.]{1,60})' with arguments from the 'Quantized\w{0,20}' backend",
         _quantized_backend),
    rule(r"Could not run '(?P<op>quantized::[\w.]{1,60})' with arguments from the '(?:CPU|CUDA|Meta|CPUTensorId|"
         r"CUDATensorId|UNKNOWN_TENSOR_TYPE_ID)' backend", _float_into_quantized),
    rule(r"Unimplemented backend QuantizedCPU", _quantized_unimplemented),
    rule(r"Didn't find engine for operation (?P<op>quantized::\w{1,60}) NoQEngine", _no_quantized_engine),
    rule(r"(?P<op>quantized::\w{1,60}) \((?P<engine>ONEDNN|FBGEMM|QNNPACK|X86)\): data type of input should be "
         r"QU?Int", _engine_input_type),
    rule(r"\b(?P<op>quantize_tensor_per_\w{1,40}) expects a Float Tensor,? got (?P<dtype>{DTYPE})",
         _float_only_quantize),
    rule(r"\b(?P<op>[Qq]uantize) only works on Float Tensors?(?:,? got (?P<dtype>{DTYPE}))?", _float_only_quantize),
    rule(r"getCudnnDataTypeFromScalarType\(\) not supported for Q(?:U)?Int8", _quantized_on_cuda),
    rule(r"\bZero-point must be Int32, Float or Half, found (?P<dtype>{DTYPE})", _zero_point),
    rule(r"\bScale must be Float or BFloat16, found (?P<dtype>{DTYPE})", _scale),
    rule(r"Cannot merge LORA layers when the model is (?:(?:gptq|awq|\w{1,20}) quantized|loaded in [48]-?bit mode)",
         _merge_into_quantized),
    rule(r"\b(?P<name>[a-z]\w{1,40}) (?:type|dtype) is not k(?P<dtype>Int|Long|Char|Byte)\b", _packed_weight_type),
    rule(r"expected (?:activation|weight) data type (?P<a>Q\w{3,6}) but got (?P<b>Q\w{3,6})", _quantized_data_type),
    rule(r"ScalarType is not supported in new_qtensor", _not_a_quantized_dtype),
    rule(r"quantized nyi in meta tensors", _quantized_fake),
)
