"""Integer, bool and index dtypes where another is required, or the reverse.

These are not precision problems and a precision policy does not fix them: the fix is that one
tensor's dtype (a target, token ids, indices, a mask, an integer buffer written with floats). One
precision does cause them: a ``-true`` precision (Lightning's ``bf16-true``, ``batch.to(dtype)``)
casts the whole batch, so targets or ids stored as floats arrive as bf16/fp16; that is said when
the dtypes show it.
"""

from __future__ import annotations

import re

from castwise.explainer.advice import a, dtype_list
from castwise.explainer.clues import (
    CLASS_INDEX_LOSS,
    FLOAT32_SAID,
    LOSS,
    RNN,
    held_dtypes,
    low_precision_said,
    paste_search,
    shows,
    subscript_dtype,
    traced_call,
    traced_dtypes,
)
from castwise.explainer.explanation import Confidence, Explanation, Kind
from castwise.explainer.failures import Failure
from castwise.explainer.rules import Rule, dtype_read, dtypes, explained, message_only, rule
from castwise.explainer.spelling import dtype_of, full_name, is_complex, is_floating, is_low_precision

TRUE_PRECISION = (
    "a `-true` precision (Lightning's `bf16-true`/`16-true`, or `batch.to(dtype)`) casts every floating tensor "
    "of the batch, so targets or ids stored as floats arrive as {dtype}"
)


def _cast_by_batch(names: tuple[str, ...]) -> str:
    low = [name for name in names if is_low_precision(name)]
    return f"; {TRUE_PRECISION.format(dtype=low[0])}" if low else ""


def target(failure: Failure, got: tuple[str, ...], wants_float: bool, op: str | None = None,
           prediction: tuple[str, ...] = ()) -> Explanation:
    """A loss target of the wrong kind: class indices must be int64, probabilities/regression targets float (of the
    ``prediction``'s dtype, when the message names it)."""
    got_text = dtype_list(got) if got else "another dtype"
    if wants_float:
        return explained(
            Kind.TARGET, failure,
            f"a loss that compares values ({op or 'BCE/MSE-style'}) got an integer target ({got_text}); it needs "
            "a floating target of the prediction's dtype" + (f" ({prediction[0]})" if prediction else ""),
            "labels stored as integers (a dataset of 0/1 ints, `torch.tensor([0, 1])`) passed to BCE/MSE, or a "
            "cross_entropy target shaped like the logits (class probabilities) that is integer",
            "convert the target: `loss_fn(pred, target.float())` (or `target.to(pred.dtype)`); a class-index "
            "target for cross_entropy must have no class dimension",
            op=op, names=got + prediction,
        )
    return explained(
        Kind.TARGET, failure,
        f"a classification loss ({op or 'cross_entropy/nll_loss'}) got {a(got_text)} target; class-index targets "
        "must be int64 (Long)",
        "class labels stored as floats or int32 (read from numpy/pandas, or built with `torch.tensor([1.0, 2.0])`)"
        + _cast_by_batch(got),
        "convert the target to int64: `loss_fn(logits, target.long())`; cast only the inputs, not the targets, to the "
        "precision's dtype. Not a precision-policy problem: `cw.apply` does not change targets",
        op=op, names=got if "int64" in got or "Long" not in failure.message else ("int64", *got),
    )


def integer_operand(failure: Failure, names: tuple[str, ...], op: str | None, *, constant: bool = False,
                    unseen: bool = False) -> Explanation:
    """Integer data in float math (matmul, linear, RNN, softmax, mean): convert the data. Two integer dtypes and no
    floating one are not float math: one is cast to the other's dtype (``integer_pair``); an integer that is a quantized
    weight (never a convolution's input, ``names[0]`` there) is answered as one. ``constant``: nothing shows the op, so
    the integer may as well be a constant (``torch.tensor(0)``) as data: said so; ``unseen``: nothing shows the op at
    all. Both are said with low confidence."""
    if all_integer(names):
        if (op or "").startswith(RNN.name):
            return _packed_batch_sizes(failure, names)
        return integer_pair(Kind.INTEGER_OPERAND, failure, names, op or "an op")
    integer_input = "conv" in (op or "") and bool(names) and not is_floating(names[0])
    if quantized_weight(names, failure) and not integer_input:
        return quantized_weight_used(failure, names, op)
    return explained(
        Kind.INTEGER_OPERAND, failure,
        f"{op or 'a floating-point op'} got integer data{f' ({dtype_list(names)})' if names else ''}: float math "
        "needs floating inputs",
        "inputs built from integer data (token counts, pixel values, a numpy int array, `torch.tensor([1, 2])`) "
        "fed straight to a layer" + ("; or an integer constant meeting float tensors (a literal `0` a library made "
                                     "into a tensor, `torch.tensor(0)`), which older torch did not promote"
                                     if constant else ""),
        f"convert the data where it is made: {_float_conversion(names)} (or `x.to(weight.dtype)`); if it is token "
        "ids, pass them through an embedding instead"
        + ("; if it is a constant, write it as `0.0` (in a library's code: update the library)" if constant else "")
        + ". Not a precision problem: a policy does not convert integer tensors",
        op=op, names=names, confidence=Confidence.LOW if constant or unseen else Confidence.HIGH,
    )


def _float_conversion(names: tuple[str, ...]) -> str:
    """``x.double()`` when the op computes in float64, else ``x.float()``."""
    return "`x.double()` (float64)" if "f64" in names else "`x.float()` (float32)"


_QUANTIZED = re.compile(r"[48][ _-]?bit|\bnf4\b|\bbnb\b|bitsandbytes|qlora|quantiz|\bgguf\b|\bawq\b|\bgptq\b|\bint4\b",
                        re.IGNORECASE)


def _speaks_of_quantization(failure: Failure) -> bool:
    """Whether the error line or the paste around it speaks of quantization (GGUF, 4-bit, GPTQ, bitsandbytes, ...)."""
    return any(_QUANTIZED.search(line) for line in (failure.message, *failure.paste))


def quantized_weight(names: tuple[str, ...], failure: Failure) -> bool:
    """Whether one floating dtype meets an integer one that is a quantized weight rather than data: int8 codes or
    uint8 packed 4-bit weights beside a 16-bit dtype, what quantized models compute in (int8 or uint8 beside fp32 is
    read as integer data, pixels, spins or codes, even when the paste speaks of quantization); or another integer
    when the paste speaks of quantization (GGUF, GPTQ, ...)."""
    floating = [name for name in names if is_floating(name)]
    integer = [name for name in names if not is_floating(name)]
    if len(names) != 2 or len(floating) != 1:
        return False
    codes = integer in (["uint8"], ["int8"])
    if not is_low_precision(floating[0]):
        return not codes and _speaks_of_quantization(failure)
    return codes or _speaks_of_quantization(failure)


def integer_weight(failure: Failure, names: tuple[str, ...]) -> Explanation:
    """A convolution whose weight (``names[1]``, seen in a live frame or named second by the convolution's own check)
    is integer while its input (``names[0]``) is floating: a kernel written with integers."""
    return explained(
        Kind.CONV_WEIGHT, failure,
        f"a convolution's weight is {names[1]} while its input is {names[0]}: its kernel was written with integers",
        "a fixed kernel built from integer literals (a finite-difference stencil, a Sobel or box filter: "
        "`torch.tensor([[0, 1, 0], [1, -4, 1], [0, 1, 0]])` is int64) passed to `F.conv2d`",
        "make the kernel floating, in the input's dtype: `torch.tensor([[0., 1., 0.], ...], dtype=x.dtype)` or "
        "`kernel.to(x.dtype)`",
        op="convolution", names=names,
    )


def quantized_weight_used(failure: Failure, names: tuple[str, ...], op: str | None) -> Explanation:
    """A float activation meets an integer (quantized) weight in a plain matmul, batched matmul or convolution: the
    quantized layer's own kernel was bypassed."""
    kind = Kind.CONV_WEIGHT if "conv" in (op or "") else Kind.BATCHED_MATMUL if "bmm" in (op or "") else Kind.MATMUL
    integer = next(name for name in names if not is_floating(name))
    return explained(
        kind, failure,
        f"{op or 'a matrix multiply'} got {dtype_list(names)}: a floating activation met {a(integer)} tensor, which "
        "here is most likely a quantized weight (8-bit loading, 4-bit weights packed in uint8, a GGUF or GPTQ "
        "checkpoint)",
        "code that uses the quantized layer's `.weight` directly (`F.linear(x, layer.weight)`, `x @ w`, a plain "
        "convolution, an adapter or a model's custom forward), bypassing the layer's own dequantizing kernel; a "
        "loader that quantized a layer it should have left alone",
        "call the quantized layer itself instead of its weight, or dequantize the weight first; if the code doing "
        "it is a library's (a loader, a model's remote code, an adapter, a runtime), update it, or load the "
        "model without quantization for that layer"
        + (". If the uint8 tensor holds fp8 bytes (an fp8 checkpoint read or stored as uint8), reinterpret it, not "
           "cast it: `w.view(torch.float8_e4m3fn).to(x.dtype)` times its scale. If it is data (image pixels), "
           "convert it instead: `x.float()`" if integer == "uint8" else "")
        + ". Not a precision-policy problem",
        op=op, names=names, confidence=Confidence.LOW,
    )


def mixed_sequence(failure: Failure, names: tuple[str, ...], op: str) -> Explanation:
    """A list of tensors of two dtypes, at least one integer, joined by ``op`` (old torch's cat/stack checked every
    element against the first): two integers are cast to one (the join's own dtype check, no float math in it),
    integer data next to floats made floating."""
    if all_integer(names):
        return integer_pair(Kind.SCALAR_TYPE, failure, names, op)
    return explained(
        Kind.INTEGER_OPERAND, failure,
        f"{op} got a list of tensors in {dtype_list(names)}: integer data joined to floating data, and torch of that "
        "age checks every element against the first one's dtype instead of promoting",
        "tensors built from data loaded in different dtypes (images read as uint8, masks or features made as float64 "
        "numpy arrays) gathered into one list",
        "convert them to one floating dtype where the data is made or before joining (`x.float()` on each, or "
        "`.astype(np.float32)` on the numpy arrays); current torch promotes there. Not a precision problem",
        op=op, names=names,
    )


_tensor_start = message_only(
    Kind.INDEX_TENSOR,
    "`narrow` was given its start as a tensor that is not a 0-dim integer tensor: a position computed in floating "
    "point (or a 1-element tensor) where an integer offset is needed",
    "an offset computed with float math (a ring buffer's read position times a hop, a division, `torch.round`) kept "
    "as a float tensor, or taken from a tensor without `.item()`",
    "pass an integer: `x.narrow(dim, int(start), length)` (or `start.long()` as a 0-dim tensor); compute offsets "
    "with integer ops (`//`) so they stay integers",
    op="Tensor.narrow",
)


def _packed_batch_sizes(failure: Failure, names: tuple[str, ...]) -> Explanation:
    """Two integer dtypes in an LSTM/GRU/RNN: the only integer tensor it takes is a PackedSequence's ``batch_sizes``."""
    return explained(
        Kind.INDEX_TENSOR, failure,
        f"a recurrent layer got two integer dtypes ({dtype_list(names)}): the only integer tensor an LSTM/GRU/RNN "
        "takes is a PackedSequence's `batch_sizes`, which must be int64",
        "a PackedSequence built by hand (`PackedSequence(data, batch_sizes)`) with batch sizes from numpy or from an "
        "int32 computation",
        "build it with `nn.utils.rnn.pack_padded_sequence(x, lengths.cpu(), enforce_sorted=False)` or "
        "`pack_sequence`, or pass `batch_sizes.long()` (an int64 tensor on the CPU)",
        op="recurrent layer (PackedSequence batch_sizes)", names=names,
    )


def integer_pair(kind: Kind, failure: Failure, names: tuple[str, ...], op: str) -> Explanation:
    """Two integer (or bool) dtypes that must be one in ``op`` (``names[0]`` the one expected or written into):
    the fix casts one to the other's integer dtype, never to a float."""
    wanted = dtype_of(names[0])
    return explained(
        kind, failure,
        f"{op} got two integer dtypes ({dtype_list(names)}) where it needs one; integer dtypes are not promoted "
        "there",
        "integers made in another integer dtype than the tensor they meet: int32 from numpy, from a dataset or from "
        "an op that returns int32, meeting int64 (torch's default for integers and indices), or the reverse",
        f"cast the odd one to the other's dtype where they meet: `src.to(dst.dtype)` (here `.to({wanted})`, e.g. "
        "`.long()` for int64). Not a precision problem, and not float math: a policy does not convert integers",
        op=op, names=names,
    )


def integer_required(failure: Failure, names: tuple[str, ...], op: str | None, confident: bool) -> Explanation:
    """An op that takes an integer tensor (``names[0]``) got a floating one (``names[1]``): indices, labels, a batch
    vector. Said with low confidence unless an argument or frame shows it: the same words also come from an op whose
    integer operand is the odd one (a ``torch.tensor(0)`` constant meeting float data)."""
    wanted, got = (names + ("an integer", "a floating"))[:2]
    return explained(
        Kind.INDEX_TENSOR, failure,
        f"{op or 'an op'} expected {a(wanted)} tensor but got {a(got)} one: it takes integers there (indices, "
        "labels, a batch or segment vector, counts)",
        "a tensor that must hold integers built or converted as floats (`torch.tensor(..., dtype=torch.float)`, "
        "`np.zeros(...)`, a `.float()` applied to every tensor of a batch)" + _cast_by_batch(names),
        "convert that tensor to the integer dtype where it is made (`x.long()`; an index computed with `/` is a "
        "float even from integers: divide with `//`); if instead the integer tensor is the odd one (a constant such "
        "as `torch.tensor(0)` meeting float data), make that one float",
        op=op, names=names, confidence=Confidence.HIGH if confident else Confidence.LOW,
    )


def _bincount_input(found: re.Match[str], failure: Failure) -> Explanation:
    """``bincount only supports 1-d non-negative integral inputs``: most often labels given as floats (predictions not
    argmax'ed, or targets cast with the batch), said with low confidence (a negative value or a 2-d tensor fails it
    too)."""
    del found
    return integer_required(failure, ("int64", *low_precision_said(failure)[:1]), "torch.bincount", confident=False)


def class_weight(failure: Failure, names: tuple[str, ...]) -> Explanation:
    """A class-index loss (cross_entropy, nll_loss) whose ``expected scalar type A but found Long`` names an integer
    that cannot be its target (int64 class indices are what it takes): the class ``weight``."""
    return explained(
        Kind.INTEGER_OPERAND, failure,
        f"the classification loss's class `weight` is {dtype_list(names[1:])}, but it must be floating, of the "
        f"logits' dtype ({names[0]}); the int64 class-index target is right as it is",
        "class weights computed with integer math (`counts.max() // counts`, `torch.tensor([1, 5, 10])`, class "
        "counts from `bincount`)",
        "make the weights floating and of the logits' dtype: `weight = (counts.sum() / counts).to(logits.dtype)`, "
        "or compute the loss in fp32 (`F.cross_entropy(logits.float(), target, weight=weight.float())`)",
        op="cross_entropy/nll_loss", names=names,
    )


def _tensor_as_python_index(found: re.Match[str], failure: Failure) -> Explanation:
    """``only integer tensors of a single element can be converted to an index``: a float tensor (or one of several
    elements) used as a slice bound or a Python index."""
    del found
    return explained(
        Kind.INDEX_TENSOR, failure,
        "a tensor used as a slice bound or a Python index (`x[:t]`, `range(t)`, `x[a:b]`) must be an integer tensor "
        "of one element",
        "an offset or size computed as a float tensor (`torch.rand(1) * limit`, a ratio times a length) or "
        "converted to 16-bit with the batch; or a tensor of several elements where one number belongs",
        "turn the bound into a Python int first: `int(t)` (round or floor a float first: `int(t.floor())`), or "
        "`t.long().item()`; index with a tensor of several elements as `x[idx]`, not inside a slice",
        op="indexing", names=(), confidence=Confidence.LOW,
    )


def _floating_argument(found: re.Match[str], failure: Failure) -> Explanation:
    """``Expected theta to have floating point type, but got torch.int64`` (F.affine_grid), torchaudio's ``Expected
    floating point type for waveform tensor, but received torch.int16``, torchdiffeq's ```y0` must be a floating point
    Tensor but is a torch.LongTensor``: an integer argument."""
    return integer_operand(failure, dtypes(found, "a", "b", "c"), f"`{found['arg'] or found['arg2'] or found['arg3']}`")


def _integral_lengths(found: re.Match[str], failure: Failure) -> Explanation:
    """ctc_loss's ``input_lengths must be integral``: sequence lengths given as floats."""
    argument = found["arg"]
    return explained(
        Kind.TARGET, failure,
        f"ctc_loss's `{argument}` must be integers (int64 or int32), and they are floats: lengths, like targets, are "
        "counts",
        "lengths computed as floats (`torch.ones(batch) * T`, a ratio of frames, Keras-style `input_length` arrays of "
        "floats) or converted with the batch to a floating dtype",
        f"make the lengths integer where they are made: `{argument} = torch.full((batch,), T, dtype=torch.long)` (or "
        "`.long()`); cast only the log-probabilities to the compute dtype",
        op="ctc_loss", names=(),
    )


def _joined_into_narrower(found: re.Match[str], failure: Failure) -> Explanation:
    """``torch.cat(): input types can't be cast to the desired output type Byte``: tensors joined into a narrower
    ``out=`` (default_collate stacks into the first sample's dtype)."""
    names, shown = dtype_read(found, "a")
    return explained(
        Kind.RESULT_CAST, failure,
        f"torch.cat/torch.stack wrote tensors into an output of {shown} that their values cannot be cast to (`out=`; "
        "in a DataLoader, default_collate stacks a batch into a tensor of its first sample's dtype)",
        "samples of one dataset returned in different dtypes (a uint8 image beside a float one, an int label beside a "
        "float label), so the first sample's dtype cannot hold the others",
        "give every sample one dtype in the dataset (`torch.as_tensor(x, dtype=torch.float32)` in `__getitem__`), or "
        "convert in a `collate_fn` before stacking; without `out=`, torch.cat promotes",
        op="torch.cat/torch.stack with out=", names=names,
    )


def _promoted_in_place(found: re.Match[str], failure: Failure) -> Explanation:
    """torch.compile's ``Promotion of int.add/sub_(float) in in-place ops are not possible``, with the dtypes of the
    traced call's tensors when dynamo printed them."""
    del found
    return explained(
        Kind.RESULT_CAST, failure,
        "a float was added to (or subtracted from) an integer tensor in place (`t.add_(0.001)` on int64): under "
        "torch.compile's fake tensors that is refused outright, as eager torch refuses storing the float result",
        "a counter, weight or schedule value made as an integer tensor (`torch.tensor(0)`, a buffer from `arange`) "
        "and then updated with a fraction (or with a sum of a mask made floating)",
        "make it floating where it is made (`torch.tensor(0.0)`, `.float()`), or update it out of place (`t = t + "
        "0.001`); a count of a mask's elements stays integer when the mask stays bool",
        op="in-place add/sub", names=traced_dtypes(failure) or ("int64",),
    )


_negative_power = message_only(
    Kind.INTEGER_OPERAND,
    "an integer tensor was raised to a negative integer power (`d ** -2`): the result is a fraction, which an integer "
    "tensor cannot hold",
    "distances, counts or positions kept as integers (`torch.arange`, index differences, `bincount`) used in a "
    "formula such as an inverse-distance or inverse-frequency weight",
    "make the base floating first, in the dtype the result is used in: `d.float() ** -2` (or "
    "`d.to(x.dtype).pow(-p)`)",
    op="pow",
)


def mismatched_vision(failure: Failure, names: tuple[str, ...]) -> Explanation:
    """torchvision's compiled nms wanting an integer tensor: it takes float boxes and scores, so a build of torchvision
    that does not match torch's is what reads them wrongly."""
    return explained(
        Kind.INDEX_TENSOR, failure,
        f"torchvision's compiled nms refused its arguments ({dtype_list(names)}), yet it takes float boxes and "
        "scores and returns int64 indices: a torchvision build that does not match the installed torch reads its "
        "arguments wrongly",
        "torchvision installed separately from torch (a pre-release or source build of one, a pip wheel of the other, "
        "or an upgrade of only one of them)",
        "install the torchvision release made for the installed torch (the pairs are listed in torchvision's README; "
        "`pip install torch==X torchvision==Y` together). Not a precision problem",
        op="torchvision.ops.nms", names=names,
    )


def _classification_target(found: re.Match[str], failure: Failure) -> Explanation:
    return target(failure, dtypes(found, "a"), wants_float=False, op="cross_entropy/nll_loss")


def _probability_target(found: re.Match[str], failure: Failure) -> Explanation:
    return target(failure, dtypes(found, "a"), wants_float=True, op="cross_entropy with class probabilities")


def _uint8_as_mask(found: re.Match[str], failure: Failure) -> Explanation | None:
    """A uint8 tensor used as indices, which torch reads as a boolean mask (one entry per element): the mask's shape
    then fails against the indexed tensor. Told only when the paste's deprecation warning or a live frame shows the
    uint8 subscript."""
    del found
    if paste_search(failure, _UINT8_INDEX_WARNING) is None and subscript_dtype(failure) != "uint8":
        return None
    return explained(
        Kind.INDEX_TENSOR, failure,
        "a uint8 tensor was used as indices: torch reads a uint8 (byte) subscript as a boolean mask, one entry per "
        "element of the indexed tensor, not as positions, so its shape does not fit",
        "indices, codes or token ids stored as uint8 to save space (action bins, quantized codes, a dataset saved "
        "from numpy) used to index a tensor as they are",
        "convert them to positions first: `table[codes.long()]` (or `.int()`); use `.bool()` only when a mask was "
        "meant",
        op="indexing", names=("uint8",), confidence=Confidence.LOW,
    )


_UINT8_INDEX_WARNING = re.compile(r"indexing with dtype torch\.uint8 is now deprecated")


_float_slice_bound = message_only(
    Kind.INDEX_TENSOR,
    "a slice bound is not an integer: a Python float (`/` is true division, so `(7 - 5) / 2` is `1.0`) or a float "
    "tensor used as a bound",
    "bounds computed with `/` (a centre crop, half a window, a ratio of a size), read from a float config value, or "
    "taken from a floating tensor",
    "compute bounds as integers: `//` or `int(...)` (`w[..., (k - c) // 2:(k + c) // 2]`); from a tensor, "
    "`int(t.item())` after rounding as you mean to",
    op="slicing",
)


def _index_tensor(found: re.Match[str], failure: Failure) -> Explanation:
    """Indices of another dtype than an index op (or a named index argument, ``arg``) takes."""
    op = "embedding" if "embedding" in failure.message else (found.groupdict().get("op") or "indexing")
    return index_tensor(failure, dtypes(found, "a", "cut"), op, dtypes(found, "want", "also"),
                        found.groupdict().get("arg"))


def index_tensor(failure: Failure, names: tuple[str, ...], op: str, wanted: tuple[str, ...] = (),
                 arg: str | None = None) -> Explanation:
    """Indices of dtype ``names`` where ``op`` takes ``wanted`` (int64 unless said); floats gathered inside a
    classification loss (a sharded or compiled cross-entropy gathers the logits at the targets) are its targets."""
    held = f"`{arg}` holds" if arg else f"{op} got"
    floated = bool(names) and is_floating(names[0])
    if floated and class_index_loss(failure):
        return target(failure, names, wants_float=False, op="cross_entropy (its gather of the targets)")
    culprit = (
        "token ids or indices that were cast to a float dtype with the inputs" + _cast_by_batch(names)
        if floated else "indices stored as floats or int32 where int64 is required"
    )
    return explained(
        Kind.INDEX_TENSOR, failure,
        f"{held} indices of dtype {dtype_list(names)}; indices must be int64 (or int32 where torch says so)" if names
        else f"{held} indices of a dtype the op does not take; indices must be int64 (or int32 where torch says so)",
        culprit,
        "keep ids and indices integer: `ids.long()` (int64) where they are made, and cast only floating inputs to the "
        "compute dtype (castwise's input casts never touch integer tensors)"
        + ("; to interpolate between tokens (integrated gradients, mixup on text), interpolate their embeddings "
           "and pass `inputs_embeds` instead of ids" if op == "embedding" else "; a 0/1 float mask meant to select "
           "elements must become bool (`x[mask.bool()]`): made `.long()` it would pick elements 0 and 1 instead"),
        op=op, names=names + wanted,
    )


def _bool_mask_only(found: re.Match[str], failure: Failure) -> Explanation:
    """``masked_scatter_ only supports boolean masks, but got mask with dtype Byte``: a uint8 (or other) mask."""
    return mask_argument(failure, ("bool", *dtypes(found, "a")))


def _graph_library_ids(found: re.Match[str], failure: Failure) -> Explanation | None:
    """DGL's ``Expect argument "edges[...]" to have data type torch.int64. But got torch.int32`` (or ``Index data
    specified as int64, but got: int32``): node or edge ids of another integer width than the graph's; declined unless
    both are integer dtypes."""
    names = dtypes(found, "a", "want")
    if len(names) != 2 or not all_integer(names):
        return None
    arg = found.groupdict().get("arg") or "index data"
    return explained(
        Kind.INDEX_TENSOR, failure,
        f"a graph library got node or edge ids (`{arg}`) as {names[0]} where the graph's id type is "
        f"{names[1]}: ids must have the graph's `idtype`",
        "ids built with another integer width than the graph (numpy's int32 on Windows, `.int()`, a saved graph "
        "made with `idtype=torch.int32`), or code written for another version of the library, whose default differs",
        f"convert the ids (`ids.to(g.idtype)`, here `.to(torch.{full_name(names[1])})`), or build the graph with the "
        f"ids' type (`g = g.int()` / `g.long()`); if the code targets another version of the library, install that "
        "version",
        op=f"graph ids ({arg})", names=names,
    )


def _edge_index(found: re.Match[str], failure: Failure) -> Explanation:
    """PyG's ``MessagePassing.propagate only supports torch.LongTensor of shape [2, num_messages] or SparseTensor for
    argument edge_index`` (or ``Expected 'edge_index' to be of type 'torch.long' (got 'torch.float32')``): an edge index
    of another dtype or shape, or None; a floating one is most often node features passed in its place."""
    got = dtypes(found, "a") if "a" in found.groupdict() else ()
    floating = bool(got) and is_floating(got[0])
    return explained(
        Kind.INDEX_TENSOR, failure,
        "a PyG layer's `edge_index` is not an int64 tensor of shape [2, num_edges] (nor a SparseTensor): another "
        f"dtype{f' ({got[0]})' if got else ''}, another shape, or not a tensor at all (None)",
        "node features passed where `edge_index` goes (arguments in the wrong order: layers take `(x, edge_index)`), "
        "or an edge index made floating by a `.float()` over the whole batch" if floating else
        "an edge index built as int32 or float (from numpy or a `.float()` over the whole batch), transposed to "
        "[num_edges, 2], or missing (`data.edge_index` is None for this dataset or after a transform)",
        "check the order of the arguments (`conv(x, edge_index)`, `self.propagate(edge_index, x=x)`) and pass "
        "`edge_index.long()` of shape [2, num_edges]" if floating else
        "pass `edge_index.long()` of shape [2, num_edges] (`.t().contiguous()` if it is [num_edges, 2]); check it "
        "is not None before the layer",
        op="MessagePassing.propagate", names=("int64", *got),
    )


def _detection_images(found: re.Match[str], failure: Failure) -> Explanation:
    """torchvision detection models' ``Expected input images to be of floating type (in range [0, 1]), but found
    type torch.uint8 instead``: images read as uint8 passed to a model that normalises float images itself."""
    names = dtypes(found, "a")
    return explained(
        Kind.INTEGER_OPERAND, failure,
        f"a torchvision detection model (its GeneralizedRCNNTransform) takes float images in [0, 1] and got "
        f"{dtype_list(names) if names else 'integer'} ones; newer torchvision versions check this where older ones "
        "let it through",
        "images read as uint8 (`read_image`, PIL through `pil_to_tensor`, OpenCV) or a transform pipeline without "
        "`ToTensor`/`ConvertImageDtype`, written for an older torchvision",
        "convert them before the model: `img.float() / 255` (or `transforms.ConvertImageDtype(torch.float)`, "
        "`v2.ToDtype(torch.float32, scale=True)`)",
        op="torchvision detection model", names=names,
    )


_UINT8_INDEX_SAID = re.compile(r"indexing with dtype torch\.uint8 is now deprecated")
"""torch's warning, printed above the error in a log, when a uint8 tensor indexes another."""


def _byte_index_as_mask(found: re.Match[str], failure: Failure) -> Explanation | None:
    """``The shape of the mask [64] at index 0 does not match the shape of the indexed tensor [256]``, when a uint8
    tensor was the index (the frame held one, or the log shows torch's uint8-indexing warning): byte codes or ids
    used as indices are read as a mask; declined otherwise (a bool mask of the wrong shape is a shape bug)."""
    del found
    if "uint8" not in held_dtypes(failure) and not paste_search(failure, _UINT8_INDEX_SAID):
        return None
    return explained(
        Kind.INDEX_TENSOR, failure,
        "a uint8 tensor used as an index is read as a mask (one flag per element, like bool), not as indices, so its "
        "shape must match the indexed tensor's",
        "indices or codes stored in one byte (8-bit quantization codes, class ids or token ids kept as uint8 to save "
        "memory) used directly to look up a table",
        "convert them to indices first: `table[codes.long()]` (or `.int()`); only a bool tensor should mask",
        op="indexing", names=("uint8",), confidence=Confidence.LOW,
    )


def _mask(found: re.Match[str], failure: Failure) -> Explanation:
    """A masked op given a mask that is not bool: the dtype its message names, else the one integer dtype a live
    frame held (the mask: ``masked_select: expected BoolTensor for mask`` names none)."""
    names = dtypes(found, "a") or _one_integer_held(failure)
    op = found.groupdict().get("op") or "masked_fill"
    return explained(
        Kind.MASK, failure,
        f"{op} got {a(dtype_list(names)) if names else 'a non-bool'} mask; masks must be bool",
        "a mask built with arithmetic or loaded as 0/1 numbers (`(x > 0).float()`, `attention_mask` of ints), or "
        "a uint8 mask from code written before torch 1.2",
        f"pass a bool mask: `x.{op}(mask.bool(), ...)` (or build it with a comparison, `mask = ids == pad`)",
        op=op, names=names,
    )


def _one_integer_held(failure: Failure) -> tuple[str, ...]:
    """The integer dtype a live frame held, when it held exactly one (bool aside): a mask's, when the message names
    none."""
    held = [name for name in held_dtypes(failure) if name in _MASK_INTEGERS]
    return tuple(held) if len(held) == 1 else ()


_MASK_INTEGERS = frozenset(("uint8", "int8", "int16", "int32", "int64"))


def _padding_mask(found: re.Match[str], failure: Failure) -> Explanation:
    """MultiheadAttention's or a Transformer's ``only bool and floating types of key_padding_mask are supported``; of
    ``attn_mask``, an integer mask where the attention mask (causal, or which positions see which) goes."""
    argument = found["arg"]
    if argument == "attn_mask":
        return explained(
            Kind.MASK, failure,
            "nn.MultiheadAttention (or a Transformer layer) got an integer `attn_mask`; it takes a bool mask (True = "
            "may not attend) or a float one added to the scores (-inf where it may not attend)",
            "a causal or band mask built from integers (`torch.triu(torch.ones(L, L, dtype=torch.uint8), 1)`, "
            "`.byte()`, a 0/1 mask from numpy) passed as it is",
            "build it as bool (`torch.triu(torch.ones(L, L, dtype=torch.bool), diagonal=1)`, or `mask.bool()`: True "
            "where attention is blocked), or as a float mask in the query's dtype (`nn.Transformer."
            "generate_square_subsequent_mask(L)`)",
            op="nn.MultiheadAttention", names=(),
        )
    return explained(
        Kind.MASK, failure,
        f"nn.MultiheadAttention (or a Transformer layer) got an integer `{argument}`; it takes a bool mask (True = "
        "padding, ignored) or a float bias",
        "a tokenizer's `attention_mask` (int64, 1 = a real token) passed as the padding mask as it is",
        f"convert it, inverting it: `{argument}=(attention_mask == 0)` (True where there is padding); a tokenizer's "
        "mask marks real tokens with 1, the padding mask marks padding with True",
        op="nn.MultiheadAttention", names=(),
    )


def _bool_arithmetic(found: re.Match[str], failure: Failure) -> Explanation:
    """``Subtraction, the `-` operator, with a bool tensor is not supported``."""
    del found
    return bool_arithmetic(failure)


def bool_arithmetic(failure: Failure) -> Explanation:
    """Arithmetic on bool tensors (a subtraction, or old torch's ``"add_cuda" not implemented for 'Bool'``): a mask
    inverted with ``1 - mask``, or a bool target in a regression loss."""
    if shows(failure, LOSS):
        return target(failure, ("bool",), wants_float=True)
    return explained(
        Kind.MASK, failure,
        "a bool tensor was subtracted from (or negated): torch has no arithmetic on bool masks",
        "a mask inverted with arithmetic (`1 - mask`, `-mask`), or an extended attention mask built from a bool mask "
        "(`(1.0 - mask) * min_value`)",
        "invert a bool mask with `~mask` (or `mask.logical_not()`); to build an additive mask, convert first: "
        "`(1.0 - mask.to(x.dtype)) * torch.finfo(x.dtype).min`; if the bool tensor is data used in arithmetic (a "
        "binary image or label map), convert it where it is made: `x.float()`",
        op="subtraction on a bool tensor", names=("bool",),
    )


def _int64_indices(found: re.Match[str], failure: Failure) -> Explanation:
    """max_unpool's ``elements in indices should be type int64 but got: Int``."""
    names = dtypes(found, "a")
    return explained(
        Kind.INDEX_TENSOR, failure,
        f"max_unpool got pooling indices of {dtype_list(names) if names else 'another dtype'}; they must be int64, "
        "as max_pool's `return_indices=True` returns them",
        "indices converted on the way (stored as int32 to save memory, cast with the activations, exported)",
        "pass the indices max_pool returned as they are, or convert them back: `indices.long()`",
        op="max_unpool", names=names,
    )


def _inverted_float(found: re.Match[str], failure: Failure) -> Explanation:
    """``~ (operator.invert) is only implemented on integer and Boolean-type tensors``: a mask that became floats."""
    del found
    return explained(
        Kind.MASK, failure,
        "`~` (invert) was applied to a floating tensor: it inverts only bool (and integer) tensors, so a mask became "
        "floats before it was inverted",
        "a mask cast with the rest of a batch or the model's inputs (a `-true` precision, `batch.to(dtype)`, `.half()` "
        "on every tensor) or built as 0.0/1.0 values",
        "keep masks bool: cast only floating inputs (leave masks and ids alone), or convert back before inverting: "
        "`~mask.bool()`; for a 0/1 float mask, `1 - mask`",
        op="~ (invert)", names=(),
    )


def _module_to_integer(found: re.Match[str], failure: Failure) -> Explanation:
    """``nn.Module.to only accepts floating point or complex dtypes, but got desired dtype=torch.int8``."""
    names = dtypes(found, "a")
    return explained(
        Kind.INTEGER_OPERAND, failure,
        f"`model.to({dtype_of(names[0]) if names else 'an integer dtype'})` asks to convert a model to an integer "
        "dtype, which `Module.to` refuses: casting weights to integers is not quantization",
        "an attempt to make an int8 (or int4) model, or to match a checkpoint that stores quantized weights, with "
        "`model.to(torch.int8)`",
        "quantize instead: `torch.ao.quantization.quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8)`, or load "
        "the checkpoint with the library that wrote it (bitsandbytes, torchao); keep `model.to` for float dtypes",
        op="nn.Module.to", names=names,
    )


_INDEX_ONLY = re.compile(r"convert_indices_from_")
"""Kernels torch has only for index dtypes: the sparse index conversions (``convert_indices_from_coo_to_csr``)."""
_INDEX_DISPATCHED = re.compile(r"index_select")
"""Kernels dispatched on their index's dtype as well as their data's: one that lacks a full-precision float (which every
data op takes) was given float indices."""
_INTEGER_ARITHMETIC = re.compile(r"gcd|lcm")
"""Integer arithmetic torch has no floating kernel for."""
_INTEGER_ONLY = re.compile(r"bincount|repeat_interleave|randperm|_lengths_|_offsets_")
"""Kernels torch has only for integer dtypes: counts, repeats, and those dispatched on a lengths or offsets tensor
(``_segment_reduce_lengths_cpu_kernel1``)."""


def integer_only_op(failure: Failure, op: str, names: tuple[str, ...]) -> Explanation | None:
    """A kernel torch has only for integers (``"bincount_cpu" not implemented for 'Float'``) given a floating tensor
    (one that converts sparse indices, ``convert_indices_from_coo_to_csr``, given float indices); None for other ops."""
    if names and (_INDEX_ONLY.search(op) and is_floating(names[0]) or
                  _INDEX_DISPATCHED.search(op) and names[0] in ("f32", "f64")):
        return index_tensor(failure, names, op)
    if names and _INTEGER_ARITHMETIC.search(op) and is_floating(names[0]):
        return _integer_arithmetic_given_floats(failure, op, names)
    if not _INTEGER_ONLY.search(op):
        return None
    return integer_required(failure, ("int64", *names), op, confident=True)


def _integer_arithmetic_given_floats(failure: Failure, op: str, names: tuple[str, ...]) -> Explanation:
    """``"lcm_cpu" not implemented for 'Double'``: integer arithmetic (gcd, lcm) given whole numbers stored as
    floats."""
    return explained(
        Kind.NO_KERNEL, failure,
        f"`{op}` is integer arithmetic and has no {names[0]} kernel: it was given whole numbers stored as floats",
        "integer values (sizes, counts, periods) read as floats: a column with a missing value becomes float64 in "
        "pandas, and arithmetic with a float (`/`, `* 1.0`) makes floats too",
        "convert them to integers first (`x.long()`, after filling or dropping missing values); compute with floats "
        "only where fractions are meant",
        op=op, names=names,
    )


def _condition(found: re.Match[str], failure: Failure) -> Explanation:
    names = dtypes(found, "a", "b")
    return explained(
        Kind.MASK, failure,
        f"torch.where got {a(dtype_list(names)) if names else 'a non-bool'} condition; its condition must be bool",
        "a condition built with arithmetic or kept as 0/1 numbers (`mask.float()`, an integer attention mask), or "
        "cast with the inputs to a 16-bit dtype",
        "pass a bool condition: `torch.where(cond.bool(), x, y)` (or build it with a comparison, `cond = mask > 0`)",
        op="torch.where", names=names,
    )


_NUMPY_CODES = {"f2": "f16", "f4": "f32", "f8": "f64", "i8": "int64", "u2": "uint16", "u4": "uint32", "u8": "uint64",
                "b1": "bool"}
"""numpy's type codes (``<f4`` is a little-endian float32), as PIL prints them, for the dtypes PIL refuses (uint8 it
takes, and int32 or int16 for one channel)."""


def _image_array(found: re.Match[str], failure: Failure) -> Explanation | None:
    """PIL's ``Cannot handle this data type: (1, 1, 3), <f4``: an image made from a float array; declined for a uint8
    one (then the channel count, not the dtype, is what PIL refused)."""
    if found["code"] in ("O", "object"):
        maker = "matplotlib" if found["code"] == "object" else "PIL"
        return explained(
            Kind.INTEGER_OPERAND, failure,
            f"{maker} makes images from numeric arrays (uint8 0-255 or floats) and got an object array "
            "(`dtype=object`): numpy builds one from a list of tensors, or of arrays of different shapes or dtypes",
            "frames or channels gathered in a Python list (of torch tensors, or of arrays that do not stack) and "
            "passed to `np.array`/`Image.fromarray` as they are",
            "make one numeric array first: `np.stack([f.cpu().numpy() if torch.is_tensor(f) else f for f in frames])`, "
            "then scale and convert it (`(x.clip(0, 1) * 255).round().astype(np.uint8)`)",
            op="matplotlib imshow" if maker == "matplotlib" else "PIL Image.fromarray", confidence=Confidence.LOW,
        )
    name = _NUMPY_CODES.get(found["code"])
    return None if name is None else _float_image(failure, (name,), "PIL Image.fromarray")


def _value_bits(found: re.Match[str], failure: Failure) -> Explanation:
    """torchvision's bit-depth transforms (posterize, solarize, invert, equalize) reading the number of value bits from
    an image dtype only integer images have."""
    return explained(
        Kind.INTEGER_OPERAND, failure,
        f"a torchvision transform that works on an image's bit depth (posterize, solarize, invert, equalize, "
        f"AutoAugment's policies) got {a(dtype_list(dtypes(found, 'a')))} image: only integer images (uint8) have one",
        "the transform placed after the image was converted to floats (`ToDtype(torch.float32, scale=True)`, "
        "`ToTensor()`), or given a mask or a complex tensor",
        "apply it to uint8 images, before they are converted to floats: put it (`v2.RandomInvert()`) ahead of "
        "`v2.ToDtype(...)` in the `Compose`; a mask or complex tensor does not belong in an image transform",
        op="torchvision bit-depth transform", names=dtypes(found, "a"),
    )


def _pil_input_type(found: re.Match[str], failure: Failure) -> Explanation:
    """torchvision's ``to_pil_image`` refusing a numpy array (``Input type float32 is not supported``)."""
    return _float_image(failure, dtypes(found, "a"), "to_pil_image")


def _float_image(failure: Failure, names: tuple[str, ...], op: str) -> Explanation:
    """PIL (or torchvision's ``to_pil_image``) refusing an array of ``names[0]``: floats to scale, or integers of a
    width it has no image mode for."""
    if is_floating(names[0]):
        return explained(
            Kind.INTEGER_OPERAND, failure,
            f"PIL makes images from uint8 arrays (0-255) and got {a(names[0])} array",
            "a tensor's values (floats in 0-1, a 16-bit model's output) turned into a PIL image without scaling them "
            "to 0-255 and converting to uint8",
            "scale and convert first: `Image.fromarray((x.float().clamp(0, 1) * 255).round().to(torch.uint8)"
            ".cpu().numpy())`",
            op=op, names=names,
        )
    return explained(
        Kind.INTEGER_OPERAND, failure,
        f"PIL makes images from uint8 arrays (and int16/int32 or float32 for one channel) and got {a(names[0])} array",
        f"{names[0]} data (a 16-bit satellite or medical image, a label map or mask kept as int64 or bool) turned "
        "into a PIL image as it is",
        "convert it to a type PIL takes: scale to uint8 for display (`(x / x.max() * 255).astype(np.uint8)`), or keep "
        "labels as `x.astype(np.uint8)` (or `np.int32` for one channel); for 16-bit imagery, skip PIL and make "
        "tensors directly (`torch.from_numpy(x.astype(np.float32))`)",
        op=op, names=names,
    )


def _uint8_image(found: re.Match[str], failure: Failure) -> Explanation:
    """A transform that converts uint8 images to floats (``image must have dtype torch.uint8``) given a float one, named
    float32 when the paste says so."""
    return explained(
        Kind.INTEGER_OPERAND, failure,
        f"a transform that takes uint8 images (0-255) and converts them to floats got a floating {found['what']}",
        "a uint8-to-float step (`ConvertUint8ToFloat`, `ConvertImageDtype`) left in a pipeline whose loader already "
        "returns floats (a video dataset decoding to float32, a tensor already divided by 255)",
        "drop the uint8-to-float step when the data is already float (pytorchvideo's `create_video_transform(..., "
        "convert_to_float=False)`), or hand it uint8 data",
        op="a uint8 image transform", names=("uint8", "f32") if paste_search(failure, FLOAT32_SAID) else ("uint8",),
    )


def number_in_where(failure: Failure, names: tuple[str, ...]) -> Explanation:
    """``torch.where(cond, 0, x)`` in a torch that did not promote there: the Python number became an int64 tensor
    that meets a floating one."""
    return explained(
        Kind.INTEGER_OPERAND, failure,
        f"torch.where got a Python integer and a floating tensor ({dtype_list(names)}): this torch turns the number "
        "into an int64 tensor and does not promote the two",
        "an integer literal as one of `torch.where`'s values (`torch.where(mask, 0, x)`)",
        "write the number as a float (`torch.where(mask, 0.0, x)`) or as a tensor of the other value's dtype "
        "(`torch.zeros_like(x)`); newer torch promotes here",
        op="torch.where", names=names,
    )


def _float_only_op(found: re.Match[str], failure: Failure) -> Explanation:
    return integer_operand(failure, (), found["op"])


def _float_only(found: re.Match[str], failure: Failure) -> Explanation | None:
    """An op that takes only floating tensors (``cdist only supports floating-point dtypes``) given an integer one;
    declined when the dtype named is floating (another check's wording)."""
    names = dtypes(found, "a", "b", "c", "d")
    return integer_operand(failure, names, None) if names and not is_floating(names[0]) else None


def _dtype_rather_than(found: re.Match[str], failure: Failure) -> Explanation | None:
    """Prose that gives a tensor's dtype and the one it should have (``target_smooth's dtype is float rather than
    Long``), one floating and one integer: a loss's target when the tensor's name says target or label, else integer
    data where integers go (or the reverse); said with low confidence."""
    got, wanted = dtypes(found, "got"), dtypes(found, "wanted")
    if not got or not wanted or is_floating(got[0]) == is_floating(wanted[0]):
        return None
    if _TARGET_NAME.search(found["name"]):
        read = target(failure, got, wants_float=is_floating(wanted[0]))
    elif is_floating(got[0]):
        read = integer_required(failure, wanted + got, None, confident=False)
    else:
        read = integer_operand(failure, got + wanted, None)
    return read.less_sure("the report gives the dtypes in its own words, not torch's message")


_TARGET_NAME = re.compile(r"target|label|y_true|ground_?truth", re.IGNORECASE)


def _finfo_of_integer(found: re.Match[str], failure: Failure) -> Explanation:
    """``torch.finfo() requires a floating point input type``: torch.finfo asked about an integer or bool dtype."""
    del found
    return explained(
        Kind.INTEGER_OPERAND, failure,
        "torch.finfo was asked about an integer or bool dtype; it describes floating dtypes only (torch.iinfo "
        "describes integer ones)",
        "code that takes every tensor's range or size from `torch.finfo(t.dtype)` (a checkpoint converter, a clamp "
        "to a dtype's limits) meeting an integer or bool tensor: quantized weights, masks, position ids, counters",
        "branch on the dtype: `torch.finfo(t.dtype) if t.is_floating_point() else torch.iinfo(t.dtype)` (bool has "
        "neither: skip it); for a size in bytes use `t.element_size()`. Not a precision problem",
        op="torch.finfo",
    )


def _attention_mask(found: re.Match[str], failure: Failure) -> Explanation:
    names = dtypes(found, "a")
    return explained(
        Kind.MASK, failure,
        f"the attention mask is {a(dtype_list(names)) if names else 'a non-bool'} tensor and this model takes a bool "
        "mask (True where attention is allowed or masked, as the model defines it)",
        "a tokenizer's 0/1 integer `attention_mask` passed straight to a model whose own code (ChatGLM's, a "
        "custom attention) builds or expects a bool mask",
        "pass a bool mask (`attention_mask.bool()`, or `attention_mask == 0` if the model marks masked positions "
        "with True), or update the model's code / transformers version it was written for",
        op="attention mask", names=names,
    )


def mask_argument(failure: Failure, names: tuple[str, ...]) -> Explanation:
    """An op's ``mask`` argument of another dtype than the one it takes (``names``: expected, got); old torch took
    uint8 masks where newer torch takes bool."""
    wanted, got = (names + ("another", "another"))[:2]
    old_byte = (wanted, got) == ("uint8", "bool")
    return explained(
        Kind.MASK, failure,
        f"an op's `mask` argument must be {a(wanted)} tensor but got {a(got)} one",
        "a bool mask (what a comparison returns) passed to torch before 1.2, whose masked_select/masked_fill/"
        "masked_scatter took uint8 (Byte) masks" if old_byte else
        "a mask built with arithmetic or loaded as numbers instead of made by a comparison",
        "convert the mask where it is passed (`mask.byte()`), or update torch: since 1.2 masks are bool" if old_byte
        else f"convert the mask: `mask.to({dtype_of(wanted)})` (a comparison such as `x > 0` gives a bool mask)",
        op="argument 'mask'", names=names,
    )


def masks_combined(failure: Failure, names: tuple[str, ...], op: str | None) -> Explanation:
    """Old torch's bitwise op (``_th_or``, ``_th_and``; ``op`` when the message names it) refusing a bool mask beside
    a uint8 one: masks of the two eras met without promotion."""
    shown = f"a bitwise op (`{op}`: `|`, `&`, `^`)" if op else "an op on two masks (`&`, `|`, `^`, or a comparison)"
    return explained(
        Kind.MASK, failure,
        f"{shown} combined a bool mask with a uint8 one: torch 1.2 made comparisons "
        "return bool where masks had been uint8, and torch of that age did not promote between the two",
        "code written for torch before 1.2 (uint8 masks, `.byte()`) run on a newer torch, or one mask made by a "
        "comparison (bool) and another built or converted as uint8",
        "make both masks one dtype before combining them: bool (`mask.bool()`, replacing the code's `.byte()` masks), "
        "or, where the code does arithmetic on them (`torch.max`, sums), both uint8 (`(a > b).byte()`); current torch "
        "promotes there. Or run the torch version the code was written for (its README or requirements name one)",
        op=op or "an op on masks", names=names,
    )


def attention_mask(failure: Failure, mask: tuple[str, ...], query: tuple[str, ...]) -> Explanation:
    """An integer attention mask given to scaled_dot_product_attention."""
    return explained(
        Kind.MASK, failure,
        f"scaled_dot_product_attention got an integer attention mask ({dtype_list(mask)}) for a "
        f"{dtype_list(query) if query else 'floating'} query; a mask must be bool (True = attend) or a float "
        "bias in the query's dtype",
        "a tokenizer's `attention_mask` (int64 0/1) passed as `attn_mask` without conversion",
        "convert it: `attn_mask=mask.bool()` (or an additive float mask `.to(q.dtype)`)",
        op="scaled_dot_product_attention", names=mask + query,
    )


_BCE_SAID = re.compile(r"\bBCE(?:WithLogits)?(?:Loss)?\b|\bbinary[_ ]cross[_ ]entropy", re.IGNORECASE)
"""A binary cross-entropy named in a report's title or prose (``originate from BCE loss function``)."""


def _result_cast(found: re.Match[str], failure: Failure) -> Explanation:
    names = dtypes(found, "a", "b")
    result, out = names if len(names) == 2 else ("f32", "int64")
    if shows(failure, LOSS):
        return target(failure, (out,), wants_float=True, op="binary_cross_entropy_with_logits", prediction=(result,))
    if paste_search(failure, _BCE_SAID):
        return target(failure, (out,), wants_float=True, op="binary_cross_entropy_with_logits",
                      prediction=(result,)).less_sure(
            "the paste names a BCE loss but its traceback does not show the loss raising")
    widened, cast = ("floating", "float()") if is_floating(result) else (result, f"to({dtype_of(result)})")
    return explained(
        Kind.RESULT_CAST, failure,
        f"an in-place op (or one with `out=`) computed {a(result)} result but must store it in {a(out)} tensor",
        f"{a(out)} tensor updated with floats: `x += 0.5 * y`, `x.clamp_(0, limit)` with a float limit, an average "
        "taken over all of a state dict's tensors (integer buffers such as BatchNorm's `num_batches_tracked` "
        "included)",
        f"make the destination {widened} (`x = x.{cast}`, or not in place: `x = x + y`), or convert the value to "
        "the destination's dtype (`y.to(x.dtype)`, `.long()` for int64); when averaging state dicts, skip or cast "
        "non-floating entries",
        op="in-place update", names=(result, out),
    )


_integer_data_into_parameter = message_only(
    Kind.INTEGER_OPERAND,
    "an integer tensor was assigned as the `.data` of a tensor that requires gradients (a parameter): a tensor that "
    "takes gradients must stay floating",
    "quantization or compression code writing integer codes into a model's parameters (`param.data = "
    "torch.round(w / scale).to(torch.int8)`), or a loader putting int8 checkpoint tensors into float parameters",
    "keep integer codes out of parameters: store them in a buffer (`module.register_buffer('qweight', q)`) or write "
    "back the dequantized floats (`param.data = q.float() * scale`), or make the parameter "
    "`requires_grad_(False)` first; if a library's script does it, update it or match the torch version it names",
    op="Tensor.data assignment",
)


_integer_autograd_output = message_only(
    Kind.INTEGER_OPERAND,
    "autograd met an integer tensor where it needs a floating gradient: an output of a custom autograd Function (or "
    "extension) is integer but was left differentiable, or its backward returned an integer gradient",
    "a `torch.autograd.Function` (often a compiled extension's op: ball query, grouping, sampling indices) whose "
    "forward returns indices or counts without marking them, in code written for an older torch",
    "in the Function's forward, mark integer outputs `ctx.mark_non_differentiable(idx)` and return `None` (or a "
    "floating tensor) for their gradients in backward; if the Function is a library's, update it",
    op="custom autograd Function",
)


def _integer_gradient(found: re.Match[str], failure: Failure) -> Explanation:
    """``only Tensors of floating point dtype can require gradients``, with the integer dtype the report's prose gives
    the tensor (``X_categorical is of type long``), when it gives one."""
    del found
    said = paste_search(failure, _INTEGER_TYPE_SAID)
    return explained(
        Kind.INTEGER_OPERAND, failure,
        "a gradient was asked of a tensor that is not floating (an integer or bool tensor): only floating-point and "
        "complex tensors can require gradients",
        "a parameter or tensor that is integer made trainable: the int8/4-bit weights of a model loaded quantized "
        "(`load_in_8bit`, a loop setting `requires_grad = True` on every parameter), or `torch.tensor([1, 2], "
        "requires_grad=True)` built from integers; or token ids given `requires_grad` for saliency or attribution",
        "set `requires_grad` only where `p.is_floating_point()`; for a quantized model train adapters (LoRA, peft's "
        "`prepare_model_for_kbit_training`) instead of its weights; for data, build it floating (`torch.tensor([1.0, "
        "2.0])`, `x.float()`); for gradients with respect to tokens, take them on the embeddings (`embeds = "
        "model.get_input_embeddings()(ids).requires_grad_()`, then `model(inputs_embeds=embeds)`). Not a precision "
        "problem: a policy does not convert integer tensors",
        op="requires_grad", names=dtypes(said, "t") if said else (), confidence=Confidence.LOW,
    )


_INTEGER_TYPE_SAID = re.compile(
    r"\b(?:of type|as|dtype(?: is)?|is an?) [`'\"]?(?P<t>(?:torch\.)?(?:long|int64|int32|int16|int8|uint8|LongTensor|"
    r"IntTensor))\b", re.IGNORECASE)
"""Prose that gives a tensor an integer type (``is of type long``, ``dtype is torch.int64``)."""


def quantized_copy(failure: Failure, names: tuple[str, ...]) -> Explanation:
    """A weight copy from an integer source into a floating destination (``names``: source, destination): a quantized
    weight (4-bit packed in uint8) sent where a real one belongs."""
    packed = _speaks_of_quantization(failure)
    return explained(
        Kind.INTEGER_OPERAND, failure,
        f"a weight copy got {a(names[0])} source for {a(names[-1])} destination: an integer tensor where a floating "
        "weight belongs" + (", which is a quantized weight (4-bit weights are packed in uint8)" if packed else ""),
        "a model loaded quantized (`load_in_4bit`, QLoRA) whose packed weights are synced, broadcast or saved as if "
        "they were real weights (weight sync to an inference engine, a state dict, a merge)",
        "dequantize (or merge the adapters into a bf16 copy) before syncing or saving, or load the model unquantized "
        "for that path; if a library does the copy, update it (or see whether it supports quantized models). Not a "
        "precision-policy problem",
        op="a weight copy", names=names, confidence=Confidence.LOW,
    )


def _no_output_dtype(found: re.Match[str], failure: Failure) -> Explanation:
    """A reduction (``mean()``, ``std()``; unnamed when the paste cut its name off) that cannot infer a floating output
    dtype from integer input."""
    return integer_operand(failure, dtypes(found, "a"), found.group("op"))


def _float_expected(found: re.Match[str], failure: Failure) -> Explanation | None:
    """A converter's or library's check that an input is floating (``expects float tensor or scalar but got int32``);
    declined for a floating dtype."""
    names = dtypes(found, "a")
    return integer_operand(failure, names, None) if names and _integer(names[0]) else None


def _integer_output(found: re.Match[str], failure: Failure) -> Explanation | None:
    """torch.func's ``vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got Tensor with dtype
    torch.int64``: a function differentiated (``jacrev``, ``grad``, ``vjp``) that returns integers; declined for a
    floating dtype (not a message torch gives)."""
    names = dtypes(found, "a")
    if names and is_floating(names[0]):
        return None
    return explained(
        Kind.INTEGER_OPERAND, failure,
        f"torch.func differentiates only floating outputs, and the function given to it returns "
        f"{a(dtype_list(names)) if names else 'an integer'} tensor: integers have no gradient",
        "a prediction taken as integers inside the function differentiated (`logits.argmax(-1)`, a comparison, a "
        "`.long()` label) for a saliency map, a Jacobian or per-sample gradients",
        "return a floating output instead: the score of the predicted class (`logits.gather(-1, "
        "logits.argmax(-1, keepdim=True))`) or the logits themselves, and take the argmax outside the transform",
        op="torch.func.vjp (jacrev, grad)", names=names,
    )


_grouped_offsets = message_only(
    Kind.INDEX_TENSOR,
    "a grouped matmul (`F.grouped_mm`, `torch._grouped_mm`) takes its group offsets `offs` as int32, and got another "
    "dtype",
    "offsets built from token counts per expert with `bincount`/`cumsum`, which give int64",
    "convert them where they are made: `offs = counts.cumsum(0).to(torch.int32)`",
    op="grouped_mm", names=("int32",),
)
"""``Offsets have to be int32``: ``torch._grouped_mm``/``F.grouped_mm`` given its group offsets in int64."""


def _integer_table(found: re.Match[str], failure: Failure) -> Explanation | None:
    """``Expected tensor for argument #1 'weight' to have one of the following scalar types: Half, BFloat16, Float,
    Double; but got torch.CharTensor instead (while checking arguments for embedding_bag)``: an integer tensor where a
    floating one is required; an int8 or uint8 weight is a quantized table. Declined for a floating dtype."""
    names = dtypes(found, "a")
    if not names or is_floating(names[0]):
        return None
    op = found["op"] or f"the op taking `{found['arg']}`"
    if found["arg"] != "weight" or names[0] not in ("int8", "uint8"):
        return integer_operand(failure, names, op)
    return explained(
        Kind.INTEGER_OPERAND, failure,
        f"{op} got {a(names[0])} `weight` where it takes a floating one: an {names[0]} table or weight here is a "
        "quantized one, which this op cannot read",
        "an embedding table or weight quantized to 8 bits to save memory (for serving, retrieval) passed to the "
        "plain op as it is",
        "dequantize before the op (`weight.float() * scale`, then the dtype you compute in), or better, look up the "
        "int8 rows first and dequantize only those (`F.embedding(ids, q_weight).float() * scale[ids]`); or use a "
        "quantized op built for 8-bit tables",
        op=op, names=names,
    )


def _compressed_indices(found: re.Match[str], failure: Failure) -> Explanation:
    """A sparse CSR/CSC tensor's ``crow_indices and col_indices must have the same dtype, bot got Int and Long``
    (torch's spelling): scipy's int32 ``indptr`` beside int64 indices."""
    return integer_pair(Kind.INDEX_TENSOR, failure, dtypes(found, "a", "b"),
                        f"a sparse tensor's `{found['compressed']}_indices` and `{found['plain']}_indices`")


def _integral_divergence(found: re.Match[str], failure: Failure) -> Explanation:
    """``kl_div: Integral inputs not supported``: a one-hot or count target (integer) in a KL divergence."""
    del found
    return target(failure, (), wants_float=True, op="kl_div")


def _metric_scores(found: re.Match[str], failure: Failure) -> Explanation:
    """torchmetrics' ``Expected argument `preds` to be an floating tensor with probability/logit scores, but got tensor
    with dtype torch.bool``: a thresholded prediction where a score-based metric (AUROC, AUPRO, AP) needs scores."""
    names = dtypes(found, "a")
    return explained(
        Kind.INTEGER_OPERAND, failure,
        f"the metric takes `preds` as float scores (probabilities or logits) and got {a(names[0])} tensor: "
        "threshold-free metrics (AUROC, AUPRO, average precision) rank the scores, so labels or 0/1 decisions will "
        "not do",
        "predictions thresholded before the metric (`preds > 0.5`, an anomaly map turned into a mask, `argmax`), or "
        "integer labels passed as `preds`",
        "pass the scores the model gave before thresholding (`preds=scores.float()`, `torch.sigmoid(logits)`); keep "
        "the thresholded mask for metrics that take labels",
        op="a torchmetrics score-based metric", names=names,
    )


def _asserted_dtypes(found: re.Match[str], failure: Failure) -> Explanation | None:
    """pytest's ``AssertionError: torch.int32 == torch.float32`` (an ``assert out.dtype == x.dtype`` that failed):
    a function returned integers where a float was expected, or the reverse; declined for two floats or one dtype."""
    names = dtypes(found, "a", "b")
    if failure.error_type != "AssertionError" or len(set(names)) < 2 or not integer_names(names) or \
            all_integer(names):
        return None
    return explained(
        Kind.INTEGER_OPERAND, failure,
        f"a check that a tensor is {names[1]} found {names[0]}: a function returned (or was given) an integer tensor "
        "where a floating one was expected, or the reverse",
        "an image or array library that keeps the integer dtype of its input (uint8/int32 pixels) or casts its "
        "result to integers, or float data where integer codes belong",
        f"convert at the boundary: `x.to(torch.{full_name(names[1])})` before (or after) the call, or pass the dtype "
        "the function expects",
        op="a dtype assertion", names=names, confidence=Confidence.LOW,
    )


RULES: tuple[Rule, ...] = (
    rule(r"^(?P<a>torch\.\w{1,20}) == (?P<b>torch\.\w{1,20})$", _asserted_dtypes),
    rule(r"Expected argument `preds` to be an? floating tensor with probability/logit scores, but got tensor with "
         r"dtype (?P<a>{DTYPE})", _metric_scores),
    rule(r"\bstart must be an 0-dim integral Tensor", _tensor_start),
    rule(r"\bkl_div: Integral inputs not supported", _integral_divergence),
    rule(r"\bvjp\(f, \.\.\.\): All outputs of f must be floating-point or complex Tensors,? got Tensor with dtype "
         r"(?P<a>{DTYPE})", _integer_output),
    rule(r"^Offsets have to be int32\.?$", _grouped_offsets),
    rule(r"\b(?P<compressed>crow|ccol)_indices and (?P<plain>col|row)_indices must have the same dtype,? b[ou]t got "
         r"(?P<a>{DTYPE}) and (?P<b>{DTYPE})", _compressed_indices),
    rule(r"Expected tensor for argument #\d+ '(?P<arg>(?!indices')\w{1,30})' to have (?:one of the following )?scalar "
         r"types?:?\s*(?:Half|BFloat16|Float|Double)(?:,\s*(?:Half|BFloat16|Float|Double)){0,3};?\s*but got "
         r"(?P<a>{DTYPE}) instead(?:\s*\(while checking arguments for (?P<op>\w{1,40})\))?", _integer_table),
    rule(r"only integer tensors of a single element can be converted to an index", _tensor_as_python_index),
    rule(r"slice indices must be integers or None or have an __index__ method", _float_slice_bound),
    rule(r"Integers to negative integer powers are not allowed", _negative_power),
    rule(r"Expected (?P<arg>\w{1,30}) to have floating point type,? but got (?P<a>{DTYPE})|Expected floating point "
         r"type for (?P<arg2>\w{1,30}) tensor,? but received (?P<b>{DTYPE})|`(?P<arg3>\w{1,30})` must be a floating "
         r"point Tensor but is a (?P<c>{DTYPE})", _floating_argument),
    rule(r"\bbincount only supports 1-d non-negative integral inputs", _bincount_input),
    rule(r"Promotion of int\.add/sub_?\(float\) in in-place ops are not possible", _promoted_in_place),
    rule(r"torch\.(?:cat|stack)\(\): input types can't be cast to the desired output type (?P<a>{DTYPE})",
         _joined_into_narrower),
    rule(r"expected predicate to be bool,? got (?P<a>{DTYPE})", _mask),
    rule(r"\bmask\.dtype must be torch\.bool,? got (?P<a>{DTYPE})", _mask),
    rule(r"\b(?P<arg>input_lengths|target_lengths) must be integral", _integral_lengths),
    rule(r"The shape of the mask \[[^\]\n]{0,80}\] at index \d+ does not match the shape of the indexed tensor",
         _byte_index_as_mask),
    rule(r"expected target dtype to be Long or Byte,?\s*but got (?P<a>{DTYPE})", _classification_target),
    rule(r"Expected floating point type for target with class probabilities,?\s*got (?P<a>{DTYPE})",
         _probability_target),
    rule(r"Expected tensor for argument #\d+ 'indices' to have (?:one of the following )?scalar types?:?\s*"
         r"[\w, ]+;?\s*but got (?:(?P<a>{DTYPE}) instead|torch\.(?:cuda\.)?"
         r"(?P<cut>Int|Long|Short|Byte|Char|Float|Double|Half|BFloat16)(?:T(?:e(?:n(?:s(?:or?)?)?)?)?)?$)",
         _index_tensor),
    rule(r"encountered an error indexing dim \d+ with an object of type torch\.(?:cuda\.)?(?P<a>\w{1,12}Tensor)\b",
         _index_tensor),
    rule(r"tensors used as indices must be (?:(?:long|int|byte|bool|or)\b[,\s]*){2,8}tensors?", _index_tensor),
    rule(r"(?P<op>one_hot) is only applicable to index tensor(?: of type (?P<want>\w{1,20}))?", _index_tensor),
    rule(r"(?P<op>tensor_split) expected tensor_indices_or_sections to have dtype of long,? but got (?P<a>{DTYPE})",
         _index_tensor),
    rule(r"\bArgument `?(?P<arg>\w{1,40})`? needs to be of type `?(?P<want>torch\.long|torch\.int64)`? but found type "
         r"`?(?P<a>{DTYPE})`?", _index_tensor),
    rule(r"\bnp\.ndarray of dtype long or bool are valid indices", _index_tensor),
    rule(r"\bassert (?P<arg>\w{1,40})\.dtype == (?P<want>torch\.long|torch\.int64)\b", _index_tensor),
    rule(r"(?P<op>index_select|gather|index_add_?|index_copy_?|scatter\w*|take)(?:_out)?(?:_cpu|_cuda|_gpu)?\(\): "
         r"Expected "
         r"(?:dtype (?P<want>int(?:32|64))(?:/(?P<also>int64))?|a long tensor)"
         r"(?: for index,? but got:? (?P<a>{DTYPE}))?",
         _index_tensor),
    rule(r"masked_fill_? only supports boolean masks,? but got mask with dtype (?P<a>{DTYPE})", _mask),
    rule(r"(?P<op>masked_(?:select|scatter|fill)_?): expected BoolTensor (?:or ByteTensor )?for mask", _mask),
    rule(r"only bool and floating types of (?P<arg>(?:src_|tgt_|memory_)?key_padding_mask|attn_mask) are supported",
         _padding_mask),
    rule(r"~ \(operator\.invert\) is only implemented on integer and Boolean-type tensors", _inverted_float),
    rule(r"(?:Subtraction|Negation), the `-` operator, (?:with|on) (?:a|two) bool tensors? (?:is|are) not supported",
         _bool_arithmetic),
    rule(r"elements in indices should be type int64 but got:? (?P<a>{DTYPE})", _int64_indices),
    rule(r"dtype of (?:the )?attention mask \((?P<a>{DTYPE})\) is not bool", _attention_mask),
    rule(r"where(?:\(\))?:? expected condition to be a boolean tensor,? but got a tensor with dtype (?P<a>{DTYPE})|"
         r"Expected condition to have ScalarType (?:Byte|Bool),? but got ScalarType (?P<b>{DTYPE})", _condition),
    rule(r"Expected a floating point or complex tensor as input\.?\s*Got (?P<d>{DTYPE})|"
         r"\bonly supports? floating-point dtypes\b[^\n]{0,40}?got:?\s*(?P<a>{DTYPE})|expected common dtype to be "
         r"floating point,? yet common dtype is (?P<b>{DTYPE})|(?:expected input to have|input dtype should be either) "
         r"floating point or complex(?: dtype)?[^\n]{0,20}?(?:but got|Got)\s*(?P<c>{DTYPE})", _float_only),
    rule(r"\b(?P<op>var_mean|std_mean|std and var) only supports? floating point and complex dtypes", _float_only_op),
    rule(r"torch\.finfo\(\) requires a floating point input type", _finfo_of_integer),
    rule(r"(?P<name>[\w.]{1,40})(?:'s)? d?type is (?P<got>float(?:16|32|64)?|double|half|long|int(?:8|16|32|64)?|bool)"
         r" (?:rather than|instead of) (?P<wanted>float(?:16|32|64)?|double|half|long|int(?:8|16|32|64)?|bool)\b",
         _dtype_rather_than),
    rule(r"Expected (?P<op>primal) to be floating point or complex,? but got:? (?P<a>{DTYPE})", _no_output_dtype),
    rule(r"nn\.Module\.to only accepts floating point or complex dtypes,? but got desired dtype=(?P<a>{DTYPE})",
         _module_to_integer),
    rule(r"\b(?P<op>stft|istft)\((?P<a>[\w.]{1,30}Tensor)\b[^\n]{0,300}?expected a tensor of floating point or complex "
         r"values", _no_output_dtype),
    rule(r"Cannot handle this data type: \(1, 1(?:, \d{1,4})?\), [<>|=]?(?P<code>[fiub]\d{1,2}|O)\b", _image_array),
    rule(r"^Input type (?P<a>uint(?:16|32|64)|int(?:8|16|32|64)|float(?:16|32|64)) is not supported", _pil_input_type),
    rule(r"Image data of dtype (?P<code>object) cannot be converted to float", _image_array),
    rule(r"Number of value bits is only defined for integer dtypes,? but got (?P<a>{DTYPE})", _value_bits),
    rule(r"\b(?P<what>image|video|frame|clip) must (?:have|be of) dtype (?:torch\.)?uint8\b", _uint8_image),
    rule(r"\b(?:dtype of indices should be|indices dtype must be) (?:Int or )?Long,? but got (?P<a>{DTYPE})",
         _index_tensor),
    rule(r"\b(?:graph|edge_index|indices|index) must be of type int32 or int64,? but got (?P<a>{DTYPE})",
         _index_tensor),
    rule(r"too many indices for tensor of dimension \d+|The shape of the mask \[[\d, ]*\] at index \d+ does not match",
         _uint8_as_mask),
    rule(r"only Tensors of floating point (?:and complex )?dtype can require gradients", _integer_gradient),
    rule(r"data set to a tensor that requires gradients must be floating point or complex dtype",
         _integer_data_into_parameter),
    rule(r"Expected isFloatingType\(grads?\[i\]\.(?:type\(\)\.)?scalar_?[Tt]ype\(\)\) to be true",
         _integer_autograd_output),
    rule(r"result type (?P<a>{DTYPE}) ?(?:can'?t|cannot) be cast to the desired output type (?P<b>{DTYPE})",
         _result_cast),
    rule(r"masked_\w{1,12}?_? only supports boolean masks,? but got mask with dtype (?P<a>{DTYPE})",
         _bool_mask_only),
    rule(r"Expected input images to be of floating type \(in range \[0, 1\]\),? but found type (?P<a>{DTYPE})",
         _detection_images),
    rule(r"Expect argument \"?(?P<arg>[^\n]{1,80}?)\"? to have data type (?P<want>torch\.\w{1,10})(?: and device "
         r"context \w{1,10})?\.? But got (?P<a>torch\.\w{1,10})", _graph_library_ids),
    rule(r"Index data specified as (?P<want>\w{1,10}),? but got:? (?P<a>\w{1,10})", _graph_library_ids),
    rule(r"`MessagePassing\.propagate` only supports `torch\.LongTensor` of shape `\[2, num_messages\]`", _edge_index),
    rule(r"Expected '(?P<arg>edge_index)' to be of type 'torch\.long' \(got '(?P<a>torch\.\w{1,10})'\)", _edge_index),
    rule(r"(?:\b(?P<op>\w{1,80})\(\): could not infer output dtype\.\s*)?Input dtype must be either a floating "
         r"point or complex dtype\.?\s*Got: (?P<a>{DTYPE})", _no_output_dtype),
    rule(r"\bexpects? (?:a )?float tensor(?: or scalar)?,? but got (?P<a>{DTYPE})", _float_expected),
    rule(r"Can only calculate the (?P<op>mean) of floating types\. Got (?P<a>{DTYPE}) instead", _no_output_dtype),
)


def all_integer(names: tuple[str, ...]) -> bool:
    """Whether there are at least two short dtype names and all are integers or bools."""
    return len(names) >= 2 and all(_integer(name) for name in names)


def integer_names(names: tuple[str, ...]) -> bool:
    """Whether any of the short dtype names is an integer or bool dtype."""
    return any(_integer(name) for name in names)


def _integer(name: str) -> bool:
    """Neither floating nor complex: an integer or bool dtype, or a name torch has no dtype for."""
    return not (is_floating(name) or is_complex(name))


def class_index_loss(failure: Failure) -> bool:
    """Whether the frames show a class-index loss (cross_entropy, nll_loss, multi_margin), or torch.compile's wrapper
    says it was tracing one."""
    traced = traced_call(failure)
    return shows(failure, CLASS_INDEX_LOSS, everywhere=True) or bool(traced and CLASS_INDEX_LOSS.pattern.search(traced))
