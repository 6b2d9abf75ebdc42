"""numpy has no bfloat16 and no float8: ``.numpy()`` on such a tensor raises a TypeError. The other way, torch could
not read the dtype of numpy scalars inside a list (``Could not infer dtype of numpy.float32``), and numpy cannot read
a torch dtype (``Cannot interpret 'torch.bfloat16' as a data type``). OpenCV, fed numpy arrays, takes no
float16 ones."""

from __future__ import annotations

import re

from castwise.explainer.advice import a, dtype_list
from castwise.explainer.clues import low_precision_said, paste_search
from castwise.explainer.explanation import Confidence, Explanation, Kind
from castwise.explainer.failures import Failure
from castwise.explainer.rules import Rule, dtype_read, dtypes, explained, message_only, rule
from castwise.explainer.spelling import full_name, short_dtype, short_dtypes


def _unsupported(found: re.Match[str], failure: Failure) -> Explanation:
    names, dtype = dtype_read(found, "a")
    if not names and found.end() == len(found.string.rstrip()):
        names = _completed(found["a"])
        dtype = names[0] if names else dtype
    return _unsupported_names(failure, names, dtype, Confidence.HIGH)


_NUMPY_LACKS = {"BFloat16": "bf16", "ComplexHalf": "complex32", "Float8_e4m3fn": "float8_e4m3fn",
                "Float8_e5m2": "float8_e5m2", "UInt16": "uint16", "UInt32": "uint32", "UInt64": "uint64"}
"""torch's names of the dtypes numpy lacks, with their short names."""


def _completed(cut: str) -> tuple[str, ...]:
    """The one dtype numpy lacks whose torch name a message cut at the end of the paste starts with (``BF``)."""
    found = [short for name, short in _NUMPY_LACKS.items() if len(cut) >= 2 and name.startswith(cut)]
    return tuple(found) if len(found) == 1 else ()


def _numpy_dtype_class(found: re.Match[str], failure: Failure) -> Explanation:
    """``expected dtype object, got 'numpy.dtype[float64]'``: a compiled library (numba, an extension) older than the
    numpy it runs with (numpy 1.20 made each dtype its own class)."""
    names, dtype = dtype_read(found, "a")
    return explained(
        Kind.NUMPY_DTYPE, failure,
        f"a compiled library was given numpy's {dtype} dtype as a `numpy.dtype[...]` class, which its version does not "
        "read: it was built for an older numpy",
        "numba (or a C extension) older than the installed numpy (numpy 1.20 and later give each dtype its own class), "
        "often after numpy was upgraded alone",
        "update numba (or the extension) to a release made for this numpy, or install the numpy it was built for "
        "(`pip install 'numpy<X'` as its release notes say)",
        op="numpy dtype in a compiled library", names=names, confidence=Confidence.LOW,
    )


def _numpy_scalar_in_sequence(found: re.Match[str], failure: Failure) -> Explanation:
    """Old torch's ``tried to construct a tensor from a nested float sequence, but found an item of type
    numpy.float32``: a Python list of numpy scalars given to a tensor constructor."""
    names, dtype = dtype_read(found, "a")
    return explained(
        Kind.NUMPY_DTYPE, failure,
        f"a tensor was built from a Python list holding numpy {dtype} scalars, which this torch's constructor does "
        "not take as floats",
        "a list filled from numpy (`[row[i] for ...]` over an array, `list(array)`) given to `torch.FloatTensor(...)` "
        "or `torch.tensor(...)`",
        "build from the array itself: `torch.from_numpy(np.asarray(values, dtype=np.float32))`, or convert the items "
        "(`[float(v) for v in values]`); update torch, whose constructors take numpy scalars",
        op="tensor constructor", names=names,
    )


def _unsupported_names(failure: Failure, names: tuple[str, ...], dtype: str, confidence: Confidence) -> Explanation:
    """A tensor of ``dtype`` (``names``), which numpy lacks, turned into a numpy array."""
    return explained(
        Kind.NUMPY_DTYPE, failure,
        f"numpy has no {dtype} dtype, so {a(dtype)} tensor cannot become a numpy array",
        f"`.numpy()` / `np.asarray(tensor)` on a tensor of {a(dtype)} model (an output, a loss or a metric logged as "
        "it is), or a checkpoint converter reading bf16 weights through numpy",
        "convert first: `x.float().numpy()` (or `x.to(torch.float32)`; `x.item()` for one number); to keep the exact "
        "bits, `x.view(torch.int16).numpy()` for bf16",
        op="numpy conversion", names=names, confidence=confidence,
    )


def _extension_array(found: re.Match[str], failure: Failure) -> Explanation:
    """``can't convert np.ndarray of type bfloat16``: an array of ml_dtypes' bfloat16 or float8 (what JAX, TensorFlow
    and Flax checkpoints hand numpy), which torch cannot read."""
    names, dtype = dtype_read(found, "a")
    return explained(
        Kind.NUMPY_DTYPE, failure,
        f"torch cannot read a numpy array of {dtype}: numpy itself has no {dtype}, and the extension dtype that "
        "ml_dtypes adds (used by JAX, TensorFlow and Flax) is not one torch knows",
        f"{a(dtype)} array from JAX or Flax (a checkpoint converted with `from_flax=True`, `np.asarray` of a jax "
        "array, a TensorFlow tensor's `.numpy()`) passed to `torch.from_numpy`/`torch.tensor`",
        "convert on the numpy side first (`arr.astype(np.float32)`), or keep the bits: `torch.from_numpy(arr.view("
        "np.uint16)).view(torch.bfloat16)` for bf16",
        op="torch.from_numpy", names=names,
    )


_numpy_abi = message_only(
    Kind.NUMPY_DTYPE,
    "torch could not take the numpy array as one: it was built against another numpy major version (1.x against "
    "2.x), so an `ndarray` of the installed numpy is not the type its compiled code checks for",
    "numpy 2 installed (often pulled in by another package) under a torch built for numpy 1, or the reverse",
    "install the numpy version this torch was built for (`pip install 'numpy<2'` for torch before 2.3), or upgrade "
    "torch to a release built for numpy 2",
    op="torch.from_numpy", confidence=Confidence.LOW,
)


_onnx_bfloat16_array = message_only(
    Kind.NUMPY_DTYPE,
    "onnx's dtype table has no entry for the array's bfloat16 dtype: numpy has no bf16, and the structured "
    "`(uint16, [('bfloat16', ...)])` stand-in one library makes is not the one another library's table knows",
    "bf16 weights or inputs turned into numpy arrays for onnx (`numpy_helper.from_array`, an exporter or onnxscript "
    "building initializers) with an onnx/onnxscript/ml_dtypes combination whose bfloat16 stand-ins differ",
    "update onnx, onnxscript and ml_dtypes together (newer onnx reads ml_dtypes' bfloat16); or convert the tensor "
    "to fp32 before it becomes an array (`t.float().numpy()`) and cast to bf16 in the graph",
    op="onnx numpy_helper", names=("bf16",),
)


def _numpy_lacks_said(found: re.Match[str], failure: Failure) -> Explanation | None:
    """A numpy dtype error (``unsupported numpy dtype``, retyped or not) beside bf16 or fp8 named in the paste, which
    numpy has no dtype for; declined when neither is named."""
    names = tuple(name for name in low_precision_said(failure) if name != "f16")
    return _unsupported_names(failure, names[:1], names[0], Confidence.LOW) if names else None


_numpy_view_itemsize = message_only(
    Kind.NUMPY_DTYPE,
    "numpy could not reinterpret the array's bytes as the dtype asked for: `ndarray.view(dtype)` keeps the bytes, so "
    "the new dtype's item size must fit the old one's (a structured or subarray dtype, the whole record)",
    "an observation, buffer or checkpoint array viewed as a dtype whose layout does not match how it was stored (an "
    "environment or loader that changed its dtype or shape, float64 data viewed as a float32 layout, a packed record "
    "of the wrong size)",
    "convert values with `.astype(dtype)` instead of `.view(dtype)`; view only between dtypes of the same item size "
    "and layout (check `arr.dtype.itemsize` and the shapes both sides expect); if a library does the view, update it "
    "or match the environment version it expects",
    op="numpy ndarray.view",
)


def _numpy_scalars(found: re.Match[str], failure: Failure) -> Explanation:
    names = dtypes(found, "a")
    return explained(
        Kind.NUMPY_DTYPE, failure,
        f"torch could not read the dtype of a numpy scalar (`numpy.{found['a']}`) while building a tensor: the torch "
        "of that age does not convert numpy scalars found inside a Python list or tuple",
        "`torch.tensor([...])` or `torch.as_tensor` given a list that holds numpy scalars (values taken out of a numpy "
        "array one by one, a metric, a loss computed in numpy)",
        "stack them in numpy first (`torch.from_numpy(np.asarray(values, dtype=np.float32))`), or turn each into a "
        "Python number (`float(v)`); newer torch converts them",
        op="torch.tensor from numpy scalars", names=names,
    )


_HELD_BY = {
    "dict": "a sample that is still a `dict`: a dictionary-based transform pipeline (MONAI's `...d` transforms) mixed "
    "with transforms that take an array, or a collate that gets dicts",
    "NoneType": "a field left None (a missing label, an optional input not filled), or a number a library returned as "
    "None because it was NaN (a log-probability from an inference server)",
    "NAType": "a pandas nullable column (`Int64`, `boolean`, `string`) whose missing values are `pd.NA`: its `.values` "
    "is an object array of numbers and `pd.NA`",
    "NaTType": "a pandas datetime column with missing values (`NaT`) passed as objects",
}


def _python_object(found: re.Match[str], failure: Failure) -> Explanation:
    """``Could not infer dtype of dict`` (or ``NoneType``, ``str``): ``torch.tensor`` given a Python object that is not
    a number, array or nested list of them."""
    held = found["a"]
    return explained(
        Kind.NUMPY_DTYPE, failure,
        f"torch could not read a dtype from a `{held}` while building a tensor: `torch.tensor`/`torch.as_tensor` take "
        f"numbers, arrays, tensors and (nested) lists of them, not a `{held}`",
        _HELD_BY.get(held, f"a `{held}` (a string read from a file, an object) passed where a number or array belongs"),
        "convert the values, not their container: take the array out (`torch.as_tensor(sample['image'])`), use the "
        "transforms made for the sample's form (dictionary transforms on dictionaries), and fill or drop missing "
        "values before the tensor is built",
        op="torch.tensor",
    )


_OBSERVATION_DTYPES = re.compile(r"np\.(float(?:16|32|64)|u?int(?:8|16|32|64))")
_PRINTED_ARRAY_DTYPE = re.compile(r"\bdtype=(float(?:16|32|64)|u?int(?:8|16|32|64))\b")
"""The dtype a printed numpy array or gym space shows (``Box(..., dtype=float32)``)."""


def _observation_outside_space(found: re.Match[str], failure: Failure) -> Explanation:
    """RLlib's ``The observation collected from env.reset was not contained within your env's observation space``,
    which names a float32/float64 mismatch as its likely cause and a value out of bounds as the other (low
    confidence)."""
    del found
    names = (short_dtypes(_OBSERVATION_DTYPES.findall(failure.message))
             or short_dtypes(_PRINTED_ARRAY_DTYPE.findall(failure.message)))
    return explained(
        Kind.NUMPY_DTYPE, failure,
        "the environment returned an observation its own observation space does not contain: RLlib checks each one, "
        "and a numpy dtype other than the space's fails (as does a value outside the space's bounds)",
        "observations built as numpy arrays with the default float64 (`np.array([...])`, arithmetic with Python "
        "floats) for a `gymnasium.spaces.Box` declared float32 (its default), or the reverse",
        "make the two agree: return `obs.astype(np.float32)` (the space's dtype) from `reset` and `step`, or declare "
        "the space with the observations' dtype (`Box(..., dtype=np.float64)`); check the bounds too",
        op="RLlib observation check", names=names, confidence=Confidence.LOW,
    )


def _platform_integer(found: re.Match[str], failure: Failure) -> Explanation:
    """``Unsupported numpy type: <class 'numpy.intc'>`` (coremltools): a converter that maps fixed-width numpy types
    only, given one of the platform's C integer types."""
    kind = found["a"]
    return explained(
        Kind.NUMPY_DTYPE, failure,
        f"the converter does not map numpy's platform type `numpy.{kind}` (C's int, whose width depends on the "
        "platform): it takes fixed-width types such as int32 and int64",
        "an array made by an operation that returns the platform's C integer type (on Windows, numpy's default int), "
        "or a shape or constant computed with such arrays",
        "convert to a fixed width before the call: `arr.astype(np.int32)` (or `np.int64`); update the converter, "
        "which may map it in later releases",
        op="a converter's numpy types",
    )


def _torch_dtype_to_numpy(found: re.Match[str], failure: Failure) -> Explanation:
    names, dtype = dtype_read(found, "a")
    return explained(
        Kind.NUMPY_DTYPE, failure,
        f"numpy was given a torch dtype (`{found['a']}`) where it needs one of its own",
        "`np.zeros(..., dtype=tensor.dtype)`, `np.array(x, dtype=torch.float16)` or `.astype(torch.float32)`: a torch "
        "dtype passed to numpy",
        f"pass a numpy dtype (`np.float32`, `np.float16`; numpy has no bfloat16, so use `np.float32` for {dtype}), or "
        "convert with torch first (`x.to(torch.float32).numpy()`)",
        op="numpy dtype", names=names,
    )


def _numpy_dtype_to_torch(found: re.Match[str], failure: Failure) -> Explanation:
    return explained(
        Kind.NUMPY_DTYPE, failure,
        f"torch was given a numpy or Python type (a `{found['given']}`) where it needs a `torch.dtype`",
        "`dtype=np.float32` (or `dtype=float`, a dtype read from a numpy array) passed to a torch function, often a "
        "library's code meeting a newer numpy or torch",
        "pass a torch dtype (`torch.float32`, `torch.bfloat16`; `torch.from_numpy(arr).dtype` reads one from an "
        "array); if a library makes the call, update it",
        op="torch dtype argument",
    )


_numpy_on_tensors = message_only(
    Kind.NUMPY_DTYPE,
    "a numpy function (`np.mean`, `np.std`, `np.array` of a list) was given torch tensors: numpy read their "
    "`.dtype`, which is a `torch.dtype` without numpy's `.type`",
    "a list of torch tensors (losses, metrics, recorded values) passed to numpy as it is; newer torch and numpy "
    "releases no longer convert them silently",
    "convert first: `np.mean([t.item() for t in values])`, or `torch.stack(values).mean()` to stay in torch; if a "
    "library's code does it, use the torch and numpy versions it pins, or update it",
    op="numpy on torch tensors",
)

def _array_into_tensor(found: re.Match[str], failure: Failure) -> Explanation:
    """``can't assign a numpy.ndarray to a torch.ByteTensor``: a numpy array written into a tensor by item
    assignment."""
    return explained(
        Kind.NUMPY_DTYPE, failure,
        f"a numpy array was assigned into a tensor (`t[i] = array`, here a {found['t']}): torch does not convert a "
        "numpy array in item assignment",
        "an observation, image or mask from numpy (an environment, a dataset, OpenCV) written into a preallocated "
        "tensor buffer",
        "convert it first, in the buffer's dtype and device: `t[i] = torch.from_numpy(array).to(t.dtype)` (or "
        "`torch.as_tensor(array, dtype=t.dtype, device=t.device)`)",
        op="tensor item assignment", names=dtypes(found, "t"),
    )


def _unrecognised_array_type(found: re.Match[str], failure: Failure) -> Explanation:
    """Older torch refusing a numeric numpy array (``can't convert np.ndarray of type numpy.int32. The only supported
    types are: ... int32 ...``, ``it has an invalid type``): the array's dtype object is one torch did not map."""
    names = dtypes(found, "a")
    unsigned_wide = bool(names) and names[0] in ("uint16", "uint32", "uint64")
    return explained(
        Kind.NUMPY_DTYPE, failure,
        "this torch did not recognise the numpy array's dtype"
        + (f" ({names[0]}: torch before 2.3 could not convert it)" if unsigned_wide else
           " (bool: older torch could not convert numpy bool arrays)" if names == ("bool",) else
           f" ({names[0]}, though it is on the supported list: numpy has two {names[0]} types on some platforms, "
           "`np.intc` and `np.int_`, and older torch mapped only one)" if names else ""),
        "an array made by an operation that returns the platform's other integer type (`%`, `np.arange` with a "
        "Python long bound, a C extension), or of a dtype older torch lacked (uint16/32/64, bool)",
        ("convert it first: `masks.astype(np.uint8)` for a mask (0/1), " if names == ("bool",) else "convert it "
         "first: `torch.from_numpy(arr.astype(np.int64))` (or `np.float32` for floats), ")
        + "or `torch.as_tensor(arr.tolist())`; update torch, which maps every numpy numeric dtype",
        op="torch.from_numpy", names=names,
    )


_extended_precision = message_only(
    Kind.NUMPY_DTYPE,
    "the numpy array is of numpy's extended precision (`longdouble`, 80-bit on x86, or `float128`/`clongdouble`), "
    "which torch has no dtype for: its widest float is float64",
    "values kept in long double for their precision (astronomical times, pulsar TOAs from PINT, high-precision "
    "physics) handed to torch as they are",
    "convert before handing it over: `arr.astype(np.float64)` when float64's 15-16 digits are enough; otherwise keep "
    "the large part apart (subtract a reference epoch, or split into an integer and a fractional float64 part) so what "
    "torch gets fits float64 without losing the digits that matter",
    op="torch.from_numpy",
)


def _ufunc_cast(found: re.Match[str], failure: Failure) -> Explanation:
    """numpy's ``UFuncTypeError: Cannot cast ufunc 'multiply' output from dtype('float64') to dtype('int64') with
    casting rule 'same_kind'``: an in-place ufunc whose float result cannot go back into an integer array."""
    names = dtypes(found, "a", "b")
    return explained(
        Kind.NUMPY_DTYPE, failure,
        f"numpy computed `{found['ufunc']}` in place and its {dtype_list(names)} result cannot be written back into "
        "the array's own dtype: in-place ufuncs only cast the same kind (float to float, int to int)",
        "an integer array (pixel coordinates, polygon points, labels) scaled in place by a float (`arr *= 0.5`, "
        "`arr /= scale`, `np.multiply(arr, f, out=arr)`), often in a library's data pipeline",
        "make the result a new array instead (`arr = arr * scale`, then `.astype(...)` if it must stay integer), or "
        "convert the array to float first (`arr = arr.astype(np.float32)`); in a library's code, update the library",
        op=f"numpy.{found['ufunc']} (in place)", names=names,
    )


def _array_cast(found: re.Match[str], failure: Failure) -> Explanation:
    """numpy's ``Cannot cast array data from dtype('<M8[ns]') to dtype('float64') according to the rule 'safe'``: a
    numpy function that casts its inputs safely (np.interp, np.bincount, np.take) given an array it cannot convert."""
    source, target = found["a"], found["b"]
    dated = source.lstrip("<>|=").startswith(("M8", "m8", "datetime64", "timedelta64"))
    casting = f"its '{found['rule']}' casting rule" if found["rule"] else "its casting rule"
    wanted = f"np.{full_name(target)}" if short_dtype(target) else f"'{target}'"
    return explained(
        Kind.NUMPY_DTYPE, failure,
        f"numpy refused to cast an array of {source} to {target} under {casting}"
        + (": the array holds dates or times (datetime64), which are not numbers" if dated
           else ": the cast could change values"),
        "dates (a pandas DatetimeIndex or datetime column) passed where numbers go (np.interp, a plot's "
        "fill_between, a float tensor)" if dated else
        "an array of another dtype than the function takes (floats where int64 indices or counts go), passed to a "
        "numpy function that casts its inputs safely (np.bincount, np.interp, np.take)",
        "convert the dates to numbers first: `(t - t[0]) / np.timedelta64(1, 'D')` (days, as floats) or "
        "`t.astype('int64')` (nanoseconds)" if dated else
        f"convert it yourself where you mean to: `arr.astype({wanted})` (rounded first when "
        "floats become integers)",
        op="numpy cast", names=dtypes(found, "a", "b"),
    )


def _numpy_in_checkpoint(found: re.Match[str], failure: Failure) -> Explanation:
    """``torch.load(weights_only=True)`` refusing numpy objects in a checkpoint (a numpy scalar or dtype saved beside
    the tensors)."""
    named = found["a"] or found["b"] or found["c"] or ""
    names = tuple(filter(None, [short_dtype(named.lower())]))
    return explained(
        Kind.NUMPY_DTYPE, failure,
        "`torch.load(..., weights_only=True)` refuses the numpy objects in this checkpoint"
        + (f" (a numpy {names[0]} scalar or dtype)" if names else "")
        + ": the safe loader rebuilds tensors and plain containers only",
        "a value saved as a numpy scalar beside the weights (`np.float64` from a metric or a loss, a numpy dtype, an "
        "array), by older code that loaded with full pickle",
        "for a checkpoint you made yourself, allow exactly those numpy types: `with torch.serialization.safe_globals("
        "[np.core.multiarray.scalar, np.dtype, type(np.dtype(np.float64))]): torch.load(path, weights_only=True)`; "
        "when saving, store plain numbers or tensors (`float(x)`, `torch.tensor(x)`); never load a file you did not "
        "make with `weights_only=False`",
        op="torch.load(weights_only=True)", names=names,
    )


def _numpy_scalar_reward(found: re.Match[str], failure: Failure) -> Explanation:
    """An environment checker's ``The reward returned by `step()` must be a float``: a numpy scalar (``np.float32``)
    is not a Python float."""
    said = paste_search(failure, _NUMPY_FLOAT_SCALAR)
    return explained(
        Kind.NUMPY_DTYPE, failure,
        f"the environment checker wants the {found['what']} as a Python float and got a numpy scalar"
        + (f" ({said['name']}, which is not a subclass of float; numpy's float64 is, so that one passes)"
           if said else ""),
        "a reward or value computed with numpy (or taken from an array) and returned as it is, often cast to "
        "`np.float32` to match the observation dtype",
        "return a Python number: `float(reward)` (or `reward.item()` for a 0-d array or tensor)",
        op="environment checker", names=tuple(filter(None, [short_dtype(said["name"]) if said else None])),
    )


_NUMPY_FLOAT_SCALAR = re.compile(r"\bnp\.(?P<name>float(?:16|32))\(")


def _opencv_half(found: re.Match[str], failure: Failure) -> Explanation | None:
    """OpenCV refusing an array it has no type for (``Expected Ptr<cv::UMat> for argument 'src'``) where the paste says
    fp16; declined otherwise (then a tensor or a list, not a dtype, is what OpenCV refused)."""
    del found
    if "f16" not in low_precision_said(failure):
        return None
    return explained(
        Kind.NUMPY_DTYPE, failure,
        "OpenCV takes no float16 arrays (it takes uint8, int16, float32 and float64), so a float16 numpy array from "
        "an fp16 model is refused as if it were not an array",
        "the output of a model run in fp16 (`.half()`, autocast) turned into numpy as it is and handed to `cv2` "
        "(`cv2.resize`, `cv2.applyColorMap`)",
        "convert to float32 before going to numpy: `x.float().cpu().numpy()` (or `arr.astype(np.float32)`)",
        op="OpenCV", names=("f16",), confidence=Confidence.LOW,
    )


def _faiss_tensor(found: re.Match[str], failure: Failure) -> Explanation | None:
    """faiss's ``ValueError: input not a numpy array`` (from ``swig_ptr``) where the paste names faiss: a torch tensor
    given to an index that takes numpy arrays; declined when faiss is not named."""
    del found
    if not paste_search(failure, _FAISS):
        return None
    return explained(
        Kind.NUMPY_DTYPE, failure,
        "faiss's Python index takes numpy arrays, and it was given a torch tensor (its `swig_ptr` reads a numpy "
        "array's memory)",
        "a torch tensor (embeddings straight from a model) passed to `index.search`, `index.add` or `index.train`",
        "pass `x.detach().cpu().numpy().astype('float32')`, or `import faiss.contrib.torch_utils` once so that faiss "
        "takes torch tensors (CPU and GPU) directly",
        op="faiss index",
    )


_FAISS = re.compile(r"\bfaiss\b", re.IGNORECASE)


def _structured_array(failure: Failure) -> Explanation:
    """A numpy structured (record) array given to torch: records of named fields, not numbers of one dtype."""
    return explained(
        Kind.NUMPY_DTYPE, failure,
        "torch cannot make a tensor from a numpy structured (record) array, dtype void: its elements are records of "
        "named fields, not numbers of one dtype",
        "a record array passed as it is: a ROS PointCloud2 message read with `ros_numpy`/`pointcloud2_to_array`, "
        "`np.genfromtxt(..., names=True)`, a table read into a structured dtype",
        "unpack the fields into one numeric array first: `np.stack([arr[f] for f in ('x', 'y', 'z')], axis=-1)"
        ".astype(np.float32)`, or `numpy.lib.recfunctions.structured_to_unstructured(arr, dtype=np.float32)`",
        op="torch.tensor from a numpy structured array",
    )


def _time_array(failure: Failure, kind: str) -> Explanation:
    """A numpy array of dates or time spans given to torch, which has no time dtype."""
    return explained(
        Kind.NUMPY_DTYPE, failure,
        f"torch cannot make a tensor from a numpy {kind} array: it has no date or time dtype",
        "dates or time gaps passed as they are (`np.diff` of datetime64 timestamps, a pandas datetime column's "
        "`.values`)",
        "convert them to numbers in a unit first: `(gaps / np.timedelta64(1, 'D')).astype(np.float32)` for days, "
        "or `stamps.astype('datetime64[s]').astype(np.int64)` for seconds since the epoch",
        op=f"torch.tensor from a numpy {kind} array",
    )


def _non_numeric_array(found: re.Match[str], failure: Failure) -> Explanation:
    """``can't convert np.ndarray of type numpy.object_`` (or ``numpy.str_``): the array holds no numbers of one
    dtype."""
    kind = found["a"].rstrip("_")
    if kind in ("datetime64", "timedelta64"):
        return _time_array(failure, kind)
    if kind == "void":
        return _structured_array(failure)
    held = ("Python objects (arrays of different lengths, mixed types, None), not numbers of one dtype"
            if kind == "object" else "strings (a CSV column read as text, numbers with units or commas, a header row)")
    return explained(
        Kind.NUMPY_DTYPE, failure,
        f"torch cannot make a tensor from a numpy array of dtype {kind}: its elements are {held}",
        "a batch of variable-length items (token lists, boxes, waveforms) gathered with `np.array(items)` (a Dataset "
        "returning such arrays, which DataLoader's default_collate refuses), or a column that holds None or strings "
        "(`np.loadtxt`/`pandas` read it as text)",
        "make the array numeric first: parse the text (`arr.astype(np.float32)`, `pd.to_numeric(column)`, "
        "`skiprows=1` for a header) or pad and stack the items to one shape (`np.stack(items).astype(np.float32)`, "
        "`torch.nn.utils.rnn.pad_sequence([torch.as_tensor(i) for i in items], batch_first=True)`)",
        op=f"torch.tensor from a numpy {kind} array",
    )


_byte_order = message_only(
    Kind.NUMPY_DTYPE,
    "torch cannot make a tensor from a numpy array whose byte order is not the machine's (a big-endian `>f4`/`>i2` "
    "array): it does not convert byte orders",
    "data read from a file format that stores big-endian numbers (FITS images, some HDF5, NetCDF or raw files, "
    "`np.frombuffer(..., dtype='>f4')`)",
    "convert the array to the native byte order first: `arr = arr.astype(arr.dtype.newbyteorder('='))` (or "
    "`arr.byteswap().view(arr.dtype.newbyteorder())`), then `torch.from_numpy(arr)`",
    op="torch.from_numpy",
)


_swig_float_array = message_only(
    Kind.NUMPY_DTYPE,
    "a SWIG-wrapped C++ library (FAISS's index methods) got an array it cannot pass as a C float pointer (its vectors' "
    "`component_t`): it takes "
    "C-contiguous float32 numpy arrays (uint8 for a binary index), not float64 or float16 ones, and not torch tensors",
    "embeddings loaded or computed in another dtype (`np.load` of float64 data, a 16-bit model's output) or passed "
    "as a torch tensor",
    "convert before the call: `np.ascontiguousarray(x, dtype=np.float32)` (from torch: `x.float().cpu().numpy()`)",
    op="a SWIG-wrapped method (FAISS)",
)


_swig_ids = message_only(
    Kind.NUMPY_DTYPE,
    "a SWIG-wrapped C++ library (FAISS's `add_with_ids`, `remove_ids`) got ids it cannot pass as a C int64 pointer: "
    "it takes a C-contiguous int64 numpy array, not int32 or float ids, and not a torch tensor",
    "ids built as int32 (`np.arange(n, dtype=np.int32)`, a pandas column) or floats, or passed as a torch tensor "
    "without FAISS's torch bridge",
    "convert before the call: `np.ascontiguousarray(ids, dtype=np.int64)` (from torch: `ids.long().cpu().numpy()`, "
    "or `import faiss.contrib.torch_utils` to pass tensors)",
    op="a SWIG-wrapped method's ids (FAISS)",
)


def _numpy_scalar_argument(found: re.Match[str], failure: Failure) -> Explanation:
    """``div(): argument 'other' (position 1) must be Tensor, not numpy.bool_``: a numpy scalar (a reduction of a
    numpy array) passed where a torch function takes a tensor; numpy's ``float_`` is its float64, not torch's float."""
    name = short_dtype("float64" if found["a"] == "float_" else found["a"])
    names = (name,) if name else ()
    what = f"{a(names[0])} numpy scalar" if names else "a numpy scalar"
    return explained(
        Kind.NUMPY_DTYPE, failure,
        f"`{found['op']}()` got {what} (`numpy.{found['a']}`) for its `{found['arg']}` argument, which takes a tensor "
        "(or a Python number): torch does not convert numpy scalars there",
        "a value computed with numpy (`np.sum(mask)`, `arr.max()`, a comparison of numpy values) passed to a torch "
        "op; numpy's bool and float64 scalars are not Python numbers",
        "convert it first: `float(value)` or `int(value)` for a number, `torch.as_tensor(value, dtype=torch.float32)` "
        "for a tensor; or compute it with torch from the start",
        op=found["op"], names=names,
    )


_numpy_linalg_half = message_only(
    Kind.NUMPY_DTYPE,
    "numpy's linear algebra (`np.linalg.svd`, `eig`, `norm` on matrices) has no float16: a float16 array reached it",
    "activations or gradients of a model run in fp16 (`model.half()`) turned into numpy as they are (`.cpu().numpy()` "
    "keeps float16) and handed to numpy's linalg, as CAM methods (EigenCAM's SVD) do",
    "convert to float32 before numpy sees it (`t.float().cpu().numpy()`, `arr.astype(np.float32)`), in your code or "
    "where the library turns the tensor into numpy",
    op="numpy.linalg", names=("f16",),
)


def _numpy_array_argument(found: re.Match[str], failure: Failure) -> Explanation:
    """``mul(): argument 'other' (position 1) must be Tensor, not numpy.ndarray``: a numpy array where a torch op
    takes a tensor; torch converts Python numbers there, never arrays."""
    return explained(
        Kind.NUMPY_DTYPE, failure,
        f"`{found['op']}()` got a numpy array for its `{found['arg']}` argument, which takes a tensor: torch does not "
        "convert numpy arrays passed to its ops",
        "data or a value computed with numpy (a baseline, a mask, weights loaded with numpy) mixed into torch math; in "
        "an explainer or a library, its code written for another version of numpy or torch than the installed ones",
        "convert it first: `torch.from_numpy(arr).to(x.device, x.dtype)` (or `torch.as_tensor(arr, device=x.device)`); "
        "if the call is a library's (its frame is the last before the error), update the library",
        op=found["op"],
    )


def _converter_numpy_type(found: re.Match[str], failure: Failure) -> Explanation:
    """coremltools' ``Unsupported numpy type: float32``: a converter older than its numpy, whose table of numpy types
    misses what that numpy returns."""
    names = dtypes(found, "a")
    return explained(
        Kind.NUMPY_DTYPE, failure,
        f"the converter's table of numpy types does not recognise numpy's {found['a']} as this numpy returns it: the "
        "converter is older than the installed numpy",
        "a numpy upgrade (1.20 and later changed the scalar type objects and removed `np.float`/`np.int`) under a "
        "converter release that predates it",
        "update the converter (`pip install -U coremltools`); or install the numpy its release supports",
        op="a converter's numpy types", names=names,
    )


RULES: tuple[Rule, ...] = (
    rule(r"\bUnsupported numpy type: (?P<a>float(?:16|32|64)|u?int(?:8|16|32|64)|bool)\b", _converter_numpy_type),
    rule(r"(?P<op>\w{1,40})\(\): argument '(?P<arg>\w{1,30})' \(position \d+\) must be Tensor, not numpy\.ndarray\b",
         _numpy_array_argument),
    rule(r"(?P<op>\w{1,40})\(\): argument '(?P<arg>\w{1,30})' \(position \d+\) must be Tensor, not "
         r"numpy\.(?P<a>bool_|u?int\d{1,2}|float\d{2}|float_|longlong|double)\b", _numpy_scalar_argument),
    rule(r"Got unsupported ScalarType (?P<a>\w+)", _unsupported),
    rule(r"array type float16 is unsupported in linalg", _numpy_linalg_half),
    rule(r"expected np\.ndarray \(got numpy\.ndarray\)", _numpy_abi),
    rule(r"can't convert np\.ndarray of type (?P<a>bfloat16|float8_\w{1,12})\b", _extension_array),
    rule(r"\bdtype\(\(numpy\.uint16, \[\('bfloat16'", _onnx_bfloat16_array),
    rule(r"expected dtype object, got 'numpy\.dtype\[(?P<a>\w{1,12})\]'", _numpy_dtype_class),
    rule(r"tried to construct a tensor from a nested float sequence, but found an item of type "
         r"numpy\.(?P<a>float(?:16|32|64))", _numpy_scalar_in_sequence),
    rule(r"\bin method '\w{1,80}', argument \d{1,2} of type '(?:const )?(?:float|[\w:<> ]{0,80}component_t) "
         r"(?:const )?\*'", _swig_float_array),
    rule(r"\bin method '\w{1,80}', argument \d{1,2} of type '(?:const )?[\w:]{0,60}idx_t (?:const )?\*'", _swig_ids),
    rule(r"Changing the dtype to a subarray type is only supported if the total itemsize is unchanged|When changing "
         r"to a (?:smaller|larger) dtype, its size must be a divisor of the", _numpy_view_itemsize),
    rule(r"\bun[a-z]{0,4}ported numpy dtype\b", _numpy_lacks_said),
    rule(r"Unsupported numpy type:? <class 'numpy\.(?P<a>intc|int_|uintc|longlong|ulonglong|longdouble)'>",
         _platform_integer),
    rule(r"given numpy array has byte order different from the native byte order", _byte_order),
    rule(r"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists;? found (?P<a>object)",
         _non_numeric_array),
    rule(r"Could not infer dtype of numpy\.(?P<a>\w{1,20})", _numpy_scalars),
    rule(r"Cannot cast array data from dtype\('(?P<a>[<>|=]?\w{1,12}(?:\[\w{1,3}\])?)'\) to "
         r"dtype\('(?P<b>[<>|=]?\w{1,12})'\)(?: according to the rule '(?P<rule>\w{1,12})')?", _array_cast),
    rule(r"Cannot cast ufunc '(?P<ufunc>\w{1,20})' output from dtype\('(?P<a>\w{1,12})'\) to "
         r"dtype\('(?P<b>\w{1,12})'\)", _ufunc_cast),
    rule(r"Observation \(\{\} dtype=\{\}\) outside given space|"
         r"The observation collected from env\.\w{1,20} was not contained within your env's observation space",
         _observation_outside_space),
    rule(r"Could not infer dtype of (?P<a>dict|NoneType|NAType|NaTType|str|bytes|set|object|type|function)\b",
         _python_object),
    rule(r"Cannot interpret '(?P<a>torch\.\w{1,20})' as a data type", _torch_dtype_to_numpy),
    rule(r"argument 'dtype' must be torch\.dtype, not (?P<given>\w{1,20})", _numpy_dtype_to_torch),
    rule(r"Expected Ptr<cv::UMat> for argument", _opencv_half),
    rule(r"\binput not a numpy array\b", _faiss_tensor),
    rule(r"'torch\.dtype' object has no attribute 'type'", _numpy_on_tensors),
    rule(r"The (?P<what>reward|value) returned by `?step\(\)`? must be a float", _numpy_scalar_reward),
    rule(r"can't convert np\.ndarray of type numpy\.(?P<a>u?int(?:8|16|32|64)|float(?:16|32|64)|bool_?)\b|can't "
         r"convert a given np\.ndarray to a tensor - it has an invalid type", _unrecognised_array_type),
    rule(r"(?:Weights ?only load failed|WeightsUnpickler error)[^\n]{0,400}?numpy\.(?:dtypes?\[(?P<a>\w{1,12})\]|"
         r"dtypes\.(?P<b>\w{1,12})DType|core\.multiarray\.scalar|dtype)|Unsupported global: GLOBAL "
         r"numpy\.(?:core\.multiarray\.scalar|dtype|dtypes\.(?P<c>\w{1,12})DType)", _numpy_in_checkpoint),
    rule(r"can't assign a numpy\.ndarray to a (?P<t>torch\.(?:cuda\.)?\w{1,40}Tensor)", _array_into_tensor),
    rule(r"can't convert np\.ndarray of type numpy\.(?:longdouble|float128|float96|clongdouble|complex256)\b",
         _extended_precision),
    rule(r"can't convert np\.ndarray of type numpy\.(?P<a>object_?|str_|bytes_|unicode_|void|datetime64|timedelta64)",
         _non_numeric_array),
)
