"""Tensors on two devices: said plainly, because it is not a dtype problem.

torch's legacy tensor-type names carry the device (``torch.cuda.HalfTensor`` against
``torch.HalfTensor``): one dtype on two devices reads like a dtype error and is not one; converting
dtypes does nothing for it. When the dtypes differ too, that is said as well.
"""

from __future__ import annotations

import re

from castwise.explainer.advice import dtype_list
from castwise.explainer.explanation import Confidence, Explanation, Kind
from castwise.explainer.failures import Failure
from castwise.explainer.rules import Rule, dtypes, explained, message_only, rule
from castwise.explainer.spelling import device_of

_PLUG_IN = {"privateuse1": "privateuse1 (a plug-in backend: DirectML, an NPU)"}
"""How a device torch names only by its dispatch key is said."""


def apart(word: str, other: str) -> tuple[str, str] | None:
    """The devices two type spellings name (``torch.cuda.FloatTensor``, ``torch.FloatTensor``) when both name one and
    they differ; None otherwise."""
    places = (device_of(word), device_of(other))
    return (places[0], places[1]) if places[0] and places[1] and places[0] != places[1] else None


def mismatch(failure: Failure, places: tuple[str | None, ...], names: tuple[str, ...] = (), op: str = "an op"
             ) -> Explanation:
    """One op given tensors on two devices (``places``), with the dtypes when the message names them; said with low
    confidence when the dtypes differ too (two problems, and the kind names one)."""
    where = " and ".join(dict.fromkeys(_PLUG_IN.get(place, place) for place in places if place)) or "two devices"
    same = len(set(names)) == 1 and len(names) >= 2
    dtype_note = (
        f"both are {names[0]}, so this is not a dtype problem and converting dtypes will not fix it" if same
        else f"the dtypes differ too ({dtype_list(names)}): fix the device first, then the dtype" if len(set(names)) > 1
        else "this is a device problem, not a dtype problem"
    )
    return explained(
        Kind.DEVICE_MISMATCH, failure,
        f"{op} got tensors on different devices ({where}); {dtype_note}",
        "a module or tensor that was not moved with the rest: a layer created or loaded after `model.to(device)`, "
        "a tensor created in forward without `device=`, inputs left on the CPU, or offloading that moved weights",
        "move the model and its inputs to one device (`model.to(device)`, `x.to(device)`; in forward create tensors "
        "with `device=x.device`)",
        op=op, names=names, device=where, confidence=Confidence.LOW if len(set(names)) > 1 else Confidence.HIGH,
    )


def _pair(found: re.Match[str], failure: Failure) -> Explanation:
    groups = found.groupdict()
    places = tuple(groups[name].lower().rstrip("!.") for name in ("a", "b") if groups.get(name))
    return mismatch(failure, places, dtypes(found, *(name for name in ("x", "y") if name in groups)),
                    op=f"'{groups['arg']}'" if groups.get("arg") else "an op")


def _apex_found(found: re.Match[str], failure: Failure) -> Explanation | None:
    """apex ``amp.initialize``'s check of every parameter and buffer (``Found buffer total_ops with type
    torch.DoubleTensor, expected torch.cuda.FloatTensor``): one left on the CPU; declined when the devices agree."""
    places = (device_of(found["a"]), device_of(found["b"]))
    if places[0] == places[1]:
        return None
    return mismatch(failure, places, dtypes(found, "a", "b"),
                    op=f"apex amp.initialize ({found['what']} {found['name']})")


def _numpy_device(found: re.Match[str], failure: Failure) -> Explanation:
    return explained(
        Kind.DEVICE_MISMATCH, failure,
        f"numpy cannot read a tensor on {found['a']}; this is a device problem, not a dtype problem",
        "`.numpy()` called on a GPU tensor (a loss, a metric or an output logged as it is)",
        "move it first: `x.detach().cpu().numpy()` (or `x.item()` for one number)",
        op="numpy conversion", device=found["a"],
    )


_meta_copy = message_only(
    Kind.DEVICE_MISMATCH,
    "a module built on the meta device (shapes only, no data) was moved with `.to(...)`, which would copy data it "
    "does not have; this is a device problem, not a dtype problem",
    "a model created under `torch.device('meta')` or `init_empty_weights()` (to load a large checkpoint cheaply) and "
    "then moved or cast before its weights were loaded",
    "allocate it on the device first, then load the weights: `model.to_empty(device='cpu')` followed by "
    "`model.load_state_dict(state_dict)` (or `load_state_dict(state_dict, assign=True)` on the meta model)",
    op="Module.to on meta tensors", device="meta",
)


_set_data_across_types = message_only(
    Kind.DEVICE_MISMATCH,
    "`param.data = t` (torch's `set_data`) got a tensor of another tensor type: `.data =` may change a parameter's "
    "dtype but not its device type (meta, CPU, CUDA) or its kind (a quantized or packed subclass); this is a device "
    "problem, not a dtype problem",
    "a weight rewritten in place while the model is still on the meta device (built empty to load a checkpoint "
    "cheaply, or offloaded by Accelerate), or a quantized parameter (bitsandbytes' `Params4bit`) given a plain tensor",
    "load or materialize the model's weights first (`model.to_empty(device=...)` then `load_state_dict`, or load "
    "without `device_map`/offload), or replace the parameter instead of its data (`module.weight = nn.Parameter(t)`)",
    op="Tensor.data assignment (set_data)",
)


_capturable_on_cpu = message_only(
    Kind.DEVICE_MISMATCH,
    "an optimizer built with `capturable=True` (for CUDA graphs) got parameters on a device it cannot capture on, "
    "most often the CPU: this is a device problem, not a dtype problem",
    "GPU-first training code (a CUDA-graph or torch.compile recipe) run on a CPU-only machine, such as CI or a laptop",
    "pick the option by device: `capturable=(device.type == 'cuda')` (likewise `fused=`), or leave it out on the CPU",
    op="optimizer step with capturable=True", device="cpu",
)


def _lengths_on_gpu(found: re.Match[str], failure: Failure) -> Explanation:
    """pack_padded_sequence's ``'lengths' argument should be a 1D CPU int64 tensor, but got 1D cuda:0 Long tensor``:
    the lengths must stay on the CPU; an int64 on the GPU is the wrong device, not the wrong dtype."""
    names = ("int64", *dtypes(found, "dtype"))
    return mismatch(failure, ("cpu", found["device"]), names, op="pack_padded_sequence's `lengths`")


RULES: tuple[Rule, ...] = (
    rule(r"'lengths' argument should be a 1D CPU int64 tensor, but got 1D (?P<device>(?:cuda|mps|xpu)[:\d]*) "
         r"(?P<dtype>\w{1,12}) tensor", _lengths_on_gpu),
    rule(r"Expected all tensors to be on the same device,?\s*but found at least two devices,?\s*(?P<a>[\w:]+) and "
         r"(?P<b>[\w:]+)", _pair),
    rule(r"Expected all tensors to be on the same device|\barguments are located on different GPUs\b", _pair),
    rule(r"Found (?P<what>param|buffer) (?P<name>[\w.]{1,80}) with type (?P<a>torch\.[\w.]{1,40}Tensor),? expected "
         r"(?P<b>torch\.[\w.]{1,40}Tensor)", _apex_found),
    rule(r"Tensor on device (?P<a>[\w:]+) is not on the expected device (?P<b>[\w:]+)", _pair),
    rule(r"Input and (?:parameter|hidden) tensors are not at the same device,?\s*found input tensor at "
         r"(?P<a>[\w:]+) and (?:parameter|hidden) tensor at (?P<b>[\w:]+)", _pair),
    rule(r"Tensor for argument #\d+ '(?P<arg>\w+)' is on (?P<a>CPU|GPU|cuda:?\d*|cpu)\b.{0,40}?but expected "
         r"(?:it|them) to be on (?P<b>CPU|GPU|cuda:?\d*|cpu)", _pair),
    rule(r"Expected object of device type (?P<a>\w+) but got device type (?P<b>\w+)", _pair),
    rule(r"to have the same device as tensor for argument #\d+ '(?P<arg>\w+)';? but device (?P<a>[\w:]+) does not "
         r"equal (?P<b>[\w:]+)", _pair),
    rule(r"can't convert (?P<a>[\w:]+) device type tensor to numpy", _numpy_device),
    rule(r"Cannot copy out of meta tensor;? no data", _meta_copy),
    rule(r"`?variable`? and `?tensor`? have incompatible tensor type|^incompatible tensor type$",
         _set_data_across_types),
    rule(r"If capturable=True, params and state_steps must be on supported devices", _capturable_on_cpu),
)
