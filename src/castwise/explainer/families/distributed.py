"""torch.distributed: collectives, DDP, FSDP and ZeRO refusing the dtypes they are handed.

A collective writes into buffers the caller allocated, so an output of another dtype than its input is
refused (c10d: ``Invalid usage of tensors with different dtypes``; gloo: ``invalid tensor type``;
DeepSpeed: ``output tensor must have the same type as input tensor``); gloo, the CPU backend, moves only
the dtypes its type list has (``Invalid scalar type``: no fp8, no uint16, no bf16 in older builds); bitwise
reductions take integers; ZeroRedundancyOptimizer shards one dense dtype; FSDP refuses parameters still on
the meta device. These read as the mismatch, the missing support or the device problem they are.
"""

from __future__ import annotations

import re

from castwise.explainer.advice import dtype_list
from castwise.explainer.clues import Op, held_dtypes, low_precision_said, paste_search, shows
from castwise.explainer.explanation import Confidence, Explanation, Kind
from castwise.explainer.failures import Failure
from castwise.explainer.rules import Rule, dtype_read, dtypes, explained, message_only, rule
from castwise.explainer.spelling import full_name, is_fp8, short_dtypes

DISTRIBUTED = Op("torch.distributed", re.compile(r"[/\\]torch[/\\]distributed[/\\]|\bdist\.\w+\(", re.IGNORECASE))
"""Frames of torch.distributed (c10d's collectives, DDP, FSDP, ZeRO) or code calling it (``dist.all_gather(...)``)."""

_GLOO_OR_HOOK = re.compile(r"\bgloo\b|Got the following error when running the callback", re.IGNORECASE)
"""gloo named, or the wording c10d wraps a DDP communication hook's error in."""

_BUFFERS = (
    "make every buffer a collective writes into the dtype of what is sent: allocate outputs from the input "
    "(`torch.empty_like(x)`, `x.new_empty(...)`), and cast after the collective if another dtype is wanted; in a "
    "framework, make its precision settings agree (DeepSpeed's `bf16`/`fp16` keys spelled as it expects and on)"
)


def _buffers(failure: Failure, names: tuple[str, ...], confidence: Confidence = Confidence.HIGH) -> Explanation:
    """A collective whose output buffers and input are of different dtypes (``names``, when shown)."""
    return explained(
        Kind.SCALAR_TYPE, failure,
        "a torch.distributed collective (all_gather, all_gather_into_tensor, reduce_scatter, all_to_all) got its "
        f"output buffers and its input in different dtypes{f' ({dtype_list(names)})' if names else ''}; it copies "
        "without converting",
        "output buffers allocated with the default dtype (`torch.zeros(n)` is fp32) for tensors a 16-bit model made, "
        "or integer predictions and counts gathered into float buffers; ranks or buffers a precision switch did not "
        "reach",
        _BUFFERS, op="torch.distributed collective", names=names, confidence=confidence,
    )


def _collective_pair(found: re.Match[str], failure: Failure) -> Explanation:
    """c10d's ``Invalid usage of tensors with different dtypes Found torch.int64 and torch.float32``, or gloo's
    ``ProcessGroupGloo::allgather: invalid tensor type at index 0 (expected TensorOptions(dtype=A...), got
    TensorOptions(dtype=B...))``."""
    return _buffers(failure, dtypes(found, "a", "b"))


def _ranks_disagree(found: re.Match[str], failure: Failure) -> Explanation | None:
    """``Detected mismatch between collectives on ranks. Rank 7 is running collective: ... TensorDtypes=BFloat16 ...,
    but Rank 4 is running collective: ... TensorDtypes=Float``: ranks that run one collective in two dtypes; declined
    when the two fingerprints show one dtype (the mismatch is elsewhere: shapes, order)."""
    names = tuple(dict.fromkeys(dtypes(found, "a", "b")))
    if len(names) != 2:
        return None
    return explained(
        Kind.SCALAR_TYPE, failure,
        f"two ranks ran the same collective on tensors of different dtypes ({dtype_list(names)}); every rank must "
        "send the same dtype",
        "ranks whose models or buffers were converted differently: one rank's module or tensor left fp32 (loaded "
        "before the cast, created on one rank only, or cast by a rank-dependent code path) while the others run in "
        "16-bit",
        f"convert on every rank the same way before the collective (`t.to(torch.{full_name(names[0])})`), and build "
        "the model and its wrappers (DeepSpeed, FSDP) with one precision setting on all ranks",
        op="torch.distributed collective", names=names,
    )


_collective_types = message_only(
    Kind.SCALAR_TYPE,
    "a collective (all_gather, reduce_scatter) got its output and input tensors in different dtypes",
    "ranks or buffers that disagree on the dtype: a model or its gradients in bf16/fp16 while the communication "
    "buffers stayed fp32 (a precision switch that did not take, such as a misspelled `bf16` key in a DeepSpeed "
    "config), or one rank converted and another not",
    "make the precision settings agree (check the config's `bf16`/`fp16` keys are spelled as the library expects and "
    "are on); allocate the output with the input's dtype (`torch.empty_like(x)`)",
    op="torch.distributed collective", confidence=Confidence.LOW,
)


def _unsupported_by_gloo(found: re.Match[str], failure: Failure) -> Explanation:
    """gloo's ``Invalid scalar type`` (its type list lacks the dtype), when the paste names gloo or a DDP hook's error
    or the frames are torch.distributed's; the dtype is the one the paste names or the failing frame held."""
    del found
    if not (paste_search(failure, _GLOO_OR_HOOK) or shows(failure, DISTRIBUTED, everywhere=True)):
        return _type_list_lacks(failure)
    unusual = sorted(name for name in held_dtypes(failure) if is_fp8(name) or name in ("uint16", "uint32", "uint64"))
    names = low_precision_said(failure)[:1] or tuple(unusual[:1])
    dtype = names[0] if names else "this dtype"
    return explained(
        Kind.NO_KERNEL, failure,
        f"the gloo backend of torch.distributed has no {dtype} in the types its collectives (all_reduce, broadcast, "
        "all_gather) handle, so it refuses the tensor (\"Invalid scalar type\")",
        f"a collective on {dtype} tensors run with `backend='gloo'` (the CPU backend, or a build without NCCL): fp8 "
        "weights or gradients (DDP syncs parameters when it wraps a model, and every bucket after backward), a "
        "communication hook that compresses to fp8, unsigned 16-bit token ids, or bf16 on an older gloo",
        "send a dtype gloo has: cast to float32 (or bf16/fp16) for the collective and back (`t32 = t.float(); "
        "dist.all_reduce(t32); t.copy_(t32)`), int32/int64 for ids; keep fp8 weights out of DDP's buckets (wrap the "
        "model in bf16 and quantize after); on GPUs use NCCL (`init_process_group('nccl')`)",
        op="gloo collective", names=names, confidence=Confidence.LOW if not names else Confidence.HIGH,
    )


def _unsupported_by_nccl(found: re.Match[str], failure: Failure) -> Explanation:
    """NCCL's ``Unsupported data type for NCCL process group``: a dtype outside NCCL's list, named by the paste."""
    del found
    said = paste_search(failure, _NCCL_LACKS)
    names = short_dtypes((said["dtype"],)) if said else ()
    dtype = names[0] if names else "this dtype"
    return explained(
        Kind.NO_KERNEL, failure,
        f"NCCL has no {dtype} among the types its collectives handle (int8, uint8, int32, int64, fp16, bf16, fp32, "
        "fp64, and fp8 in recent versions), so the process group refuses the tensor",
        f"a collective (all_gather, all_reduce, broadcast) on {dtype} tensors: int16 or unsigned ids, bool flags or "
        "masks, complex values",
        "send a dtype NCCL has and convert back after: int32/int64 for integers and flags (`t.int()`), a real view "
        "for complex tensors (`torch.view_as_real(t)`)",
        op="NCCL collective", names=names, device="cuda",
    )


_NCCL_LACKS = re.compile(r"\btorch\.(?P<dtype>int16|short|uint16|uint32|uint64|bool|complex64|complex128|cfloat|"
                         r"cdouble)\b")
"""A dtype outside NCCL's list, as a paste names it (``dtype=torch.int16``)."""


def _type_list_lacks(failure: Failure) -> Explanation:
    """``Invalid scalar type`` with no sign of gloo: a C++ kernel or backend whose list of dtypes lacks the tensor's;
    gloo (model-parallel layers gather through it on CPU) is the usual one, so it is named, with low confidence."""
    names = low_precision_said(failure)[:1]
    dtype = names[0] if names else "the tensor's dtype"
    return explained(
        Kind.NO_KERNEL, failure,
        f"a kernel or backend has no case for {dtype} in its list of dtypes, so it refuses the tensor (\"Invalid "
        "scalar type\")",
        "most often torch.distributed's gloo backend (CPU collectives, which model-parallel layers such as a parallel "
        "embedding use to gather their shards) given bf16 or fp8 tensors; else a C++ extension or an older torch op "
        "built without that dtype",
        "run that step in a dtype it has (float32: `t.float()`, and back after); on CPU, run the model in fp32 or on "
        "one process without model parallelism; on GPUs use the NCCL backend; update torch and the extension",
        op="a kernel's dtype list", names=names, confidence=Confidence.LOW,
    )


def _bitwise_reduction(found: re.Match[str], failure: Failure) -> Explanation:
    """``Cannot use ReduceOp.BOR with non-integral dtype``: a float flag in a bitwise reduction."""
    operation = found["op"]
    return explained(
        Kind.MASK, failure,
        f"a bitwise reduction (`ReduceOp.{operation}`) needs an integer or bool tensor, and got a floating one",
        "a stop flag or a per-rank mask made as a float (`torch.tensor([1.0])`, `(x > 0).float()`, or converted "
        "with a 16-bit model's tensors) and reduced with a bitwise op",
        f"reduce flags as integers: `flag = torch.tensor([int(stop)], dtype=torch.int32)` with `ReduceOp.{operation}`; "
        "or keep the float flag and reduce with `ReduceOp.MAX` (any) or `ReduceOp.MIN` (all)",
        op=f"all_reduce with ReduceOp.{operation}", names=(),
    )


def _zero_one_dtype(found: re.Match[str], failure: Failure) -> Explanation:
    """ZeroRedundancyOptimizer's ``only supports using the same dense type for all parameters but got both
    torch.BFloat16Tensor and torch.FloatTensor``."""
    names = dtypes(found, "a", "b")
    return explained(
        Kind.OP_DTYPE, failure,
        f"ZeroRedundancyOptimizer shards one flat buffer of one dtype and got parameters in {dtype_list(names)}",
        "a model partly converted: 16-bit layers beside norms or heads kept in fp32 (by hand, or by a keep rule)",
        "give it parameters of one dtype: keep fp32 master weights for all of them and compute in 16-bit under a "
        "policy (`cw.apply(model, 'bf16-mixed')` keeps parameters fp32), or build one ZeroRedundancyOptimizer per "
        "dtype's parameter group; FSDP2's `MixedPrecisionPolicy` shards mixed models",
        op="ZeroRedundancyOptimizer", names=names,
    )


_meta_under_fsdp = message_only(
    Kind.DEVICE_MISMATCH,
    "FSDP got parameters still on the meta device (shapes only, no data): this is a device problem, not a dtype "
    "problem",
    "a model built under `torch.device('meta')` (to shard it before allocating) that was never materialised after "
    "`fully_shard`",
    "materialise it after sharding: `model.to_empty(device=...)`, then `reset_parameters()` on each module (or load a "
    "checkpoint into it) before the first forward",
    op="FSDP on meta parameters", device="meta",
)


def _full_precision_copy(found: re.Match[str], failure: Failure) -> Explanation:
    """FSDP's ``Expects full precision but got torch.bfloat16``: a full-precision gather (a state dict, ``summon_full_
    params``) when the model's own parameters already have the mixed-precision dtype."""
    names, dtype = dtype_read(found, "a")
    return explained(
        Kind.OP_DTYPE, failure,
        f"FSDP gathered the full-precision parameters (for a state dict or `summon_full_params`) and found them in "
        f"{dtype}, the dtype its `MixedPrecision(param_dtype=...)` computes in: it keeps two copies only when they "
        "differ",
        f"a model converted to {dtype} before FSDP wrapped it (`model.to(torch.bfloat16)`, `torch_dtype=` at load) "
        f"and also given `MixedPrecision(param_dtype=torch.{full_name(dtype) if names else 'bfloat16'})`",
        "keep the model's parameters fp32 when wrapping and let `MixedPrecision` cast for compute; or, for a model "
        "meant to stay in bf16, drop `param_dtype` from `MixedPrecision`; update torch if both are already so",
        op="FSDP full-precision parameters", names=names,
    )


def _nccl_lacks(found: re.Match[str], failure: Failure) -> Explanation:
    """``Unconvertible NCCL type BFloat16``: the NCCL this torch uses has no such type (bf16 came in NCCL 2.10)."""
    names, dtype = dtype_read(found, "dtype")
    return explained(
        Kind.NO_KERNEL, failure,
        f"the NCCL library this torch uses has no {dtype} type, so a collective or send/recv on {dtype} tensors "
        "cannot run",
        f"{dtype} tensors sent through NCCL built without {dtype} (NCCL older than 2.10 for bf16, or a torch build "
        "against one)",
        "update torch (and NCCL, if it is a system one), or send the tensors as float32 and convert back (`t32 = "
        "t.float()`, then `t.copy_(t32)`)",
        op="NCCL", names=names, device="cuda",
    )


RULES: tuple[Rule, ...] = (
    rule(r"Unconvertible NCCL type (?P<dtype>\w{1,20})", _nccl_lacks),
    rule(r"Expects full precision but got (?P<a>{DTYPE})", _full_precision_copy),
    rule(r"Invalid usage of tensors with different dtypes\s*Found (?P<a>{DTYPE}) and\s+(?P<b>{DTYPE})",
         _collective_pair),
    rule(r"ProcessGroup\w{0,10}::\w{1,40}: invalid tensor type at index \d+ \(expected TensorOptions\(dtype="
         r"(?P<a>{DTYPE}),[^\n]{0,300}?got TensorOptions\(dtype=(?P<b>{DTYPE}),", _collective_pair),
    rule(r"Check failed: output\w{0,10}\[i\]\.dtype\(\) == input\w{0,10}\[i\]\.dtype\(\) \((?P<a>{DTYPE}) vs\.? "
         r"(?P<b>{DTYPE})\)", _collective_pair),
    rule(r"output tensor must have the same type as input tensor", _collective_types),
    rule(r"Detected mismatch between collectives on ranks\.[^\n]{0,400}?TensorDtypes=(?P<a>{DTYPE})[^\n]{0,600}?but "
         r"Rank \d+ is running collective:[^\n]{0,400}?TensorDtypes=(?P<b>{DTYPE})", _ranks_disagree),
    rule(r"(?:(?:Error|Exception)(?::| is)\s*|^|[\"'`(])(?i:Invalid scalar type)\b",
         _unsupported_by_gloo),
    rule(r"Unsupported data type for NCCL process group", _unsupported_by_nccl),
    rule(r"Cannot use ReduceOp\.(?P<op>BOR|BAND|BXOR) with non-integral dtype", _bitwise_reduction),
    rule(r"ZeroRedundancyOptimizer only supports using the same dense type for all parameters,? but got both "
         r"(?P<a>[\w.]{1,40}) and (?P<b>[\w.]{1,40})", _zero_one_dtype),
    rule(r"FSDP parameters should be materialized from meta device before training", _meta_under_fsdp),
)
