"""Wordings from outside torch's own vocabulary, each read into the family it belongs to, and advice that fits.

flash-attn, the MPS backend, XLA, xformers, apex, DeepSpeed and fairseq each word a dtype problem
their own way, and old torch words its errors differently again; these are the shapes reports
carry (written as the libraries print them, not copied from a report).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

import castwise as cw
from castwise.explainer import Confidence, Family, Kind
from castwise.explainer.spelling import short_dtype


@pytest.mark.parametrize(("text", "kind", "dtypes", "words"), [
    ("RuntimeError: FlashAttention only support fp16 and bf16 data type", Kind.NO_KERNEL, (), "torch_dtype"),
    ("TypeError: Trying to convert BFloat16 to the MPS backend but it does not have support for that dtype.",
     Kind.NO_KERNEL, ("bf16",), "float16"),
    ("TypeError: MPS BFloat16 is only supported on MacOS 14 or newer", Kind.NO_KERNEL, ("bf16",), "macOS 14"),
    ("TypeError: BFloat16 is not supported on MPS", Kind.NO_KERNEL, ("bf16",), "float16"),
    ("RuntimeError: expected backend CUDA and dtype Float but got backend CUDA and dtype Half", Kind.SCALAR_TYPE,
     ("f32", "f16"), "one dtype"),
    ("ValueError: Attempting to unscale FP16 gradients.", Kind.UNSCALE_FP16, ("f16",), "fp32"),
    ("FloatingPointError: Minimum loss scale reached (0.0001). Your loss is probably exploding.", Kind.LOSS_SCALE,
     ("f16",), "bf16"),
    ("Gradient overflow, skipping step, loss scaler 0 reducing loss scale to 32768.0", Kind.LOSS_SCALE, ("f16",),
     "rare"),
    ("Epoch 0:  71%| 5880/8295 [04:01<01:39, v_num=0, train_loss_step=nan.0", Kind.NONFINITE, (), "castwise doctor"),
])
def test_another_library_s_wording_reads_into_its_family(text: str, kind: Kind, dtypes: tuple[str, ...],
                                                          words: str) -> None:
    explanation = cw.explain(text)
    assert explanation.kind is kind and explanation.dtypes == dtypes
    assert words in explanation.fix


def test_old_torch_s_device_and_dtype_wording_tells_a_device_mismatch() -> None:
    explanation = cw.explain("RuntimeError: expected device cpu and dtype Float but got device cuda:0 and dtype Float")
    assert explanation.family is Family.DEVICE and "not a dtype problem" in explanation.cause


@pytest.mark.parametrize(("instruction", "kind", "dtypes", "op"), [
    ("%add.57 = f32[2,340]{1,0} add(f32[2,340]{1,0} %dot.52, bf16[2,340]{1,0} %broadcast.56)", Kind.OP_DTYPE,
     ("f32", "bf16"), "XLA op `add`"),
    ("%dot.3 = f32[4,4]{1,0} dot(bf16[4,8]{1,0} %p0, f32[8,4]{1,0} %p1)", Kind.MATMUL, ("f32", "bf16"), "XLA op `dot`"),
    ("%batch-norm-training.15 = (bf16[4,16]{1,0}, bf16[16]{0}) batch-norm-training(bf16[4,16]{1,0} %add.14, "
     "f32[16]{0} %p2.3)", Kind.NORM_PARAM, ("bf16", "f32"), "batch_norm_training"),
])
def test_xla_s_mixed_precision_is_read_from_the_instruction(instruction: str, kind: Kind, dtypes: tuple[str, ...],
                                                            op: str) -> None:
    explanation = cw.explain(f"RuntimeError: Bad StatusOr access: INTERNAL: during context [Unknown]: Seen floating "
                             f"point types of different precisions in {instruction}, but mixed precision is disallowed.")
    assert explanation.kind is kind and explanation.dtypes == dtypes and explanation.op == op


@pytest.mark.parametrize(("scale", "collapsed"), [("0.0001220703125", True), ("4096.0", False)])
def test_a_loss_scale_below_one_is_said_to_have_collapsed(scale: str, collapsed: bool) -> None:
    explanation = cw.explain(f"| WARNING: overflow detected, setting loss scale to: {scale}")
    assert explanation.kind is Kind.LOSS_SCALE
    assert ("minimum" in explanation.cause) is collapsed and (scale in explanation.cause) is not collapsed


@pytest.mark.parametrize("text", ["| loss_scale: inf | wall 23080", "setting loss_scale = inf for the first step"])
def test_a_loss_scale_is_not_taken_for_a_loss(text: str) -> None:
    assert cw.explain(text) is None


def test_a_cpu_convolution_in_fp16_is_told_to_use_fp32_not_to_cast_its_input_to_fp16() -> None:
    explanation = cw.explain("RuntimeError: Input type (torch.FloatTensor) and weight type (torch.HalfTensor) should be "
                             "the same")
    assert explanation.kind is Kind.CONV_WEIGHT and "model.float()" in explanation.fix
    assert not explanation.fix.startswith("give both operands")


def test_a_bf16_overflow_is_not_told_to_use_bf16() -> None:
    explanation = cw.explain("RuntimeError: value cannot be converted to type at::BFloat16 without overflow: -3.40282e+38")
    assert explanation.kind is Kind.VALUE_OVERFLOW and "use bf16" not in explanation.fix
    assert "3.3895e38" in explanation.culprit


def test_a_kernel_that_only_exists_in_16_bit_says_what_reached_it() -> None:
    explanation = cw.explain("RuntimeError: [address=0.0.0.0:37093, pid=1304] FlashAttention only support fp16 and bf16 "
                             "data type")
    assert explanation.op == "FlashAttention" and "fp32" in explanation.cause
    assert explanation.confidence is Confidence.HIGH and "attn_implementation='sdpa'" in explanation.fix


@pytest.mark.parametrize(("text", "kind", "dtypes", "device"), [
    ("RuntimeError: Tensors must have same dtype, got Half and Float", Kind.SCALAR_TYPE, ("f16", "f32"), None),
    ("dtype mismatch in my_kernel: torch.float16 vs torch.float32", Kind.SCALAR_TYPE, ("f16", "f32"), None),
    ("ValueError: bf16 is not supported on this device (npu)", Kind.NO_KERNEL, ("bf16",), "npu"),
    ("modules.devices.NansException: A tensor with all NaNs was produced in Unet.", Kind.NONFINITE, (), None),
])
def test_a_wording_no_rule_knows_is_read_by_its_shape_with_low_confidence(
    text: str, kind: Kind, dtypes: tuple[str, ...], device: str | None,
) -> None:
    explanation = cw.explain(text)
    assert explanation.kind is kind and explanation.dtypes == dtypes and explanation.device == device
    assert explanation.confidence is Confidence.LOW


@pytest.mark.parametrize("text", [
    "half of the images are not supported", "no NaN was found", "expected 3 channels but got 4",
    "the float and double buttons do not match",
])
def test_prose_without_a_printed_dtype_is_not_read_as_a_dtype_error(text: str) -> None:
    assert cw.explain(text) is None


def test_a_rule_on_any_line_wins_over_a_shape_on_a_later_one() -> None:
    text = ("RuntimeError: mat1 and mat2 must have the same dtype, but got Float and BFloat16\n"
            "Error: NaN detected, tensors must have same dtype (Half and Float)\n")
    assert cw.explain(text).kind is Kind.MATMUL


@pytest.mark.parametrize(("text", "kind", "confidence"), [
    ("RuntimeError: expected scalar type Long but found Float", Kind.INDEX_TENSOR, Confidence.LOW),
    ("RuntimeError: Expected object of scalar type Long but got scalar type Float for argument #3 'index'",
     Kind.INDEX_TENSOR, Confidence.HIGH),
    ("RuntimeError: Expected object of scalar type Long but got scalar type Float for argument #2 'mat2'",
     Kind.INTEGER_OPERAND, Confidence.HIGH),
    ('  File "model.py", line 9, in forward\n    return F.linear(x, self.weight)\n'
     "RuntimeError: expected scalar type Long but found Float", Kind.INTEGER_OPERAND, Confidence.HIGH),
    ("RuntimeError: expected scalar type Float but found Long", Kind.INTEGER_OPERAND, Confidence.LOW),
])
def test_which_tensor_must_change_follows_the_dtype_the_op_expected(text: str, kind: Kind,
                                                                     confidence: Confidence) -> None:
    explanation = cw.explain(text)
    assert explanation.kind is kind and explanation.confidence is confidence
    assert set(explanation.dtypes) == {"int64", "f32"}
    assert (".long()" in explanation.fix) is (kind is Kind.INDEX_TENSOR)


def test_legacy_type_names_on_two_devices_are_a_device_mismatch_not_a_dtype_error() -> None:
    explanation = cw.explain("RuntimeError: Expected object of type torch.cuda.LongTensor but found type "
                             "torch.LongTensor for argument #3 'index'")
    assert explanation.kind is Kind.DEVICE_MISMATCH and explanation.dtypes == ("int64", "int64")
    assert "not a dtype problem" in explanation.cause and "argument 'index'" in explanation.cause


def test_old_torch_s_source_argument_is_an_indexed_write() -> None:
    explanation = cw.explain("RuntimeError: Expected object of scalar type Float but got scalar type Half for "
                             "argument #4 'source' in call to _th_index_add_")
    assert explanation.kind is Kind.INDEXED_WRITE and explanation.dtypes == ("f32", "f16")
    assert explanation.op == "index_add_" and "src.to(dst.dtype)" in explanation.fix


@pytest.mark.parametrize("text", [
    "When training the GUI shows a nan loss and the preview is empty.",
    "`train_loss` and `valid_loss` in the plotted table are `nan`.",
    "开启FP16加速训练，但loss一直为nan",
    "Loss always nan no matter what lr is used",
    "fp16 training may occasionally report gradient NaN error.",
])
def test_a_nan_loss_said_in_prose_is_read_with_low_confidence(text: str) -> None:
    explanation = cw.explain(text)
    assert explanation.kind is Kind.NONFINITE and explanation.confidence is Confidence.LOW
    assert "castwise doctor" in explanation.fix


@pytest.mark.parametrize("text", [
    "the loss function is fine, I tested nanoGPT", "my loss has no nan at all", "loss_scale: inf at the first step",
    "the loss went down. nan checks are off", "information loss is high",
])
def test_prose_near_a_loss_without_a_nan_is_not_read_as_one(text: str) -> None:
    assert cw.explain(text) is None


@pytest.mark.parametrize(("line", "collapsed"), [
    ("Epoch: 0   Global Step: 20   Fp16 Grad Scale:  0   Required: 194 hours", True),
    ("step 20 | loss_scale=0.0078125 | lr 1e-4", True),
    ("Epoch: 0   Global Step: 20   Fp16 Grad Scale:  65536   Required: 194 hours", False),
])
def test_a_printed_loss_scale_is_read_only_when_it_has_collapsed(line: str, collapsed: bool) -> None:
    explanation = cw.explain(line)
    assert (explanation is not None and explanation.kind is Kind.LOSS_SCALE) is collapsed


def test_a_gpu_that_says_it_has_no_bf16_is_told_to_use_float16() -> None:
    explanation = cw.explain("RuntimeError: Current CUDA Device does not support bfloat16. Please switch dtype to "
                             "float16.")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("bf16",) and "float16" in explanation.fix


@pytest.mark.parametrize(("context", "device"), [
    ("i wanna use fp16 to inference on cpu", "cpu"),
    ("fp16 inference on cpu works on the gpu box", None),
    ("fp16 inference", None),
])
def test_a_kernel_name_without_a_device_takes_the_one_the_paste_names(context: str, device: str | None) -> None:
    explanation = cw.explain(f"{context}\nRuntimeError: \"histc\" not implemented for 'Half'")
    assert explanation.kind is Kind.NO_KERNEL and explanation.device == device
    assert ("model.float()" in explanation.fix) is (device == "cpu")


@pytest.mark.parametrize("listed", ["long, byte or bool tensors", "long, int, byte or bool tensors",
                                    "long, byte or bool tensor", "long, int, byte, or bool tensors"])
def test_every_list_torch_has_given_for_index_dtypes_is_read(listed: str) -> None:
    explanation = cw.explain(f"IndexError: tensors used as indices must be {listed}")
    assert explanation.kind is Kind.INDEX_TENSOR and ".long()" in explanation.fix


@pytest.mark.parametrize("text", ["tensors used as indices must be unique", "tensors used as indices must be sorted"])
def test_other_words_about_indices_are_not_read_as_an_index_dtype(text: str) -> None:
    assert cw.explain(text) is None


def test_an_out_tensor_of_another_dtype_than_the_result_is_an_indexed_write() -> None:
    explanation = cw.explain("RuntimeError: Expected out tensor to have dtype c10::BFloat16, but got float instead")
    assert explanation.kind is Kind.INDEXED_WRITE and explanation.dtypes == ("bf16", "f32")
    assert "computes a bf16 result" in explanation.cause and "the `out` tensor is f32" in explanation.cause
    assert explanation.confidence is Confidence.HIGH


@pytest.mark.parametrize(("text", "kind", "dtypes"), [
    ("RuntimeError: Index put requires the source and destination dtypes match, got Long for the destination and "
     "Int for the source.", Kind.INDEXED_WRITE, ("int64", "int32")),
    ("RuntimeError: Expected out tensor to have dtype long int, but got int instead", Kind.INDEXED_WRITE,
     ("int64", "int32")),
    ("RuntimeError: expected m1 and m2 to have the same dtype, but got: long int != int", Kind.INTEGER_OPERAND,
     ("int64", "int32")),
    ("RuntimeError: expected scalar type Long but found Int", Kind.INDEX_TENSOR, ("int64", "int32")),
])
def test_two_integer_dtypes_are_cast_to_one_integer_dtype_never_to_float(text: str, kind: Kind,
                                                                           dtypes: tuple[str, ...]) -> None:
    explanation = cw.explain(text)
    assert explanation.kind is kind and explanation.dtypes == dtypes
    assert ".long()" in explanation.fix and not any(cast in explanation.fix for cast in (".float()", "torch.float"))


def test_an_integer_destination_written_with_floats_is_told_to_cast_the_values_to_it() -> None:
    explanation = cw.explain("RuntimeError: Index put requires the source and destination dtypes match, got Long "
                             "for the destination and Float for the source")
    assert explanation.kind is Kind.INDEXED_WRITE and explanation.dtypes == ("int64", "f32")
    assert "src.to(dst.dtype)" in explanation.fix and "x.float()" not in explanation.fix


@pytest.mark.parametrize(("node", "kind"), [
    ("ScatterElements_420", Kind.INDEXED_WRITE), ("MatMul_12", Kind.MATMUL), ("Add_3", Kind.SCALAR_TYPE),
])
def test_onnxruntime_s_two_types_for_one_parameter_are_read_by_the_node(node: str, kind: Kind) -> None:
    explanation = cw.explain("onnxruntime.capi.onnxruntime_pybind11_state.Fail: [ONNXRuntimeError] : 1 : FAIL : Type "
                             "Error: Type parameter (T) bound to different types (tensor(float) and tensor(double) in "
                             f"node ({node}).")
    assert explanation.kind is kind and explanation.dtypes == ("f32", "f64")
    assert node in explanation.cause and "export again" in explanation.fix


def test_the_tail_of_an_attention_message_names_the_three_dtypes() -> None:
    explanation = cw.explain("help 1080ti -->got query.dtype: struct c10::Half key.dtype: float and value.dtype: float")
    assert explanation.kind is Kind.SDPA and explanation.dtypes == ("f16", "f32")
    assert "query f16, key f32, value f32" in explanation.cause
    assert "k.to(q.dtype)" in explanation.fix


def test_an_attention_tail_naming_one_dtype_is_not_a_mismatch() -> None:
    assert cw.explain("query.dtype: float key.dtype: float and value.dtype: float") is None


def test_old_torch_s_byte_mask_argument_is_a_mask_answer() -> None:
    explanation = cw.explain("RuntimeError: Expected object of scalar type Byte but got scalar type Bool for argument "
                             "#2 'mask'")
    assert explanation.kind is Kind.MASK and explanation.dtypes == ("uint8", "bool")
    assert "mask.byte()" in explanation.fix and "1.2" in explanation.fix


@pytest.mark.parametrize("text", [
    "Getting nan as train loss when running finetune script", "Finetuning goes NAN after 1/2 epochs",
    "the weights turned to NaN after a few steps", "inf in the validation loss",
])
def test_nan_said_as_what_training_became_is_read_with_low_confidence(text: str) -> None:
    explanation = cw.explain(text)
    assert explanation.kind is Kind.NONFINITE and explanation.confidence is Confidence.LOW


@pytest.mark.parametrize("text", [
    "it never goes nan now", "with the fix training doesn't go NaN any more", "I set the padding to nan as default",
    "he got info about the loss",
])
def test_prose_that_denies_a_nan_or_names_none_is_not_read_as_one(text: str) -> None:
    assert cw.explain(text) is None


@pytest.mark.parametrize("text", [
    "RuntimeError: self and mat2 must have the same dtype, but got Half and Char",
    "RuntimeError: expected mat1 and mat2 to have the same dtype, but got: c10::BFloat16 != signed char",
])
def test_an_int8_tensor_meeting_a_float_in_a_matmul_is_read_as_a_quantized_weight(text: str) -> None:
    explanation = cw.explain(text)
    assert explanation.kind is Kind.MATMUL and explanation.confidence is Confidence.LOW
    assert "int8" in explanation.dtypes and "quantized" in explanation.cause
    assert ".float()" not in explanation.fix


@pytest.mark.parametrize(("text", "kind"), [
    ("RuntimeError: expected mat1 and mat2 to have the same dtype, but got: unsigned char != float", Kind.INTEGER_OPERAND),
    ("RuntimeError: expected mat1 and mat2 to have the same dtype, but got: long int != signed char",
     Kind.INTEGER_OPERAND),
])
def test_other_integer_operands_are_not_read_as_quantized_weights(text: str, kind: Kind) -> None:
    explanation = cw.explain(text)
    assert explanation.kind is kind and "quantized" not in explanation.cause


@pytest.mark.parametrize(("text", "dtypes", "words"), [
    ("Type Error: Type (tensor(float16)) of output arg (/enc/norm1/Cast_output_0) of node (/enc/norm1/Cast) does not "
     "match expected type (tensor(float)).", ("f16", "f32"), "convert_float_to_float16"),
    ("[ErrorCode:InvalidArgument] Unexpected input data type. Actual: (tensor(float)) , expected: (tensor(float16))",
     ("f32", "f16"), "x.astype(np.float16)"),
    ("[ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Unexpected input data type. Actual: (tensor(double)) , expected: "
     "(tensor(float))", ("f64", "f32"), "x.astype(np.float32)"),
])
def test_an_onnx_graph_in_two_precisions_is_read_from_onnxruntime_s_type_errors(
        text: str, dtypes: tuple[str, ...], words: str) -> None:
    explanation = cw.explain(text)
    assert explanation.kind is Kind.SCALAR_TYPE and explanation.dtypes == dtypes
    assert words in explanation.fix and "onnx" in explanation.op.lower()


@pytest.mark.parametrize("text", [
    "Type Error: Type (tensor(int64)) of output arg (/enc/Cast_output_0) of node (/enc/Cast) does not match expected "
    "type (tensor(int32)).",
    "INVALID_ARGUMENT : Unexpected input data type. Actual: (tensor(int32)) , expected: (tensor(int64))",
    "INVALID_ARGUMENT : Unexpected input data type. Actual: (tensor(float)) , expected: (tensor(float))",
])
def test_onnxruntime_type_errors_without_two_floating_dtypes_are_not_read(text: str) -> None:
    assert cw.explain(text) is None


@pytest.mark.parametrize(("text", "family", "dtypes"), [
    ("RuntimeError: expected type CUDAFloatType but got CUDAHalfType", Family.MIXED_FLOAT, ("f32", "f16")),
    ("RuntimeError: expected type CUDAFloatType but got CPUFloatType", Family.DEVICE, ("f32", "f32")),
])
def test_old_torch_s_legacy_type_names_are_read_with_their_devices(text: str, family: Family,
                                                                   dtypes: tuple[str, ...]) -> None:
    explanation = cw.explain(text)
    assert explanation.family is family and explanation.dtypes == dtypes


def test_legacy_type_names_that_name_no_dtype_are_not_read() -> None:
    assert cw.explain("RuntimeError: expected type CUDAStreamType but got CUDAEventType") is None


@pytest.mark.parametrize(("first", "second", "kind", "words"), [
    ("Byte", "Double", Kind.INTEGER_OPERAND, ".float()"),
    ("Float", "Half", Kind.SCALAR_TYPE, "t.to(torch.float32)"),
    ("Long", "Int", Kind.SCALAR_TYPE, ".long()"),
])
def test_old_torch_s_sequence_element_is_a_cat_of_two_dtypes(first: str, second: str, kind: Kind, words: str) -> None:
    explanation = cw.explain(f"RuntimeError: Expected object of scalar type {first} but got scalar type {second} for "
                             "sequence element 1 in sequence argument at position #1 'tensors'")
    assert explanation.kind is kind and explanation.op == "torch.cat/torch.stack"
    assert words in explanation.fix and explanation.confidence is Confidence.HIGH


@pytest.mark.parametrize("text", [
    "TypeError: Cannot convert a MPS Tensor to float64 dtype as the MPS framework doesn't support float64. Please use "
    "float32 instead.",
    "TypeError: Trying to convert Double to the MPS backend but it does not have support for that dtype.",
])
def test_float64_on_mps_is_a_backend_without_float64_fixed_by_float32(text: str) -> None:
    explanation = cw.explain(text)
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("f64",) and explanation.device == "mps"
    assert "float32" in explanation.fix and ".float()" in explanation.fix and "numpy" in explanation.culprit


def test_other_mps_conversions_are_not_read() -> None:
    assert cw.explain("TypeError: Cannot convert a MPS Tensor to a Python list") is None


@pytest.mark.parametrize("text", [
    "RuntimeError: probability tensor contains either `inf`, `nan` or element < 0",
    "RuntimeError: probability tensor contains either inf, nan or element < 0",
])
def test_sampling_from_non_finite_probabilities_is_non_finite_logits(text: str) -> None:
    explanation = cw.explain(text)
    assert explanation.kind is Kind.NONFINITE and explanation.confidence is Confidence.LOW
    assert "bfloat16" in explanation.fix and "castwise doctor" in explanation.fix and "float16" in explanation.culprit


def test_other_sampling_errors_are_not_read() -> None:
    assert cw.explain("RuntimeError: invalid multinomial distribution (sum of probabilities <= 0)") is None


@pytest.mark.parametrize(("text", "dtypes", "words"), [
    ("IncompatibleTypeErrorImpl('invalid operands of type pointer<fp16> and triton.language.float64')\n"
     "Set TORCHDYNAMO_VERBOSE=1 for the internal stack trace", ("f16", "f64"), "torch.compiler.disable"),
    ("triton.compiler.errors.CompilationError: invalid operands of type pointer<bf16> and triton.language.float32",
     ("bf16", "f32"), "tl.float32"),
])
def test_triton_s_type_errors_are_read_in_triton_s_dtype_names(text: str, dtypes: tuple[str, ...], words: str) -> None:
    explanation = cw.explain(text)
    assert explanation.kind is Kind.SCALAR_TYPE and explanation.dtypes == dtypes and words in explanation.fix
    assert explanation.confidence is Confidence.LOW


def test_triton_s_dot_of_two_dtypes_is_a_matmul_of_two_dtypes() -> None:
    explanation = cw.explain("AssertionError: Both operands must be same dtype. Got fp32 and fp16")
    assert explanation.kind is Kind.MATMUL and explanation.dtypes == ("f32", "f16") and "autocast" in explanation.fix


@pytest.mark.parametrize("text", [
    "LLVM ERROR: Broken function found, compilation aborted!",
    "ptxas /tmp/file6Aa6Qi, line 29; error   : Arguments mismatch for instruction 'cvt'",
    "error: invalid operands of types 'float' and 'int' to binary 'operator%'",
    "IncompatibleTypeErrorImpl('invalid operands of type pointer<fp16> and pointer<fp16>')",
    "AssertionError: Both operands must be same dtype. Got fp16 and fp16",
])
def test_compiler_errors_that_state_no_dtype_mismatch_are_not_read(text: str) -> None:
    assert cw.explain(text) is None


def test_a_matmul_message_without_its_dtypes_is_said_with_low_confidence() -> None:
    bare = cw.explain("RuntimeError: expected mat1 and mat2 to have the same dtype")
    full = cw.explain("RuntimeError: expected mat1 and mat2 to have the same dtype, but got: float != c10::Half")
    assert bare.kind is Kind.MATMUL and bare.dtypes == () and bare.confidence is Confidence.LOW
    assert full.kind is Kind.MATMUL and full.dtypes == ("f32", "f16") and full.confidence is Confidence.HIGH


def test_old_torch_s_location_suffix_does_not_hide_a_loss_dtype() -> None:
    explanation = cw.explain("RuntimeError: expected dtype Double but got dtype Float (validate_dtype at "
                             "/pytorch/aten/src/ATen/native/TensorIterator.cpp:143)")
    assert explanation.kind is Kind.LOSS_DTYPE and set(explanation.dtypes) == {"f32", "f64"}


def test_other_text_after_a_loss_dtype_message_keeps_it_from_the_loss_rule() -> None:
    explanation = cw.explain("RuntimeError: expected dtype Double but got dtype Float for the running mean")
    assert explanation is None or explanation.kind is not Kind.LOSS_DTYPE


@pytest.mark.parametrize("dtype", ["Char", "Long"])
def test_a_random_fill_of_an_integer_tensor_is_weights_initialised_as_integers(dtype: str) -> None:
    explanation = cw.explain(f"RuntimeError: \"normal_kernel_cpu\" not implemented for '{dtype}'")
    assert explanation.kind is Kind.NO_KERNEL and explanation.confidence is Confidence.LOW
    assert "initialis" in explanation.cause and ".float()" not in explanation.fix


def test_an_integer_matmul_kernel_is_still_integer_data() -> None:
    explanation = cw.explain("RuntimeError: \"addmm_impl_cpu_\" not implemented for 'Long'")
    assert explanation.kind is Kind.INTEGER_OPERAND


def test_a_paste_with_two_dtype_errors_of_different_kinds_is_answered_for_the_first_with_low_confidence() -> None:
    two = ("RuntimeError: Found dtype Float but expected Half\n"
           "then after model.half():\n"
           "RuntimeError: Input type (float) and bias type (c10::Half) should be the same\n")
    explanation = cw.explain(two)
    assert explanation.kind is Kind.LOSS_DTYPE and explanation.confidence is Confidence.LOW
    assert "conv_bias_dtype" in explanation.culprit and "Input type (float)" in explanation.culprit
    repeated = "RuntimeError: mat1 and mat2 must have the same dtype, but got Float and Half\n" * 2
    assert cw.explain(repeated).confidence is Confidence.HIGH


def test_a_grad_scaler_given_bf16_gradients_is_told_bf16_needs_no_scaler() -> None:
    explanation = cw.explain("RuntimeError: \"_amp_foreach_non_finite_check_and_unscale_cuda\" not implemented for "
                             "'BFloat16'")
    assert explanation.kind is Kind.UNSCALE_FP16 and explanation.dtypes == ("bf16",)
    assert "no loss scaling" in explanation.cause and "GradScaler(enabled=False)" in explanation.fix
    half = cw.explain("RuntimeError: \"_amp_foreach_non_finite_check_and_unscale_cuda\" not implemented for 'Half'")
    assert half.kind is Kind.UNSCALE_FP16 and half.dtypes == ("f16",)


@pytest.mark.parametrize(("paste", "dtype"), [
    ("bf16 causes Floating point exception (core dumped) error on H20\n\nfp16 works.", "bf16"),
    ("Crash on inference\n\nmodel = model.to(torch.bfloat16)\nIllegal instruction (core dumped)", "bf16"),
    ("[Question] Signal 8 (SIGFPE) on H20\n\nexiting with Signal 8 (SIGFPE)\nsuggests a bfloat16 issue", "bf16"),
])
def test_a_process_killed_by_a_signal_in_16_bit_is_a_broken_kernel_said_with_low_confidence(paste: str,
                                                                                          dtype: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == (dtype,)
    assert explanation.confidence is Confidence.LOW and "float32" in explanation.fix


@pytest.mark.parametrize(("paste", "said", "unsaid"), [
    ("model = model.to(torch.bfloat16)\nIllegal instruction (core dumped)", "no Python error", "raised"),
    ("a = torch.randn(8, 8).cuda().half()\nRuntimeError: cublas runtime error : unknown error", "raised",
     "no Python error"),
    ("python train.py --fp16\nRuntimeError: CUDA error: an illegal memory access was encountered", "raised",
     "no Python error"),
    ("the model crashes with fp16 on my GPU", "the report says it crashed", "no Python error"),
])
def test_a_crash_is_described_as_what_happened_a_signal_a_raised_error_or_a_report(paste: str, said: str,
                                                                                   unsaid: str) -> None:
    cause = cw.explain(paste).cause
    assert said in cause and unsaid not in cause


@pytest.mark.parametrize("paste", [
    "Segmentation fault (core dumped)",
    "Training crashes\n\nIllegal instruction (core dumped) when I import the package",
    "half of the runs end in Segmentation fault",
])
def test_a_crash_with_no_16_bit_dtype_said_stays_unrecognised(paste: str) -> None:
    assert cw.explain(paste) is None


@pytest.mark.parametrize(("paste", "kind", "dtype"), [
    ("I got an error about dot not being implemented for half.", Kind.NO_KERNEL, "f16"),
    ("Pipelines loaded with `dtype=torch.float16` cannot run with `cpu` device. due to the lack of support for"
     "`float16` operations on this device in PyTorch.", Kind.NO_KERNEL, "f16"),
    ("Float16\n\nRuntimeError: quantile() input tensor must be either float or double dtype", Kind.NO_KERNEL, "f16"),
    ("RuntimeError: Currently, AutocastCPU only support Bfloat16 as the autocast_cpu_dtype", Kind.NO_KERNEL, "bf16"),
    ("UserWarning: In CPU autocast, but the target dtype is not supported. Disabling autocast.", Kind.NO_KERNEL,
     "bf16"),
    ("ValueError: fp16 mixed precision requires a GPU (not 'mps').", Kind.NO_KERNEL, "f16"),
    ("RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasGemmStridedBatchedExFix(handle, "
     "opa, opb, m, n, k, (void*)(&falpha), a, CUDA_R_16BF, lda, stridea, b, CUDA_R_16BF, ldb)`", Kind.NO_KERNEL, "bf16"),
    ("RuntimeError: expected scalar type Float but found Half (data_ptr<float> at /torch/include/ATen/core/"
     "TensorMethods.h:5747)", Kind.NO_KERNEL, "f16"),
    ("CogVideoX inference all black when fp16\n\nWhen BF16 and FP32, everything is OK, but it occurs NaN when FP16.",
     Kind.NONFINITE, None),
    ("SD 2.1 in float16\n\nthe images come out black", Kind.NONFINITE, "f16"),
    ("ValueError: Input contains NaN.", Kind.NONFINITE, None),
    ("[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768", Kind.LOSS_SCALE,
     None),
    ("[E:onnxruntime:, sequential_executor.cc:281 Execute] Non-zero status code returned while running Resize node. "
     "Name:'Resize_164' Status Message: safeint.h:17 SafeIntOnOverflow() Integer overflow\nconverted to float16",
     Kind.VALUE_OVERFLOW, "f16"),
    ("RuntimeError: only Tensors of floating point dtype can require gradients", Kind.INTEGER_OPERAND, None),
    ("ValueError: The model's dtype is float32 but flash attention requires fp16 or bf16", Kind.NO_KERNEL, None),
    ("RuntimeError: torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.",
     Kind.NO_KERNEL, None),
    ("RuntimeError: all elements of input should be between 0 and 1", Kind.NONFINITE, None),
    ("Why scale value of GradScaler sudden changed?", Kind.LOSS_SCALE, "f16"),
    ("RuntimeError: unscale_() has already been called on this optimizer since the last update().", Kind.LOSS_SCALE,
     "f16"),
    ("black image occurs\n\nimage_processor.py:111: RuntimeWarning: invalid value encountered in cast",
     Kind.NONFINITE, None),
    ("Training with mixed precision is returning NaN", Kind.NONFINITE, None),
    ("the output is beyond the max num of fp16", Kind.VALUE_OVERFLOW, "f16"),
    ("DB模型model.half()输出都成0了", Kind.VALUE_OVERFLOW, "f16"),
    ("LLM(model, dtype=torch.half)\ngenerated text: '!!!!!!!!!!!!!!!!!!'", Kind.NONFINITE, "f16"),
    ("QwQ-32B dtype='half'\n\nLLVM ERROR: Failed to compute parent layout for slice layout.", Kind.NO_KERNEL, "f16"),
    ("Model outputs garbage text with fp16", Kind.NONFINITE, "f16"),
    ("RuntimeError: Expected object of scalar type Float but got scalar type Half for argument #2 'mat2' in call to "
     "_th_bmm_out", Kind.BATCHED_MATMUL, "f16"),
])
def test_round_seven_wordings(paste: str, kind: Kind, dtype: str | None) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and (dtype is None or dtype in explanation.dtypes)


def test_an_extension_that_reads_float_only_is_told_to_update_or_upcast() -> None:
    explanation = cw.explain("RuntimeError: expected scalar type Float but found Half (data_ptr<float> at x.h:1)")
    assert "update the extension" in explanation.fix and "data_ptr" in explanation.cause


def test_a_legacy_cudnn_message_cut_before_its_types_reads_them_from_the_title() -> None:
    paste = ("RuntimeError in Half precision: type torch.cuda.HalfTensor does not equal torch.cuda.FloatTensor\n\n"
             "RuntimeError: Expected tensor for argument #1 'grad_output' to have the same type as tensor for argument "
             "#2 'weight'; but ty")
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.CONV_WEIGHT and set(explanation.dtypes) == {"f16", "f32"}
    assert cw.explain("RuntimeError: Expected tensor for argument #1 'input' to have the same type as tensor for "
                      "argument #2 'weight'; but ty") is None


def test_an_error_opened_in_a_code_span_after_prose_is_read_with_its_field_lines() -> None:
    paste = ("I am getting ```ValueError: Query/Key/Value should either all have the same dtype\n"
             "  query.dtype: torch.float32\n  key.dtype  : torch.float16\n  value.dtype: torch.float16```")
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.SDPA and set(explanation.dtypes) == {"f32", "f16"}


def test_a_symptom_the_report_shows_wins_over_its_words_about_support() -> None:
    explanation = cw.explain("Black image using float16\n\nEdit: float16 is not supported, float32 works")
    assert explanation.kind is Kind.NONFINITE


@pytest.mark.parametrize("paste", [
    "float16 works fine, the images are great",
    "the noise schedule in fp16 is the same",
    "generated text: 'Hello!!!!' with fp32",
    "outputs are all 0 and 1 labels",
    "Black images with --precision full",
    "a black image with a white cat",
    "no NaN when using fp16",
])
def test_round_seven_prose_that_says_no_failure_stays_unrecognised(paste: str) -> None:
    assert cw.explain(paste) is None


@pytest.mark.parametrize(("paste", "kind", "dtype"), [
    ("fp16 generates NaNs for latents\n\nlatents are generated as all NaN.", Kind.NONFINITE, None),
    ("Every output is completely solid black.", Kind.NONFINITE, None),
    ("Pipelines loaded with `dtype=torch.fl", Kind.NO_KERNEL, "f16"),
    ("RuntimeError: invalid dtype for bias - should match query's dtype", Kind.ATTN_MASK, None),
    ("[Bfloat16] __bfloat2float Error\n\n`CUDA NVRTC compile error: ptxas application ptx input, line 9; error : "
     "Arguments mismatch for instruction 'cvt'`", Kind.NO_KERNEL, "bf16"),
    ("Failed to quantize linear_1: Expected dtype to be one of {_DTYPE_TO_BIT_WIDTH.keys()}", Kind.NO_KERNEL, None),
    ("torch.tensor(1, dtype=torch.bfloat16) * torch.tensor(1, dtype=torch.double)\nRuntimeError: common_dtype_ != "
     "ScalarType::Undefined INTERNAL ASSERT FAILED at TensorIterator.cpp:89", Kind.OP_DTYPE, "bf16"),
])
def test_round_eight_wordings(paste: str, kind: Kind, dtype: str | None) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and (dtype is None or dtype in explanation.dtypes)


def test_a_low_confidence_mismatch_also_says_to_update_the_library_it_came_from() -> None:
    unsure = cw.explain("RuntimeError: mat1 and mat2 must have the same dtype")
    assert unsure.confidence is Confidence.LOW and "update it first" in unsure.fix
    sure = cw.explain("RuntimeError: mat1 and mat2 must have the same dtype, but got Float and Half")
    assert sure.confidence is Confidence.HIGH and "update it first" not in sure.fix


def test_an_old_promotion_assert_names_the_dtypes_the_code_shows() -> None:
    paste = ("a = torch.ones(1, dtype=torch.bfloat16) * torch.ones(1, dtype=torch.double)\n"
             "RuntimeError: common_dtype_ != ScalarType::Undefined INTERNAL ASSERT FAILED")
    assert set(cw.explain(paste).dtypes) == {"bf16", "f64"} and "promotion" in cw.explain(paste).cause


@pytest.mark.parametrize(("paste", "kind", "dtypes"), [
    ('NotImplementedError: "angle_xpu" not implemented for \'BFloat16\' / NotImplementedError: "angle_xpu" not '
     "implemented for 'Half'", Kind.NO_KERNEL, {"bf16", "f16"}),
    ("gguf.GGMLQuantizationType.BF16\n AttributeError: BF16. Did you mean: 'F16'?", Kind.NO_KERNEL, {"bf16"}),
    ("Error: input types 'tensor<20xf16>' and 'tensor<1xf32>' are not broadcast compatible", Kind.NO_KERNEL,
     {"f16", "f32"}),
    ("RuntimeError: Triton Error [ZE]: 0x70000004\nbf conversion instruction not supported!", Kind.NO_KERNEL, {"bf16"}),
    ("GRPO load_in_4bit error\nAssertionError: mismatch dtype: src torch.uint8, dst torch.bfloat16",
     Kind.INTEGER_OPERAND, {"uint8", "bf16"}),
    ("RuntimeError: attempting to assign a gradient with dtype 'c10::BFloat16' to a tensor with dtype 'float'.",
     Kind.LOSS_DTYPE, {"bf16", "f32"}),
    ("AssertionError: FP16 mode cannot be used in single GPU training.", Kind.LOSS_SCALE, {"f16"}),
    ("RuntimeError: Expected object if scalar type Float but got scalar type Half for argument #2 'mat2'",
     Kind.MATMUL, {"f32", "f16"}),
    ("RuntimeError: Expected object of scaLar type Long but got scalar type FLoat for argument #2 ' target' in call "
     "to_ thnn_ nLL Loss_ forward", Kind.TARGET, {"f32"}),
    ("you will hit the following error - float expected but received half or bfloat", Kind.SCALAR_TYPE, {"f32", "f16"}),
    ("I use bfloat and the error is this doesn't want bfloat it wants half.", Kind.SCALAR_TYPE, {"bf16", "f16"}),
    ("compile with AMP emits the wrong (float) dtype instead of bfloat16.", Kind.SCALAR_TYPE, {"bf16", "f32"}),
    ("embedding反向调用的atomic_add不支持bf16", Kind.NO_KERNEL, {"bf16"}),
    ("half precision xlmr error when model on cpu", Kind.NO_KERNEL, {"f16"}),
    ("layer_norm needs fp32 for fp16 inputs, otherwise overflow happens.", Kind.VALUE_OVERFLOW, {"f16"}),
    ("training on mps must occur with float32. Currently, the library supplies data in float64.", Kind.NO_KERNEL,
     {"f64"}),
])
def test_round_nine_wordings(paste: str, kind: Kind, dtypes: set[str]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and dtypes <= set(explanation.dtypes)


@pytest.mark.parametrize("paste", [
    "Trying the sample code using fp16 instead of bf16",
    "the fp16 run on the GPU has no overflow, and the cpu run is fine",
    "overflow happens in my int32 counter",
    "mps is fast; float32 only",
])
def test_round_nine_prose_that_says_no_dtype_failure_stays_unrecognised(paste: str) -> None:
    assert cw.explain(paste) is None


@pytest.mark.parametrize(("paste", "kind", "dtypes"), [
    ("Wan 2.2 gguf\nRuntimeError: Input type (torch.cuda.HalfTensor) and weight type (torch.cuda.ByteTensor) should be "
     "the same", Kind.CONV_WEIGHT, {"f16", "uint8"}),
    ("xxx = torch.tanh(xxx @ tm_w1)\nRuntimeError: expected scalar type Half but found Byte", Kind.MATMUL,
     {"f16", "uint8"}),
    ("RuntimeError: TCNN was not compiled with half-precision support.", Kind.NO_KERNEL, {"f16"}),
    ("16bit precision currently gives `no inf checks were recorded for this optimizer`", Kind.LOSS_SCALE, set()),
    ("RuntimeError: output tensor must have the same type as input tensor", Kind.SCALAR_TYPE, set()),
    ("AclNN_Parameter_Error(EZ1001): Tensor matB not implemented for DT_INT8", Kind.NO_KERNEL, {"int8"}),
    ("[ONNXRuntimeError] : 1 : FAIL : Type Error: Type parameter (T) of Optype (Concat) bound to different types "
     "(tensor(float) and tensor(float16) in node (Concat_307).", Kind.SCALAR_TYPE, {"f32", "f16"}),
    ("RuntimeError: default_program(61): error: no suitable conversion function from \"__half\" to \"float\" exists",
     Kind.NO_KERNEL, {"f16"}),
    ("NaNs and default fp16\n\nI get NaNs when it's turned on.", Kind.NONFINITE, set()),
    ("vae encoder的输出值全都变成了NAN", Kind.NONFINITE, set()),
    ("fp16推理结果全是感叹号", Kind.NONFINITE, {"f16"}),
    ("the following lines complain about mismatched dtypes (got float and float16)", Kind.SCALAR_TYPE, {"f32", "f16"}),
])
def test_round_ten_wordings(paste: str, kind: Kind, dtypes: set[str]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and dtypes <= set(explanation.dtypes)


def test_uint8_pixels_into_a_convolution_stay_integer_data_even_in_a_quantized_model() -> None:
    paste = ("load_in_4bit=True\nRuntimeError: Input type (torch.cuda.ByteTensor) and weight type (CUDABFloat16Type) "
             "should be the same")
    assert cw.explain(paste).kind is Kind.INTEGER_OPERAND
    pixels = "RuntimeError: expected scalar type Float but found Byte"
    assert cw.explain(pixels).kind is not Kind.MATMUL


@pytest.mark.parametrize(("paste", "kind", "dtypes"), [
    ("RuntimeError: found the dtype double but expect float", Kind.LOSS_DTYPE, {"f64", "f32"}),
    ("AttributeError: 'torch.HalfTensor' object has no attribute 'uniform_'", Kind.NO_KERNEL, {"f16"}),
    ("RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasGemmEx( handle, opa, opb, m, n, "
     "k, &falpha, a, CUDA_R_16F, lda, b, CUDA_R_16F, ldb)`", Kind.NO_KERNEL, {"f16"}),
    ("error: 'mps.add' op requires the same element type for all operands and results\nnote: see current operation: "
     "%7 = \"mps.add\"(%5, %arg2) : (tensor<1x5330x4096xf32>, tensor<4096xf16>) -> tensor<*xf32>", Kind.OP_DTYPE,
     {"f32", "f16"}),
    ("ValueError: Mixed precision training with AMP or APEX (`--fp16`) and FP16 evaluation can only be used on CUDA "
     "devices.", Kind.NO_KERNEL, {"f16"}),
    ("ValueError: Value bf_16 is not available in Precision", Kind.NO_KERNEL, {"bf16"}),
    ("    assert len(set(t.dtype for t in tensors)) == 1\nAssertionError", Kind.SCALAR_TYPE, set()),
    ("TypeError: cannot assign 'torch.cuda.BFloat16Tensor' as parameter 'weight' (torch.nn.Parameter or None "
     "expected)", Kind.SCALAR_TYPE, {"bf16"}),
])
def test_round_eleven_wordings(paste: str, kind: Kind, dtypes: set[str]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and dtypes <= set(explanation.dtypes)


def test_a_call_made_by_an_installed_library_is_told_to_update_that_library() -> None:
    paste = ("Traceback (most recent call last):\n"
             '  File "/home/me/train.py", line 9, in <module>\n'
             "    pipe(prompt)\n"
             '  File "/opt/conda/lib/python3.10/site-packages/diffusers/models/attention.py", line 88, in forward\n'
             "    out = F.linear(x, self.weight)\n"
             '  File "/opt/conda/lib/python3.10/site-packages/torch/nn/functional.py", line 12, in linear\n'
             "    return torch._C._nn.linear(x, w)\n"
             "RuntimeError: mat1 and mat2 must have the same dtype, but got Float and Half\n")
    assert "update diffusers" in cw.explain(paste).fix
    own = paste.replace("/opt/conda/lib/python3.10/site-packages/diffusers/models/attention.py", "/home/me/model.py")
    assert "update" not in cw.explain(own).fix


@pytest.mark.parametrize("folder", ["ComfyUI/custom_nodes/ComfyUI-Node-Pack", "stable-diffusion-webui/extensions/sd-ext"])
def test_a_call_made_by_an_app_s_plugin_is_told_to_update_that_plugin(folder: str) -> None:
    paste = (f'  File "/home/me/{folder}/nodes.py", line 88, in forward\n'
             "    out = F.linear(x, self.weight)\n"
             "RuntimeError: mat1 and mat2 must have the same dtype, but got Float and Half\n")
    assert f"update {folder.rsplit('/', 1)[-1]}" in cw.explain(paste).fix


@pytest.mark.parametrize(("paste", "kind", "dtypes"), [
    ("attn = torch.bmm(attn_probs, value_states)\nRuntimeError: expected scalar type Half but found Float",
     Kind.BATCHED_MATMUL, {"f16", "f32"}),
    ("fp16 attention\nAssertionError: All tensors must have the same dtype.", Kind.SDPA, set()),
    ("OVERFLOW! Skipping step. Attempted loss scale: 65536.0", Kind.LOSS_SCALE, {"f16"}),
    ("RuntimeError: dtype != ScalarType::Undefined INTERNAL ASSERT FAILED at aten/src/ATen/native/TensorIterator.cpp",
     Kind.OP_DTYPE, set()),
    ("bf16 input\nRuntimeError: !needs_dynamic_casting<func_t>::check(iter) INTERNAL ASSERT FAILED", Kind.OP_DTYPE,
     {"bf16"}),
    ("NotImplementedError: No operator found for `memory_efficient_attention_forward` ... bf16 is only supported on "
     "A100+ GPUs", Kind.NO_KERNEL, {"bf16"}),
    ("AttributeError: allow_fp16_accumulation is not available in this version of torch", Kind.NO_KERNEL, {"f16"}),
    ("RuntimeError: Required aspect fp64 is not supported on the device", Kind.NO_KERNEL, {"f64"}),
    ("Data types float32 and float16 must be equal for binary operators", Kind.SCALAR_TYPE, {"f32", "f16"}),
    ("the result image is NaN", Kind.NONFINITE, set()),
    ("fp16_run: true causes NaNs", Kind.NONFINITE, set()),
    ("hidden outputs became overflowing to inf and nan", Kind.NONFINITE, set()),
    ("有些token会输出nan", Kind.NONFINITE, set()),
    ("[QUESTION]NAN in output of model in O1/O2", Kind.NONFINITE, set()),
])
def test_round_twelve_wordings(paste: str, kind: Kind, dtypes: set[str]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and dtypes <= set(explanation.dtypes)


def test_a_norm_check_without_its_prefix_is_said_with_low_confidence() -> None:
    bare = cw.explain("expect input to have scalar type of BFloat16")
    assert bare.kind is Kind.NORM_PARAM and bare.confidence is Confidence.LOW
    full = cw.explain("RuntimeError: mixed dtype (CPU): expect input to have scalar type of BFloat16")
    assert full.confidence is Confidence.HIGH


@pytest.mark.parametrize("paste", ["the result is not NaN", "values are inferred from the config"])
def test_round_twelve_prose_without_a_failure_stays_unrecognised(paste: str) -> None:
    assert cw.explain(paste) is None


@pytest.mark.parametrize(("paste", "kind", "dtypes"), [
    ("TypeError: Could not infer dtype of numpy.float32", Kind.NUMPY_DTYPE, {"f32"}),
    ("RuntimeError: Tensors of the same index must be on the same device and the same dtype except `step` tensors that "
     "can be CPU and float32 notwithstanding", Kind.SCALAR_TYPE, set()),
    ("FP16 conversion of Huge model\n\nThe encoder (ViT-H) outputs garbage in this case.", Kind.NONFINITE, {"f16"}),
    ("半精度训练的时候，这里会报overflow问题", Kind.VALUE_OVERFLOW, {"f16"}),
    ("fp16 gradient overflow\n\nwe use apex and it is easy to fall into gradient overflow", Kind.LOSS_SCALE, {"f16"}),
])
def test_round_thirteen_wordings(paste: str, kind: Kind, dtypes: set[str]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and dtypes <= set(explanation.dtypes)


@pytest.mark.parametrize("paste", ["stack overflow answer for fp32", "the output is noise-free", "integer overflow"])
def test_round_thirteen_prose_without_a_16_bit_failure_stays_unrecognised(paste: str) -> None:
    assert cw.explain(paste) is None


@pytest.mark.parametrize(("paste", "kind", "dtypes"), [
    ("Chameleon in bf16 on cpu\n\nWhen I load the weights (bf16), inference fails due to dtype mismatch.",
     Kind.SCALAR_TYPE, {"bf16"}),
    ("Model fails with bf16\n\nsome lines\nI get a data type mismatch when I run it", Kind.SCALAR_TYPE, {"bf16"}),
    ("fp16 dtype mismatch\n\nFile \"m.py\", line 3, in forward\n    x = F.conv2d(x, self.weight)", Kind.CONV_WEIGHT,
     {"f16"}),
    ("改用fp16之后精度不一致", Kind.SCALAR_TYPE, {"f16"}),
    ("The loss nans immediately with precision 16", Kind.NONFINITE, set()),
    ("I see a NaN value in loss after a few steps", Kind.NONFINITE, set()),
    ("the fp16 model outputs `-inf`'s during the forward pass", Kind.NONFINITE, set()),
    ("the gradients are set to nan after a few steps", Kind.NONFINITE, set()),
    ("timm_models_accuracy_training_bfloat16 resnet50 fail_accuracy", Kind.NONFINITE, {"bf16"}),
    ("Converting to FP16 gives bad results", Kind.NONFINITE, {"f16"}),
    ("Calling model.half() gives different GPT-2 outputs than fp32", Kind.NONFINITE, {"f16"}),
])
def test_round_fourteen_wordings(paste: str, kind: Kind, dtypes: set[str]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and dtypes <= set(explanation.dtypes)
    assert explanation.confidence is Confidence.LOW


@pytest.mark.parametrize("paste", [
    "there is a dtype mismatch somewhere in my int64 labels", "the type mismatch was fixed in 1.2",
    "fail_accuracy for resnet50 in float32", "we set the padding to -inf in the mask", "bad results after 3 epochs",
    "I set to nan the missing values",
])
def test_round_fourteen_prose_without_a_16_bit_failure_stays_unrecognised(paste: str) -> None:
    assert cw.explain(paste) is None


@pytest.mark.parametrize(("paste", "kind", "dtypes"), [
    ("AssertionError: inputs must have the same dtype\n\nwe train with bf16", Kind.SCALAR_TYPE, {"bf16"}),
    ("FP16 training randomly nan's hundreds of iterations in", Kind.NONFINITE, {"f16"}),
    ("training using FP16\nstep:12 - actor/grad_norm:nan - critic/score:0.1", Kind.NONFINITE, {"f16"}),
    ("I used fp16 for training\nloss is nan after 100 steps", Kind.NONFINITE, {"f16"}),
])
def test_round_fourteen_checks_and_logs(paste: str, kind: Kind, dtypes: set[str]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and dtypes <= set(explanation.dtypes)


@pytest.mark.parametrize("paste", [
    "AssertionError: inputs must have the same dtype", "the model without nans is fine",
    "step:12 - actor/grad_norm:nan - critic/score:0.1", "sizes must be the same in fp16",
])
def test_round_fourteen_checks_without_a_16_bit_failure_stay_unrecognised(paste: str) -> None:
    assert cw.explain(paste) is None


@pytest.mark.parametrize(("paste", "kind", "dtypes"), [
    ("RuntimeError: where(): expected condition to be a boolean tensor, but got a tensor with dtype Float", Kind.MASK,
     {"f32"}),
    ("RuntimeError: Expected a floating point or complex tensor as input. Got Long", Kind.INTEGER_OPERAND, {"int64"}),
    ("RuntimeError: torch._scaled_mm is only supported on CUDA devices with compute capability >= 9.0 or 8.9, or ROCm "
     "MI300+", Kind.NO_KERNEL, set()),
    ("RuntimeError: Expected q_dtype == at::kHalf || q_dtype == at::kBFloat16 to be true, but got false.",
     Kind.NO_KERNEL, set()),
    ("AssertionError: Expected input dtype torch.float16 to match weight dtype torch.float32", Kind.SCALAR_TYPE,
     {"f16", "f32"}),
    ("the model runs in fp16\nRuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED. This error may appear if you "
     "passed in a non-contiguous input.", Kind.NO_KERNEL, {"f16"}),
    ("bf16 training\nRuntimeError: Expected A.dtype() == B.dtype() to be true, but got false.", Kind.OP_DTYPE,
     {"bf16"}),
])
def test_round_fourteen_torch_and_kernel_checks(paste: str, kind: Kind, dtypes: set[str]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and dtypes <= set(explanation.dtypes)


def test_a_check_that_names_no_dtype_says_which_the_paste_names_not_that_its_error_is_missing() -> None:
    explanation = cw.explain("model in fp16\nRuntimeError: tensors must have the same dtype")
    assert explanation.kind is Kind.SCALAR_TYPE and explanation.dtypes == ("f16",)
    assert "without naming them" in explanation.cause and "not in the paste" not in explanation.cause


@pytest.mark.parametrize("paste", [
    "RuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED. This error may appear if you passed in a non-contiguous "
    "input.",
])
def test_round_fourteen_checks_with_no_16_bit_dtype_near_stay_unrecognised(paste: str) -> None:
    assert cw.explain(paste) is None


@pytest.mark.parametrize(("paste", "kind", "dtypes"), [
    ("ValueError: Must flatten tensors with uniform dtype but got torch.float16 and torch.float32", Kind.OP_DTYPE,
     {"f16", "f32"}),
    ("AssertionError: FSDP expects uniform original parameter dtype but got {torch.float32, torch.bfloat16}",
     Kind.OP_DTYPE, {"f32", "bf16"}),
    ("AssertionError: FSDP expects uniform reduce dtype but got {torch.float32, torch.bfloat16}", Kind.OP_DTYPE,
     {"f32", "bf16"}),
    ("RuntimeError: mixed dtype (CPU): all inputs must share same datatype.", Kind.NORM_PARAM, set()),
    ("TypeError: Cannot interpret 'torch.bfloat16' as a data type", Kind.NUMPY_DTYPE, {"bf16"}),
    ("RuntimeError: Expected tensor for argument #1 'input' to have the same device as tensor for argument #2 "
     "'weight'; but device 1 does not equal 0 (while checking arguments for cudnn_convolution)", Kind.DEVICE_MISMATCH,
     set()),
    ("[ONNXRuntimeError] : 10 : INVALID_GRAPH : Load model from m.onnx failed:This is an invalid model. Type Error: "
     "Type 'tensor(float16)' of input parameter (x) of operator (Resize) in node (Resize_12) is invalid.",
     Kind.NO_KERNEL, {"f16"}),
    ("exported model_fp16.onnx\n[ONNXRuntimeError] : 9 : NOT_IMPLEMENTED : Could not find an implementation for "
     "ConvTranspose(11) node with name 'ConvTranspose_3'", Kind.NO_KERNEL, {"f16"}),
    ("RuntimeError: input must have the type torch.cuda.HalfTensor, got type torch.cuda.FloatTensor",
     Kind.SCALAR_TYPE, {"f16", "f32"}),
])
def test_round_fourteen_wrappers_and_runtimes(paste: str, kind: Kind, dtypes: set[str]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and dtypes <= set(explanation.dtypes)


@pytest.mark.parametrize("paste", [
    "Type Error: Type 'tensor(int64)' of input parameter (x) of operator (Resize) in node (Resize_12) is invalid.",
    "ValueError: Expected input batch_size (4) to match target batch_size (8).",
])
def test_round_fourteen_runtime_errors_without_a_16_bit_dtype_stay_unrecognised(paste: str) -> None:
    assert cw.explain(paste) is None


@pytest.mark.parametrize(("paste", "kind", "dtypes"), [
    ("RuntimeError: grid_sampler(): expected input and grid to have same dtype, but input has float and grid has "
     "c10::Half", Kind.OP_DTYPE, {"f32", "f16"}),
    ("RuntimeError: Expected q_dtype == torch::kFloat16 || ((is_sm8x || is_sm90) && q_dtype == torch::kBFloat16) to be "
     "true, but got false.", Kind.NO_KERNEL, set()),
    ("ValueError: You can use float16 instead by explicitly setting the`dtype` flag in CLI, for example: --dtype=half.",
     Kind.NO_KERNEL, {"bf16"}),
    ('RuntimeError: "where_cpu" not implemented for \'BFloat16\'\n\nand in half:\n\nRuntimeError: "where_cpu" not '
     "implemented for 'Half'", Kind.NO_KERNEL, {"bf16", "f16"}),
    ("Incompatibilidad de dtypes (Half vs. Float)", Kind.SCALAR_TYPE, {"f16", "f32"}),
    ("[Bug] dtype mismatch (Half vs Float) in matrix multiplication operations", Kind.MATMUL, {"f16", "f32"}),
    ("AssertionError: Data types for parameters must match. Found input dtype: thunder.dtypes.float32 and 'weight' "
     "dtype: thunder.dtypes.bfloat16", Kind.SCALAR_TYPE, {"f32", "bf16"}),
    ("RuntimeError: Tensor 1 - data type mismatch: expected Float32, got BFloat16", Kind.SCALAR_TYPE, {"f32", "bf16"}),
    ("float16 grid_sample gives a very large numeric error against float64", Kind.NONFINITE, {"f16"}),
    ("fp16 parity issue with traced code on GPU", Kind.NONFINITE, {"f16"}),
    ("RuntimeError: Unsupported input data type for quantize_to_fp4", Kind.NO_KERNEL, set()),
    ("python train.py --precision half\nRuntimeError: cuDNN error: CUDNN_STATUS_BAD_PARAM", Kind.NO_KERNEL, {"f16"}),
    ("使用AMP训练时偶尔会遇到梯度 NaN", Kind.NONFINITE, set()),
    ("MelSpectrogram in float16 produces some `inf` values", Kind.NONFINITE, {"f16"}),
])
def test_round_fourteen_after_freeze_wordings(paste: str, kind: Kind, dtypes: set[str]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and dtypes <= set(explanation.dtypes)


@pytest.mark.parametrize("paste", [
    "fp16 vs fp32 throughput on an A100", "the unsupported data type list is in the docs", "parity with the paper",
    "FSDP is incompatible with BF16", "the grid has float coordinates",
])
def test_round_fourteen_after_freeze_prose_stays_unrecognised(paste: str) -> None:
    assert cw.explain(paste) is None


@pytest.mark.parametrize(("paste", "kind", "dtypes"), [
    ("RuntimeError: Mismatch dtype between input and weight: input dtype = c10::BFloat16, weight dtype = float, please "
     "use the same dtype", Kind.SCALAR_TYPE, {"bf16", "f32"}),
    ("RuntimeError: Input dtypes must be the same, got: input c10::Half, weight: float", Kind.SCALAR_TYPE,
     {"f16", "f32"}),
    ("RuntimeError: Expected query, key and value to all be of dtype: {Half, BFloat16}. Got Query dtype: float, Key "
     "dtype: float, and Value dtype: float instead.", Kind.NO_KERNEL, set()),
    ("RuntimeError: All tensors must have the same dtype, got input1: Half, input2: Float", Kind.OP_DTYPE,
     {"f16", "f32"}),
    ("RuntimeError: torch.take_along_dim(): dtype of indices should be Long but got Float", Kind.INDEX_TENSOR, {"f32"}),
    ("RuntimeError: Function MmBackward0 returned an invalid gradient at index 0 - expected type TensorOptions("
     "dtype=float, device=cuda:0, layout=Strided, requires_grad=false) but got TensorOptions(dtype=c10::Half, "
     "device=cuda:0, layout=Strided, requires_grad=false)", Kind.LOSS_DTYPE, {"f32", "f16"}),
    ("RuntimeError: expected common dtype to be floating point, yet common dtype is Long", Kind.INTEGER_OPERAND,
     {"int64"}),
])
def test_torch_s_own_dtype_checks_read_from_its_binary_s_messages(paste: str, kind: Kind, dtypes: set[str]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and dtypes <= set(explanation.dtypes)


def test_a_floating_only_check_naming_a_floating_dtype_is_not_read_as_integer_data() -> None:
    assert cw.explain("RuntimeError: cdist only supports floating-point dtypes, X1 got: Half") is None


@pytest.mark.parametrize(("paste", "kind", "dtypes"), [
    ("RuntimeError: Expected A.dtype() == at::kBFloat16 to be true, but got false.", Kind.NO_KERNEL, {"bf16"}),
    ("ValueError: Value bf16 not found in Precision", Kind.NO_KERNEL, {"bf16"}),
    ("ValueError: Buffer dtype mismatch, expected 'float' but got 'double'", Kind.SCALAR_TYPE, {"f32", "f64"}),
    ("`gemv_4bit` with NF4 has huge `bfloat16` error compared with `float16`", Kind.NONFINITE, {"bf16"}),
    ("there is a loss of accuracy when converting to bf16", Kind.NONFINITE, {"bf16"}),
    ('with torch_dtype=torch.float16\nthe latents output is "Nan" value', Kind.NONFINITE, {"f16"}),
    ("the model runs in fp16\nRuntimeError: scatter add only supports float, bfloat16, int, int64 and double type",
     Kind.NO_KERNEL, {"f16"}),
    ("RuntimeError: scatter add only supports float, bfloat16, int, int64 and double type", Kind.NO_KERNEL, set()),
])
def test_round_fifteen_wordings(paste: str, kind: Kind, dtypes: set[str]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and dtypes <= set(explanation.dtypes)


def test_a_kernel_that_takes_only_fp32_is_told_to_run_in_fp32_not_to_cast_to_16_bit() -> None:
    explanation = cw.explain("RuntimeError: Expected self.scalar_type() == ScalarType::Float to be true, but got false.")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("f32",)
    assert "x.float()" in explanation.fix and "bfloat16" not in explanation.fix


def test_an_error_quoted_inside_prose_is_read_with_low_confidence() -> None:
    message = ("TypeError: Cannot convert a MPS Tensor to float64 dtype as the MPS framework doesn't support float64. "
               "Please use float32 instead.")
    assert cw.explain(message).confidence is Confidence.HIGH
    quoted = cw.explain(f'whereas with double precision it correctly fails with\n\n`"{message}"`\n\nI would expect')
    assert quoted.kind is Kind.NO_KERNEL and quoted.confidence is Confidence.LOW


@pytest.mark.parametrize(("paste", "kind", "dtypes"), [
    ("RuntimeError: Promotion for Float8 Types is not supported, attempted to promote Float8_e4m3fn and Bool",
     Kind.FP8_PROMOTION, {"float8_e4m3fn", "bool"}),
    ("ValueError: Precision 'bf16-true' is invalid. Allowed precision values: ('16-mixed', 'bf16-mixed', '32-true')",
     Kind.NO_KERNEL, {"bf16"}),
    ("TypeError: __init__() got an unexpected keyword argument 'fp16'", Kind.NO_KERNEL, {"f16"}),
    ("MisconfigurationException: `precision='bf16'` does not use a scaler, found <ShardedGradScaler object>",
     Kind.LOSS_SCALE, {"bf16"}),
    ("ValueError: Expected dtype ['fp32', 'fp64'] but got bf16", Kind.NO_KERNEL, {"bf16"}),
    ("NotImplementedError: Unsloth: We do not support dtype = float16 yet!", Kind.NO_KERNEL, {"f16"}),
    ("TypeError: Cannot handle this data type: (1, 1, 3), <f4", Kind.INTEGER_OPERAND, {"f32"}),
    ("error `RuntimeError: expected scalar type Float but found Half` at `I3DHead.fc_cls` `addmm op`.", Kind.MATMUL,
     {"f32", "f16"}),
    ("fp16 polygraphy check: `PASSED | Output: 'pooler_output' | FAILED | Output: 'last_hidden_state'`",
     Kind.NONFINITE, {"f16"}),
])
def test_round_sixteen_wordings(paste: str, kind: Kind, dtypes: set[str]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and dtypes <= set(explanation.dtypes)


@pytest.mark.parametrize("paste", [
    "TypeError: Cannot handle this data type: (1, 1, 5), |u1", "ValueError: Expected dtype ['fp32', 'fp64'] but got i32",
    "TypeError: __init__() got an unexpected keyword argument 'lr'",
])
def test_round_sixteen_checks_that_are_not_about_16_bit_stay_unrecognised(paste: str) -> None:
    assert cw.explain(paste) is None


@pytest.mark.parametrize(("paste", "kind", "dtypes"), [
    ("---> 17 boxes[:, 0] = torch.where(boxes[:, 0] < threshold, 0, boxes[:, 0])\nRuntimeError: expected scalar type "
     "long int but found float", Kind.INTEGER_OPERAND, {"int64", "f32"}),
    ("我们一直会遇到 expected scalar type Float but found BFloat16的报错", Kind.SCALAR_TYPE, {"f32", "bf16"}),
    ("Invalid argument: unexpected datatype TYPE_FP32 for inference input 'images', expecting TYPE_FP16",
     Kind.SCALAR_TYPE, {"f32", "f16"}),
    ("Argument element types are inconsistent.\nWhile validating node 'v1::Multiply Multiply_1288 (Slice_562[0]:f16"
     "{1000,4}, Mul_565/mul[0]:f32{1,4}) -> ()'", Kind.SCALAR_TYPE, {"f16", "f32"}),
    ("In op, of type batch_norm, named input.3, the named input `epsilon` must have the same data type as the named "
     "input `mean`. However, epsilon has dtype fp32 whereas mean has dtype fp16.", Kind.NORM_PARAM, {"f32", "f16"}),
    ("model_fp16.onnx\n[ONNXRuntimeError] : 1 : FAIL : Failed to find kernel for Sub", Kind.NO_KERNEL, {"f16"}),
    ("fp16 ensemble\nPyTorch execute failure: MALFORMED INPUT: bad dtype in CompareSelect", Kind.NO_KERNEL, {"f16"}),
    ("half.h:46:5: error: ‘_Float16’ does not name a type; did you mean ‘BFloat16’?", Kind.NO_KERNEL, {"f16"}),
    ("There appears to be image corruption using `fp16`, `fp32` works fine", Kind.NONFINITE, {"f16"}),
    ('"Nan" arised when TRT uses fp16', Kind.NONFINITE, {"f16"}),
])
def test_round_seventeen_wordings(paste: str, kind: Kind, dtypes: set[str]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and dtypes <= set(explanation.dtypes)


@pytest.mark.parametrize("paste", [
    "Argument element types are inconsistent.", "the file got corrupted during download", "no NaN arose in fp32",
])
def test_round_seventeen_messages_without_a_16_bit_failure_stay_unrecognised(paste: str) -> None:
    assert cw.explain(paste) is None


@pytest.mark.parametrize(("paste", "kind", "dtypes"), [
    ("ValueError: `.to` is not supported for `4-bit` or `8-bit` bitsandbytes models. Please use the model as it is",
     Kind.NO_KERNEL, set()),
    ("AttributeError: 'BF16_Optimizer' object has no attribute 'fp16_groups'", Kind.NO_KERNEL, {"bf16"}),
    ("x = x.half()\nRuntimeError: CUDNN_STATUS_ARCH_MISMATCH", Kind.NO_KERNEL, {"f16"}),
    ("bf16 training will occurs NaN problem", Kind.NONFINITE, {"bf16"}),
    ("much more broken output when half precision was used", Kind.NONFINITE, {"f16"}),
    ("with fp16 the images are just black", Kind.NONFINITE, {"f16"}),
    ("AMP is used, occasionally resulting in NaNs", Kind.NONFINITE, set()),
    ("半精度训练的时候这里会报overflow问题", Kind.VALUE_OVERFLOW, {"f16"}),
])
def test_round_eighteen_wordings(paste: str, kind: Kind, dtypes: set[str]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and dtypes <= set(explanation.dtypes)


def test_an_overflow_answer_says_overflow() -> None:
    assert "overflow" in cw.explain("fp16 inputs, otherwise overflow happens").cause


@pytest.mark.parametrize("paste", ["RuntimeError: CUDNN_STATUS_ARCH_MISMATCH", "the broken link in the docs"])
def test_round_eighteen_messages_without_a_16_bit_failure_stay_unrecognised(paste: str) -> None:
    assert cw.explain(paste) is None


@pytest.mark.parametrize(("paste", "kind", "dtypes"), [
    ("The dtype of attention mask (torch.int64) is not bool", Kind.MASK, {"int64"}),
    ("ValueError: invalid literal for int() with base 10: '16-true'", Kind.NO_KERNEL, {"f16"}),
    ("ThunderFX in BF16 mode shows a larger divergence\nError: Tensor-likes are not close!", Kind.NONFINITE, {"bf16"}),
    ("bf16 precision was requested but not available on this hardware", Kind.NO_KERNEL, {"bf16"}),
    ("with fp16_mode=True I get lot's of nan for box rotation predictions", Kind.NONFINITE, set()),
])
def test_round_nineteen_wordings(paste: str, kind: Kind, dtypes: set[str]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and dtypes <= set(explanation.dtypes)


@pytest.mark.parametrize("paste", ["Error: Tensor-likes are not close!", "the file is not available on the mirror"])
def test_round_nineteen_messages_without_a_16_bit_failure_stay_unrecognised(paste: str) -> None:
    assert cw.explain(paste) is None


@pytest.mark.parametrize(("paste", "kind", "dtypes"), [
    ("ValueError: Blockwise quantization only supports 16/32-bit floats, but got torch.bfloat16", Kind.NO_KERNEL,
     {"bf16"}),
    ("a = torch.randn(8, 8).cuda().half()\nRuntimeError: cublas runtime error : unknown error", Kind.NO_KERNEL,
     {"f16"}),
    ("python train.py --fp16\nRuntimeError: CUDA error: an illegal memory access was encountered", Kind.NO_KERNEL,
     {"f16"}),
    ("I get a nan value when model,img half", Kind.NONFINITE, set()),
    ("TypeError: argument 'dtype' must be torch.dtype, not type", Kind.NUMPY_DTYPE, set()),
])
def test_round_twenty_wordings(paste: str, kind: Kind, dtypes: set[str]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and dtypes <= set(explanation.dtypes)


def test_an_overflow_said_in_prose_outranks_an_illegal_memory_access_beside_fp16() -> None:
    paste = "fp16 overflow happens in the attention\nRuntimeError: CUDA error: an illegal memory access was encountered"
    assert cw.explain(paste).kind is Kind.VALUE_OVERFLOW


@pytest.mark.parametrize("paste", [
    "RuntimeError: CUDA error: an illegal memory access was encountered", "RuntimeError: cublas runtime error",
])
def test_round_twenty_crashes_without_a_16_bit_dtype_stay_unrecognised(paste: str) -> None:
    assert cw.explain(paste) is None


@pytest.mark.parametrize(("paste", "kind", "dtypes"), [
    ("#> Error in (function (self, mat1, mat2, beta, alpha) : expected scalar type Float but found Half",
     Kind.SCALAR_TYPE, {"f32", "f16"}),
    ("`object` threw an unexpected error.\nMessage: \"LayerNormKernelImpl\" not implemented for 'Half'",
     Kind.NO_KERNEL, {"f16"}),
    ("RuntimeError: FWD: Unsupported hidden_size or types: 5120BFloat16FloatFloatFloatFloat", Kind.NORM_PARAM,
     {"bf16", "f32"}),
    ("RuntimeError: gather(): Expected dtype int64 for index, but got torch.float64", Kind.INDEX_TENSOR,
     {"int64", "f64"}),
    ("the align_module's weight is fp32, but the student's outputs are fp16, it will crash", Kind.SCALAR_TYPE,
     {"f32", "f16"}),
    ("float16 cumsum on the GPU is 11x less accurate", Kind.NONFINITE, {"f16"}),
    ("with model.half() the model's output is empty", Kind.NONFINITE, {"f16"}),
    ("Accuracy metric for preds at half precision is zero", Kind.NONFINITE, {"f16"}),
])
def test_round_twenty_one_wordings(paste: str, kind: Kind, dtypes: set[str]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and dtypes <= set(explanation.dtypes)


def test_an_r_paste_with_two_errors_of_two_kinds_is_answered_for_the_earliest_with_low_confidence() -> None:
    paste = ("`object` threw an unexpected error.\nMessage: \"LayerNormKernelImpl\" not implemented for 'Half'\n"
             "#> Error in (function (self, mat1, mat2, beta, alpha) : expected scalar type Float but found Half")
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.NO_KERNEL and explanation.confidence is Confidence.LOW


def test_a_fused_norm_with_one_dtype_throughout_is_refused_for_its_hidden_size_not_a_dtype() -> None:
    explanation = cw.explain("RuntimeError: FWD: Unsupported hidden_size or types: 5120BFloat16BFloat16BFloat16"
                             "BFloat16Float")
    assert explanation.kind is Kind.NO_KERNEL and explanation.confidence is Confidence.LOW
    assert "hidden size 5120" in explanation.cause and "nn.LayerNorm" in explanation.fix


def test_a_bf16_refusal_says_an_ampere_gpu_has_bf16_and_the_check_may_be_wrong() -> None:
    explanation = cw.explain("ValueError: Your setup doesn't support bf16/gpu. You need torch>=1.10, using Ampere "
                             "GPU with cuda>=11.0")
    assert "judged to lack" in explanation.cause and "is_bf16_supported()" in explanation.fix
    assert "update" in explanation.fix


@pytest.mark.parametrize(("paste", "named"), [
    ("fp16 training: loss is nan after 100 steps\nepsilon = 1e-8", True),
    ("bf16 training: loss is nan after 100 steps\nepsilon = 1e-8", False),
    ("fp16 training: loss is nan after 100 steps\nepsilon = 1e-4", False),
])
def test_a_nan_in_fp16_names_an_epsilon_too_small_for_fp16(paste: str, named: bool) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.NONFINITE and ("rounds to 0 in fp16" in explanation.cause) is named


@pytest.mark.parametrize("paste", [
    "Error in read.csv(file) : cannot open the connection",
    "the new release is less accurate on my benchmark",
    "the output is empty when the prompt is too long",
    "the weights are fp32, but the optimizer is AdamW",
])
def test_round_twenty_one_messages_without_a_16_bit_failure_stay_unrecognised(paste: str) -> None:
    assert cw.explain(paste) is None


@pytest.mark.parametrize(("paste", "kind", "dtypes"), [
    ("AMP checks failed ❌, disabling Automatic Mixed Precision.", Kind.NONFINITE, set()),
    ("AssertionError: the min value is -9223372036854775808", Kind.NONFINITE, set()),
    ("this causes the \"index put requires the source and destination dtypes match\" error", Kind.INDEXED_WRITE,
     set()),
    ("encoder = encoder.cuda().half()\nRuntimeError: data() cast to unexpected type.", Kind.NO_KERNEL, {"f16"}),
    ("with apex 16-bit training _C.rasterize_meshes expected Float but got Half", Kind.NO_KERNEL, {"f32", "f16"}),
    ("I use apex.amp O1, but the loss does't decrease during training", Kind.NONFINITE, {"f16"}),
    ("with --mixed-precision I don't see any decrease in the WER. It just stays at 100", Kind.NONFINITE, {"f16"}),
    ("推理时使用BF16和FP32结果差异较大", Kind.NONFINITE, {"bf16"}),
    ("FP16 and FP32 predictions are completely different", Kind.NONFINITE, {"f16"}),
    ("with bf16, torch.allclose returns False against fp32", Kind.NONFINITE, {"bf16"}),
])
def test_round_twenty_two_wordings(paste: str, kind: Kind, dtypes: set[str]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and dtypes <= set(explanation.dtypes)


def test_compiled_and_eager_outputs_that_differ_in_bf16_are_told_how_inductor_rounds() -> None:
    explanation = cw.explain("Large numeric divergence for torch.compile vs eager in bf16")
    assert explanation.kind is Kind.NONFINITE and explanation.op == "torch.compile"
    assert "emulate_precision_casts = True" in explanation.fix and "keeps their intermediates in fp32" in (
        explanation.cause)
    eager = cw.explain("Large numeric divergence in bf16 against fp32")
    assert eager.op == "model outputs" and "emulate_precision_casts" not in eager.fix


def test_a_kernel_with_no_16_bit_version_says_update_torch_and_upcast_to_float32() -> None:
    fix = cw.explain("RuntimeError: \"eye\" not implemented for 'BFloat16'").fix
    assert "update torch" in fix and "upcast to float32" in fix


def test_torch_own_ops_expecting_float_are_not_read_as_an_extension_kernel() -> None:
    explanation = cw.explain("torch._C._nn.linear expected Float but got Half")
    assert explanation.kind is Kind.SCALAR_TYPE


@pytest.mark.parametrize("paste", [
    "AMP is enabled and the checks passed",
    "the loss doesn't decrease after epoch 3",
    "x = 9223372036854775808",
    "the outputs are completely different after the refactor",
])
def test_round_twenty_two_messages_without_a_16_bit_failure_stay_unrecognised(paste: str) -> None:
    assert cw.explain(paste) is None


@pytest.mark.parametrize(("paste", "kind", "dtypes"), [
    ("'llvm.fcmp' op operand #0 must be floating point LLVM type or LLVM dialect-compatible vector of floating point "
     "LLVM type, but got 'i16'", Kind.NO_KERNEL, {"bf16"}),
    ("TypeError: Expected input of [torch.float16, torch.float32, torch.float64]. Got torch.bfloat16", Kind.NO_KERNEL,
     {"bf16"}),
    ("RuntimeError: Expected input tensors to have type Half, found type float", Kind.SCALAR_TYPE, {"f16", "f32"}),
    ("Inconsistency in conv_transpose2d for float16 between CPU and CUDA", Kind.NONFINITE, {"f16"}),
    ("Explore grid_sample_2d fp16/bf16 accuracy error", Kind.NONFINITE, {"f16"}),
    ("with BF16, the accuracy is significantly worse than FP32", Kind.NONFINITE, {"bf16"}),
    ("Enable FP16 and set max_length to 2048\nObserve that all loses reported are NaN", Kind.NONFINITE, {"f16"}),
    ("FP16 微调overflow\n换成BF16后梯度为nan", Kind.NONFINITE, set()),
    ("--fp16 --reset-optimizer\nThe result is an overflow gradient.", Kind.LOSS_SCALE, {"f16"}),
])
def test_round_twenty_three_wordings(paste: str, kind: Kind, dtypes: set[str]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and dtypes <= set(explanation.dtypes)


def test_a_dtype_check_that_lists_the_dtype_it_got_is_not_read_as_leaving_it_off_its_list() -> None:
    explanation = cw.explain("TypeError: Expected input of [torch.float16, torch.bfloat16]. Got torch.bfloat16")
    assert explanation.kind is not Kind.NO_KERNEL and explanation.confidence is Confidence.LOW


@pytest.mark.parametrize("paste", [
    "'llvm.fcmp' op operand #0 must be floating point LLVM type, but got 'f32'",
    "the loses of the team were heavy",
    "accuracy errors in the docs",
])
def test_round_twenty_three_messages_without_a_16_bit_failure_stay_unrecognised(paste: str) -> None:
    assert cw.explain(paste) is None


@pytest.mark.parametrize(("paste", "kind", "dtypes"), [
    ("RuntimeError: No available kernel. Aborting execution.", Kind.NO_KERNEL, set()),
    ("UserWarning: ComplexHalf support is experimental and many operators don't support it yet.", Kind.NO_KERNEL,
     {"complex32"}),
    ("NotImplementedError: Could not run 'aten::add_.Tensor' with arguments from the 'QuantizedCPU' backend.",
     Kind.NO_KERNEL, {"int8"}),
    ("RuntimeError: Could not run 'aten::thnn_conv2d_forward' with arguments from the 'QuantizedCPUTensorId' backend.",
     Kind.NO_KERNEL, {"int8"}),
    ("onnxruntime: LSTM operator does not support double yet", Kind.NO_KERNEL, {"f64"}),
    ("triton.compiler.errors.CompilationError: type fp8e4nv not supported in this architecture", Kind.NO_KERNEL,
     {"float8_e4m3fn"}),
    ("with --fp16 we get **nan** losses", Kind.NONFINITE, {"f16"}),
])
def test_round_twenty_four_wordings(paste: str, kind: Kind, dtypes: set[str]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and dtypes <= set(explanation.dtypes)


@pytest.mark.parametrize("paste", [
    "Could not run 'aten::add' with arguments from the 'CUDA' backend.",
    "the Conv operator does not support grouped input yet",
    "**Describe the bug** the app crashes",
])
def test_round_twenty_four_messages_without_a_dtype_failure_stay_unrecognised(paste: str) -> None:
    assert cw.explain(paste) is None


@pytest.mark.parametrize(("paste", "kind", "dtypes"), [
    ("  File \"svox2.py\", line 429, in __init__\n    points = torch.addcmul(\n"
     "RuntimeError: Found dtype Long but expected Float", Kind.INTEGER_OPERAND, {"int64", "f32"}),
    ("--kv-cache-dtype fp8\nERROR core.py:270] query and key must have the same dtype", Kind.NO_KERNEL,
     {"float8_e4m3fn"}),
    ("ValueError: fp8_e5m2 kv-cache is not supported with fp8 checkpoints.", Kind.NO_KERNEL, {"float8_e5m2"}),
    ("ValueError: torch.bfloat16 is not supported for quantization method awq. Supported dtypes: [torch.float16]",
     Kind.NO_KERNEL, {"bf16"}),
    ("[BUG] Mixed-Precision training using BF16 leads to `float != c10::BFloat16` error", Kind.MATMUL,
     {"f32", "bf16"}),
    ("bf16 in the title\nRuntimeError: f must be float32", Kind.NO_KERNEL, {"f32", "bf16"}),
    ("Zero3 with bf16 yields much higher losses than Zero2", Kind.NONFINITE, {"bf16"}),
])
def test_round_twenty_five_wordings(paste: str, kind: Kind, dtypes: set[str]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and dtypes <= set(explanation.dtypes)


def test_a_loss_target_refusal_stays_a_target_when_a_loss_is_in_the_frames() -> None:
    paste = ("  File \"train.py\", line 3, in step\n    loss = criterion(out, y)\n"
             "RuntimeError: Found dtype Long but expected Float")
    assert cw.explain(paste).kind is Kind.TARGET


def test_query_and_key_of_two_dtypes_without_an_fp8_cache_is_an_attention_mismatch() -> None:
    assert cw.explain("RuntimeError: query and key must have the same dtype").kind is Kind.SDPA


@pytest.mark.parametrize("paste", [
    "assert x != y", "float != float", "the weight must be float32 for export",
])
def test_round_twenty_five_messages_without_a_dtype_failure_stay_unrecognised(paste: str) -> None:
    assert cw.explain(paste) is None


@pytest.mark.parametrize(("paste", "device_words"), [
    ("RuntimeError: The GPU device does not support Double (Float64) operations!", "DirectML"),
    ("RuntimeError: FP64 data type is unsupported on current platform.", "Intel GPU"),
    ("RuntimeError: Required aspect fp64 is not supported on the device", "Intel GPU"),
])
def test_a_device_without_float64_is_told_as_that_device_not_as_metal(paste: str, device_words: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("f64",)
    assert device_words in explanation.cause and "Metal" not in explanation.cause


def test_an_older_safetensors_reading_fp8_is_told_to_update() -> None:
    explanation = cw.explain("safetensors_rust.SafetensorError: Dtype not understood: F8_E4M3")
    assert explanation.kind is Kind.NO_KERNEL and "update safetensors" in explanation.fix


@pytest.mark.parametrize(("paste", "kind", "dtypes"), [
    ("  File \"train.py\", line 9, in step\n    loss = loss_fn(pred.long(), y_batch)\n"
     "RuntimeError: \"log_softmax_lastdim_kernel_impl\" not implemented for 'Long'", Kind.INTEGER_OPERAND, {"int64"}),
    ("NotImplementedError: \"upsample_bicubic2d_xpu\" not implemented for 'Byte'", Kind.NO_KERNEL, {"uint8"}),
    ("TypeError: FP16_Optimizer is not an Optimizer", Kind.LOSS_SCALE, {"f16"}),
])
def test_round_twenty_seven_wordings(paste: str, kind: Kind, dtypes: set[str]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and dtypes <= set(explanation.dtypes)


def test_a_kernel_whose_name_holds_eig_in_another_word_is_not_called_linear_algebra() -> None:
    cause = cw.explain("RuntimeError: \"_embedding_bag_per_sample_weights_backward_cuda\" not implemented for "
                       "'BFloat16'").cause
    assert "linear algebra" not in cause
    assert "linear algebra" in cw.explain("RuntimeError: \"linalg_eigh_cpu\" not implemented for 'Half'").cause


def _xformers_refusal(dtype: str, *reasons: str) -> str:
    """xformers' refusal as it prints it: the inputs, then each operator with the reasons it declined them."""
    listed = "".join(f"`{operator}` is not supported because:\n    {reason}\n" for operator, reason in reasons)
    return ("NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:\n"
            f"     query       : shape=(2, 64, 8, 40) ({dtype})\n     key         : shape=(2, 64, 8, 40) ({dtype})\n"
            "     attn_bias   : <class 'NoneType'>\n" + listed)


@pytest.mark.parametrize(("paste", "dtypes", "cause_words", "fix_words"), [
    (_xformers_refusal("torch.float16", ("cutlassF", "xFormers wasn't build with CUDA support"),
                       ("smallkF", "dtype=torch.float16 (supported: {torch.float32})")),
     ("f16",), "no CUDA kernels", "reinstall xformers"),
    (_xformers_refusal("torch.float32", ("fa2F", "dtype=torch.float32 (supported: {torch.float16, torch.bfloat16})"),
                       ("cutlassF", "unsupported embed per head: 40")),
     ("f32",), "float32 inputs", "autocast"),
    (_xformers_refusal("torch.float16", ("fa2F", "attn_bias type is <class 'torch.Tensor'>"),
                       ("cutlassF", "attn_bias.stride(-2) % 8 != 0")),
     ("f16",), "not for the dtype alone", "multiple of 8"),
])
def test_xformers_refusal_is_read_with_the_reasons_its_operators_list(
        paste: str, dtypes: tuple[str, ...], cause_words: str, fix_words: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == dtypes
    assert cause_words in explanation.cause and fix_words in explanation.fix
    assert "scaled_dot_product_attention" in explanation.fix


def test_xformers_refusing_bf16_below_ampere_is_left_to_the_compute_capability_answer() -> None:
    explanation = cw.explain(_xformers_refusal("torch.bfloat16", ("fa2F", "bf16 is only supported on A100+ GPUs")))
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("bf16",)
    assert "Ampere" in explanation.cause and "float16" in explanation.fix


def test_xformers_build_without_cuda_is_read_where_the_refusal_s_first_line_was_cut() -> None:
    explanation = cw.explain("...\np : 0.0\nflshattF is not supported because:\nxFormers wasn't build with CUDA support\n"
                             "dtype=torch.float32 (supported: {torch.float16, torch.bfloat16})")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("f32",)
    assert "reinstall xformers" in explanation.fix


@pytest.mark.parametrize(("paste", "kind", "dtypes", "fix_words"), [
    ("RuntimeError: No precision set", Kind.NO_KERNEL, (), "update Lightning"),
    ("NotImplementedError: Only fp16 and bf16 are supported", Kind.NO_KERNEL, (), "torch_dtype=torch.bfloat16"),
    ("[Bug] OP Kernel Not Found Error\nthe model runs in FP32 but fails when loaded in BF16", Kind.NO_KERNEL,
     ("bf16",), ""),
    ("Batched NMS keeps overlapping boxes once the detector runs in fp16", Kind.VALUE_OVERFLOW, ("f16",),
     "boxes.float()"),
])
def test_round_twenty_seven_third_set_wordings(paste: str, kind: Kind, dtypes: tuple[str, ...], fix_words: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and explanation.dtypes == dtypes and fix_words in explanation.fix


@pytest.mark.parametrize("paste", [
    "[Bug] OP Kernel Not Found Error when the plugin loads",
    "NMS returns the same boxes on every run",
])
def test_round_twenty_seven_third_set_texts_without_a_16_bit_failure_stay_unrecognised(paste: str) -> None:
    assert cw.explain(paste) is None


def test_nms_said_in_fp16_beside_a_raised_error_is_not_read_as_the_overflow() -> None:
    explanation = cw.explain("ValueError: batched_nms got fp16 boxes of the wrong shape")
    assert explanation is None or explanation.kind is not Kind.VALUE_OVERFLOW


@pytest.mark.parametrize(("where", "code"), [
    ("boxes.py\", line 41, in nms", "return torch.ops.torchvision.nms(boxes, scores, iou_threshold)"),
    ("roi_align.py\", line 60, in roi_align", "return torch.ops.torchvision.roi_align(input, rois, scale)"),
])
def test_torchvision_s_nms_wanting_integers_is_a_torchvision_build_that_does_not_match_torch(where: str,
                                                                                               code: str) -> None:
    explanation = cw.explain(f"Traceback (most recent call last):\n  File \"/site-packages/torchvision/ops/{where}\n"
                             f"    {code}\nRuntimeError: expected scalar type Long but found Float")
    assert explanation.kind is Kind.INDEX_TENSOR
    assert ("torchvision release made for the installed torch" in explanation.fix) is ("nms" in code)


@pytest.mark.parametrize(("paste", "kind", "dtypes", "words"), [
    ("RuntimeError: Promotion for Float8 Types is not supported", Kind.FP8_PROMOTION, (), "stops before naming"),
    ("AttributeError: 'module' object has no attribute 'HalfTensor'", Kind.NO_KERNEL, ("f16",), "predates"),
    ("AttributeError: module 'torch' has no attribute 'BFloat16Tensor'", Kind.NO_KERNEL, ("bf16",), "predates"),
    ("fp8 rowwise matmul fails\nRuntimeError: cutlass cannot initialize", Kind.NO_KERNEL, (), "GPU architecture"),
    ("Float16 prediction fails on an Intel Mac\nNSLocalizedDescription = \"Error computing NN outputs.\"",
     Kind.NO_KERNEL, ("f16",), "Core ML's runtime"),
])
def test_errors_left_from_earlier_rounds_read_into_their_families(paste: str, kind: Kind, dtypes: tuple[str, ...],
                                                                   words: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and explanation.dtypes == dtypes and words in explanation.cause


def test_core_ml_failing_with_no_16_bit_dtype_said_stays_unrecognised() -> None:
    assert cw.explain("NSLocalizedDescription = \"Error computing NN outputs.\"") is None


@pytest.mark.parametrize("paste", [
    "Cumsum on float16 gives wrong values",
    "With half precision my matmuls do not return the correct answer; float32 is fine",
    "Huge numerical precision error when a model runs in bfloat16",
])
def test_wrong_values_said_of_16_bit_math_read_as_drift(paste: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.NONFINITE and explanation.confidence is Confidence.LOW


def test_wrong_values_said_with_no_16_bit_dtype_stay_unrecognised() -> None:
    assert cw.explain("My parser gives wrong values for dates") is None


@pytest.mark.parametrize(("paste", "kind", "dtypes", "fix_words"), [
    ("RuntimeError: Expected object of scalar type Byte but got scalar type Bool for argument #2 'other' in call to "
     "_th_or", Kind.MASK, ("uint8", "bool"), "mask.bool()"),
    ("ERROR:eval:Error while evaluating a task: self and mat2 must have the same dtype,\n but got BFloat16 and Float",
     Kind.MATMUL, ("bf16", "f32"), ""),
    ("  File \"flash_attn_interface.py\", line 40, in forward\n    assert qkv.dtype in [torch.float16, torch.bfloat16]\n"
     "The dtype of qkv is torch.float32 here", Kind.NO_KERNEL, ("f32",), "torch_dtype=torch.bfloat16"),
    ("Please correct the following DeepSpeed config values that mismatch TrainingArguments values:\n"
     "- ds bf16.enabled=True vs hf bf16|bf16_full_eval=False", Kind.NO_KERNEL, ("bf16",), "--bf16"),
    ("fp16_run=True\nAfter resuming, the loss and grad norm become very large", Kind.NONFINITE, ("f16",),
     "dynamic loss scaling"),
])
def test_round_twenty_eight_wordings(paste: str, kind: Kind, dtypes: tuple[str, ...], fix_words: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and explanation.dtypes == dtypes and fix_words in explanation.fix


@pytest.mark.parametrize("paste", [
    "After resuming, the loss and grad norm become very large",
    "assert x.dtype in [torch.float32, torch.float64]",
])
def test_round_twenty_eight_texts_without_a_16_bit_failure_stay_unrecognised(paste: str) -> None:
    assert cw.explain(paste) is None


def test_a_title_that_cuts_the_error_short_is_the_same_error_not_another_kind() -> None:
    message = ("RuntimeError: Expected tensor for argument #1 'input' to have the same type as tensor for argument #2 "
               "'weight'; but type torch.cuda.FloatTensor does not equal torch.cuda.HalfTensor")
    explanation = cw.explain(f"{message} (while checking arg\n\n{message} (while checking arguments for "
                             "cudnn_batch_norm)")
    assert explanation.kind is Kind.NORM_PARAM and explanation.confidence is Confidence.HIGH


def test_a_terminal_wrap_is_joined_only_after_a_comma() -> None:
    explanation = cw.explain("self and mat2 must have the same dtype\n but got BFloat16 and Float")
    assert explanation.kind is Kind.MATMUL and explanation.dtypes == ()


def test_a_kernel_name_missing_half_without_quotes_is_read_with_its_device() -> None:
    explanation = cw.explain("Please open an issue for the `baddbmm_with_gemm not implemented for Half` failure")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("f16",)
    assert explanation.op == "baddbmm_with_gemm" and explanation.device == "cpu"


def test_prose_saying_not_implemented_for_half_is_not_read_as_a_kernel_name() -> None:
    explanation = cw.explain("it is not implemented for half precision")
    assert explanation.op is None and explanation.confidence is Confidence.LOW


@pytest.mark.parametrize(("paste", "kind", "dtypes"), [
    ("AssertionError: Type mismatch input: torch.cuda.FloatTensor != kernel: torch.cuda.HalfTensor", Kind.CONV_WEIGHT,
     ("f32", "f16")),
    ("training in fp16\nRuntimeError: src/convolution_gpu.cu:69, assertion (in_feat.scalar_type() == "
     "kernel.scalar_type()) failed. type mismatch", Kind.CONV_WEIGHT, ("f16",)),
    ("Using fp16 mixed precision\nConvTunerSimple_tune_and_cache.cc -> can't find suitable algorithm for 0",
     Kind.CONV_WEIGHT, ("f16",)),
    ("sddmm.cuh(113): error: more than one conversion function from \"const half\" to a built-in type applies:",
     Kind.NO_KERNEL, ("f16",)),
])
def test_round_twenty_nine_wordings(paste: str, kind: Kind, dtypes: tuple[str, ...]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and explanation.dtypes == dtypes


def test_spconv_finding_no_algorithm_with_no_16_bit_dtype_said_stays_unrecognised() -> None:
    assert cw.explain("ConvTunerSimple_tune_and_cache.cc -> can't find suitable algorithm for 0") is None


def test_complex_half_without_a_kernel_is_a_missing_kernel_not_an_integer() -> None:
    explanation = cw.explain("RuntimeError: \"sigmoid_xpu\" not implemented for 'ComplexHalf'")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("complex32",)


def test_a_cpu_kernel_named_kernel_impl_is_told_as_the_cpu() -> None:
    explanation = cw.explain("RuntimeError: \"log_softmax_lastdim_kernel_impl\" not implemented for 'Half'")
    assert explanation.device == "cpu" and "bfloat16" in explanation.fix


@pytest.mark.parametrize(("paste", "recognised"), [
    ("bf16 all_reduce with the gloo backend fails\nRuntimeError: Invalid scalar type", True),
    ("RuntimeError: Invalid scalar type", False),
])
def test_gloo_refusing_a_dtype_is_read_only_where_gloo_is_named(paste: str, recognised: bool) -> None:
    explanation = cw.explain(paste)
    assert (explanation is not None and explanation.kind is Kind.NO_KERNEL and "gloo" in explanation.cause) is recognised


@pytest.mark.parametrize(("paste", "dtype"), [
    ("Answer repetition with FP8 models\nGenerated text: '!!!!!!!!!!!!!!!!!!!!'", "float8_e4m3fn"),
    ("Bug: FP8 forward, then Nan appears in the backward", "float8_e4m3fn"),
    ("float8_e5m2 training: NaN appears after 100 steps", "float8_e5m2"),
])
def test_fp8_said_beside_a_non_finite_symptom_is_named(paste: str, dtype: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.NONFINITE and explanation.dtypes == (dtype,)


def test_half_in_prose_still_names_no_dtype_beside_fp8_words() -> None:
    explanation = cw.explain("half of the outputs are '!!!!!!!!' in generated text")
    assert explanation.kind is Kind.NONFINITE and explanation.dtypes == ()


@pytest.mark.parametrize(("paste", "kind", "dtypes"), [
    ("CompilationError: AssertionError('Block element type(bf16) and value element type(fp32) mismatch')",
     Kind.NO_KERNEL, ("bf16", "f32")),
    ("### Exception: Dtypes torch.float16 and torch.float32 are not equal!", Kind.SCALAR_TYPE, ("f16", "f32")),
    ("CheckpointError with checkpoint(..., use_reentrant=False) & autocast()\ntorch.utils.checkpoint.CheckpointError: "
     "torch.utils.checkpoint: Recomputed values for the following tensors have different metadata than during the "
     "forward pass.", Kind.SCALAR_TYPE, ()),
    ("Exceptions.DeviceCannotSupportHalfPrecisionException: 'Device cannot support half precision.'", Kind.NO_KERNEL,
     ("f16",)),
    ("load_trt=True + fp16=True produces non-finite (NaN) audio", Kind.NONFINITE, ("f16",)),
    ("A model with PyTorch AMP produces different results when used with CUDA graphs.", Kind.NONFINITE, ("f16",)),
    ("jit.script give uncertain results using torch.half", Kind.NONFINITE, ("f16",)),
    ("[bf16] Gradient mismatch between Eager mode and torch.compile", Kind.NONFINITE, ("bf16",)),
    ("微调阶段，fp16训练loss值为0，fp32训练loss正常", Kind.NONFINITE, ("f16",)),
    ("loss全为0\n\n--stage sft \\\n    --finetuning_type lora \\\n    --fp16", Kind.NONFINITE, ("f16",)),
    ("with bf16 the training loss is 0.0 from the first step", Kind.NONFINITE, ("bf16",)),
    ("SwinIR fp16 mode output black pics", Kind.NONFINITE, ("f16",)),
    ("fp16 推理出来时黑图", Kind.NONFINITE, ("f16",)),
    ("when dtype='bfloat16', batch_size will cause different inference results", Kind.NONFINITE, ("bf16",)),
    ("ValueError: `.float()` is not supported for quantized model.", Kind.NO_KERNEL, ()),
])
def test_round_thirty_wordings(paste: str, kind: Kind, dtypes: tuple[str, ...]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and explanation.dtypes == dtypes


@pytest.mark.parametrize("paste", [
    "CompilationError: AssertionError('Block element type(fp32) and value element type(fp32) mismatch')",
    "AssertionError: Shapes torch.Size([2]) and torch.Size([3]) are not equal!",
    "torch.utils.checkpoint.CheckpointError: torch.utils.checkpoint: Recomputed values for the following tensors have "
    "different metadata than during the forward pass.",
    "the model produces different results when run twice",
    "the loss is 0",
    "with fp16 the loss becomes 0.345",
])
def test_round_thirty_wordings_need_what_makes_them_dtype_errors(paste: str) -> None:
    assert cw.explain(paste) is None


def test_non_finite_said_is_told_as_nan_or_inf() -> None:
    explanation = cw.explain("fp16 produces non-finite outputs")
    assert explanation.kind is Kind.NONFINITE and explanation.cause.startswith("NaN or inf values appeared")


def test_a_vae_called_in_the_paste_is_told_to_take_latents_in_its_own_dtype() -> None:
    paste = ("RuntimeError:\nInput type (struct c10::BFloat16) and bias type (struct c10::Half) should be the same\n"
             "image = self.vae.decode(latents, return_dict=False)[0]")
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.CONV_BIAS and explanation.dtypes == ("bf16", "f16")
    assert "VAE" in explanation.cause and "latents.to(vae.dtype)" in explanation.fix
    plain = cw.explain(paste.splitlines()[1])
    assert plain.kind is Kind.CONV_BIAS and "VAE" not in plain.cause


@pytest.mark.parametrize(("paste", "kind", "dtypes"), [
    ("ValueError: Input tensors must be in dtype of torch.float16 or torch.bfloat16", Kind.NO_KERNEL, ()),
    ("- Exception Message: Input type float32 is not supported", Kind.INTEGER_OPERAND, ("f32",)),
    ("RuntimeError: image must have dtype torch.uint8\nthe loaded videos are `float32` already", Kind.INTEGER_OPERAND,
     ("uint8", "f32")),
    ("img = cv2.resize(img, size)\nTypeError: Expected Ptr<cv::UMat> for argument 'src'\nthe model runs in float16",
     Kind.NUMPY_DTYPE, ("f16",)),
    ("my GPUs do not support BF16 data type, so I met the dtype error", Kind.NO_KERNEL, ("bf16",)),
    ("I get an overflow error, and the loss scale tries to adjust", Kind.LOSS_SCALE, ("f16",)),
    ("expect scalar Float type but input BFloat16", Kind.SCALAR_TYPE, ("f32", "bf16")),
    ('exllamav2_ext/cuda/h_gemm.cu(29): error: identifier "__hfma2" is undefined', Kind.NO_KERNEL, ("f16",)),
    ("expect scalar type half but fund float", Kind.SCALAR_TYPE, ("f16", "f32")),
    ("With `precision: 16-mixed`, some task metrics are `NaN`: an fp16 overflow appears to happen", Kind.NONFINITE,
     ("f16",)),
])
def test_rounds_thirty_one_and_thirty_two_wordings(paste: str, kind: Kind, dtypes: tuple[str, ...]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and explanation.dtypes == dtypes


@pytest.mark.parametrize("paste", [
    "TypeError: Expected Ptr<cv::UMat> for argument 'src'",
    "TypeError: Input type uint8 is not supported",
    "Input tensors must be in dtype of torch.float32",
    "the frame must have dtype torch.float32",
    'error: identifier "cudaMallocAsync" is undefined',
])
def test_rounds_thirty_one_and_thirty_two_wordings_need_what_makes_them_dtype_errors(paste: str) -> None:
    assert cw.explain(paste) is None


def test_sixteen_bit_only_kernel_is_named_sage_attention_when_the_paste_calls_it() -> None:
    message = "ValueError: Input tensors must be in dtype of torch.float16 or torch.bfloat16"
    assert cw.explain(f"x = sageattn(q, k, v, tensor_layout='HND')\n{message}").op == "SageAttention"
    assert cw.explain(message).op == "this kernel"


_EXTENSION_FRAME = ('  File "/site-packages/depthwise_conv3d.py", line 46, in backward\n'
                    "    grad_input, grad_weight, grad_bias = DWCONV_CUDA.conv_depthwise3d_backward_cuda(\n")


def test_an_extension_expecting_a_16_bit_dtype_was_handed_two_dtypes() -> None:
    explanation = cw.explain(f"{_EXTENSION_FRAME}RuntimeError: expected scalar type Half but found Float")
    assert explanation.kind is Kind.SCALAR_TYPE and explanation.dtypes == ("f16", "f32")
    assert "two dtypes" in explanation.cause and "cast_inputs=torch.float32" in explanation.fix


def test_an_extension_expecting_fp32_lacks_the_16_bit_kernel() -> None:
    explanation = cw.explain(f"{_EXTENSION_FRAME}RuntimeError: expected scalar type Float but found BFloat16")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("f32", "bf16")
    assert "has no bf16 version" in explanation.cause


def test_any_fp16_op_missing_on_the_cpu_is_told_to_run_on_the_gpu_or_in_bf16() -> None:
    explanation = cw.explain("RuntimeError: _th_index_select is not implemented for type torch.HalfTensor")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("f16",)
    assert "on the CPU" in explanation.cause and "model.cuda()" in explanation.fix
    assert "torch.bfloat16" in explanation.fix


@pytest.mark.parametrize(("paste", "kind", "dtypes"), [
    ("RuntimeError: masked_select: expected BoolTensor for mask", Kind.MASK, ()),
    ("AssertionError: only bool and floating types of key_padding_mask are supported", Kind.MASK, ()),
    ("RuntimeError: Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert "
     "a mask, use the `~` or `logical_not()` operator instead.", Kind.MASK, ("bool",)),
    ('  File "/site-packages/torch/nn/functional.py", line 3800, in l1_loss\nRuntimeError: Subtraction, the `-` '
     "operator, with a bool tensor is not supported.", Kind.TARGET, ("bool",)),
    ("TypeError: ~ (operator.invert) is only implemented on integer and Boolean-type tensors", Kind.MASK, ()),
    ("RuntimeError: elements in indices should be type int64 but got: Int", Kind.INDEX_TENSOR, ("int32",)),
    ("NotImplementedError: \"bincount_cpu\" not implemented for 'Float'", Kind.INDEX_TENSOR, ("int64", "f32")),
    ("NotImplementedError: Could not run 'quantized::linear' with arguments from the 'CPU' backend.", Kind.NO_KERNEL,
     ()),
    ("RuntimeError: mat1 and mat2 must have the same dtype, but got QUInt8 and Float", Kind.MATMUL, ("quint8", "f32")),
    ("RuntimeError: Expected both inputs to be Half, Float or Double tensors but got BFloat16 and BFloat16",
     Kind.NO_KERNEL, ("bf16",)),
    ("RuntimeError: Expected both inputs to be Half, Float or Double tensors but got Float and Double", Kind.OP_DTYPE,
     ("f32", "f64")),
    ("TypeError: can't convert np.ndarray of type numpy.object_. The only supported types are: float64, float32",
     Kind.NUMPY_DTYPE, ()),
    ("NotImplementedError: Cannot copy out of meta tensor; no data!", Kind.DEVICE_MISMATCH, ()),
    ("RuntimeError: The total norm of order 2.0 for gradients from `parameters` is non-finite, so it cannot be "
     "clipped.", Kind.NONFINITE, ()),
    ("ValueError: Expected parameter logits (Tensor of shape (2, 3)) of distribution Categorical(logits: "
     "torch.Size([2, 3])) to satisfy the constraint IndependentConstraint(Real(), 1), but found invalid values:\n"
     "tensor([[nan, nan, 1.]], dtype=torch.float16)", Kind.NONFINITE, ("f16",)),
    ("RuntimeError: index_copy_(): Expected a long tensor for index, but got Int", Kind.INDEX_TENSOR, ("int32",)),
    ("NotImplementedError: \"rshift_cpu\" not implemented for 'Half'", Kind.NO_KERNEL, ("f16",)),
    ("RuntimeError: All tensors must have the same dtype, got input1: c10::BFloat16, input2: float, weight: "
     "c10::BFloat16, bias: c10::BFloat16", Kind.OP_DTYPE, ("bf16", "f32")),
    ("RuntimeError: Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
     "`logical_xor()` operator instead.", Kind.MASK, ("bool",)),
    ("RuntimeError: stft(torch.ShortTensor[1856], n_fft=256, hop_length=128) : expected a tensor of floating point "
     "or complex values", Kind.INTEGER_OPERAND, ("int16",)),
    ("RuntimeError: This function doesn't handle types other than float and double", Kind.NO_KERNEL, ()),
    ("RuntimeError: hook '<lambda>' has changed the type of value (was torch.FloatTensor got CPUBFloat16Type)",
     Kind.LOSS_DTYPE, ("f32", "bf16")),
    ("AssertionError: No inf checks were recorded prior to update.", Kind.LOSS_SCALE, ()),
    ("ValueError: Expected primal to be floating point or complex, but got: torch.uint8", Kind.INTEGER_OPERAND,
     ("uint8",)),
    ("ValueError: Registering a parametrization may not change the dtype of the tensor, unless `unsafe` flag is "
     "enabled.\nunparametrized dtype: torch.bfloat16\nparametrized dtype: torch.float32", Kind.OP_DTYPE,
     ("bf16", "f32")),
    ("OpCheckError: opcheck(op, ...): test_faketensor failed with When comparing the output of mylib.scale.default "
     "on FakeTensor and concrete Tensors, found mismatched tensor metadata: Dtypes torch.float32 and torch.bfloat16 "
     "are not equal!", Kind.OP_DTYPE, ("f32", "bf16")),
    ("TypeError: nn.Module.to only accepts floating point or complex dtypes, but got desired dtype=torch.int8",
     Kind.INTEGER_OPERAND, ("int8",)),
    ("RuntimeError: expected dtype float for `end` but got dtype long int", Kind.LERP, ("f32", "int64")),
    ("RuntimeError: torch.histc: range of [-27, inf] is not finite", Kind.NONFINITE, ()),
    ("RuntimeError: to - 1 is out of bounds for short int", Kind.VALUE_OVERFLOW, ("int16",)),
    ("RuntimeError: Expected b and A to have the same dtype, but found b of type Float and A of type Double instead.",
     Kind.OP_DTYPE, ("f32", "f64")),
    ('  File "/site-packages/torch/functional.py", line 1505, in cdist\n    return _VF.cdist(x1, x2, p, None)\n'
     "RuntimeError: expected scalar type Float but found BFloat16", Kind.OP_DTYPE, ("f32", "bf16")),
    ("RuntimeError: take(): Expected a long tensor for index, but got Int", Kind.INDEX_TENSOR, ("int32",)),
    ("RuntimeError: step() has already been called since the last update().", Kind.LOSS_SCALE, ("f16",)),
    ("RuntimeError: invalid multinomial distribution (encountering probability entry = infinity or NaN)",
     Kind.NONFINITE, ()),
    ("    scores = torch.bmm(q.float(), k.transpose(1, 2))\nRuntimeError: expected m1 and m2 to have the same dtype, "
     "but got: float != c10::BFloat16", Kind.BATCHED_MATMUL, ("f32", "bf16")),
    ("RuntimeError: index_reduce_(): self (BFloat16) and source (Float) must have the same scalar type",
     Kind.INDEXED_WRITE, ("bf16", "f32")),
    ("RuntimeError: step() was already called on this optimizer since the last update()", Kind.LOSS_SCALE, ("f16",)),
    ("RuntimeError: normal expects all elements of std >= 0.0", Kind.NONFINITE, ()),
])
def test_held_out_live_wordings(paste: str, kind: Kind, dtypes: tuple[str, ...]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and explanation.dtypes == dtypes


@pytest.mark.parametrize("paste", [
    "ValueError: Expected parameter scale (Tensor of shape (2,)) of distribution Normal(loc: torch.Size([2]), scale: "
    "torch.Size([2])) to satisfy the constraint GreaterThan(lower_bound=0.0), but found invalid values:\n"
    "tensor([-1.,  2.])",
    "AssertionError: only bool and floating types of masks are supported",
    "RuntimeError: torch.histc: range of [-27, 3] is not finite",
])
def test_held_out_live_wordings_need_what_makes_them_dtype_errors(paste: str) -> None:
    assert cw.explain(paste) is None


def test_a_padding_mask_from_a_tokenizer_is_told_to_be_inverted() -> None:
    explanation = cw.explain("AssertionError: only bool and floating types of key_padding_mask are supported")
    assert "key_padding_mask=(attention_mask == 0)" in explanation.fix


def test_a_quantized_tensor_in_a_float_linear_is_told_to_dequantize() -> None:
    explanation = cw.explain("RuntimeError: mat1 and mat2 must have the same dtype, but got QUInt8 and Float")
    assert "dequantize" in explanation.fix and "quantized" in explanation.cause


def test_a_bit_shift_on_a_16_bit_tensor_is_packed_data_converted_to_floats() -> None:
    explanation = cw.explain("NotImplementedError: \"rshift_cpu\" not implemented for 'Half'")
    assert "converted to floats" in explanation.cause and "is_floating_point()" in explanation.fix
    assert "GPU" not in explanation.fix


def test_a_low_rank_svd_of_a_16_bit_weight_is_told_to_run_in_float32() -> None:
    paste = ('  File "/site-packages/torch/_lowrank.py", line 160, in svd_lowrank\n'
             '  File "/site-packages/torch/_linalg_utils.py", line 16, in matmul\n'
             "RuntimeError: expected m1 and m2 to have the same dtype, but got: c10::BFloat16 != float")
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.MATMUL and "w.float()" in explanation.fix


_TRACED = (
    "Traceback (most recent call last):\n"
    '  File "serve.py", line 12, in <module>\n'
    "    out = traced(x)\n"
    "RuntimeError: The following operation failed in the TorchScript interpreter.\n"
    "Traceback of TorchScript (most recent call last):\n"
    "/site-packages/torch/nn/modules/conv.py(560): _conv_forward\n"
    "/site-packages/torch/nn/modules/conv.py(565): forward\n"
    "/site-packages/torch/nn/modules/module.py(1768): _slow_forward\n"
    "serve.py(8): forward\n"
    "/site-packages/torch/jit/_trace.py(1022): trace\n"
    "serve.py(10): <module>\n"
    "RuntimeError: expected scalar type Float but found Half"
)


def test_a_traced_module_s_recorded_frames_name_the_op_and_the_fix_says_to_trace_again() -> None:
    explanation = cw.explain(_TRACED)
    assert explanation.kind is Kind.CONV_WEIGHT and explanation.dtypes == ("f32", "f16")
    assert "trace or freeze it again" in explanation.fix and "register such tensors as buffers" in explanation.fix


def test_the_same_mismatch_outside_torchscript_says_nothing_of_tracing() -> None:
    explanation = cw.explain("  File \"m.py\", line 3, in f\n    return self.proj(x)\n"
                             "RuntimeError: mat1 and mat2 must have the same dtype, but got Float and BFloat16")
    assert explanation.kind is Kind.MATMUL and "trace" not in explanation.fix


def test_frames_a_live_exception_s_message_carries_are_read_as_its_innermost() -> None:
    scripted = torch.jit.trace(nn.Sequential(nn.Conv2d(3, 4, 3)), torch.zeros(1, 3, 8, 8)).double()
    with pytest.raises(RuntimeError) as raised:
        scripted(torch.zeros(1, 3, 8, 8))
    explanation = cw.explain(raised.value)
    assert explanation.kind in (Kind.CONV_WEIGHT, Kind.CONV_BIAS) and "trace" in explanation.fix


@pytest.mark.parametrize(("paste", "kind", "dtypes", "words"), [
    ("RuntimeError: quantize_tensor_per_channel_affine expects a Float Tensor, got BFloat16", Kind.NO_KERNEL,
     ("bf16",), "w.float()"),
    ("RuntimeError: Quantize only works on Float Tensors, got Half", Kind.NO_KERNEL, ("f16",), "fp32"),
    ("RuntimeError: Zero-point must be Int32, Float or Half, found Long", Kind.INTEGER_OPERAND, ("int64",),
     "torch.int32"),
    ('  File "/site-packages/torch/ao/quantization/fake_quantize.py", line 398, in forward\n'
     "    return torch.fused_moving_avg_obs_fake_quant(\n"
     "RuntimeError: expected scalar type Float but found BFloat16", Kind.NO_KERNEL, ("bf16",), "x.float()"),
    ("RuntimeError: Char did not match Float", Kind.INTEGER_OPERAND, ("int8", "f32"), "dequantize()"),
    ("RuntimeError: Half did not match Float", Kind.OP_DTYPE, ("f16", "f32"), "check_dtype=False"),
    ("RuntimeError: Long did not match Int", Kind.INTEGER_OPERAND, ("int64", "int32"), ".to(torch.int64)"),
    ("AssertionError: The values for attribute 'dtype' do not match: torch.int8 != torch.float32.",
     Kind.INTEGER_OPERAND, ("int8", "f32"), ".float()"),
    ("TypeError: can't convert np.ndarray of type numpy.str_. The only supported types are: float64, float32",
     Kind.NUMPY_DTYPE, (), "pd.to_numeric"),
    ("RuntimeError: kl_div: Integral inputs not supported.", Kind.TARGET, (), "target.float()"),
    ("RuntimeError: unscale_() is being called after step().", Kind.LOSS_SCALE, ("f16",), "clip"),
    ("ValueError: Expected value argument (Tensor of shape (2, 2)) to be within the support (Real()) of the "
     "distribution Normal(loc: torch.Size([2]), scale: torch.Size([2])), but found invalid values:\n"
     "tensor([[1., inf],\n        [nan, 2.]], dtype=torch.float16)", Kind.NONFINITE, ("f16",), "log_prob(z.float())"),
])
def test_round_thirty_six_wordings(paste: str, kind: Kind, dtypes: tuple[str, ...], words: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and explanation.dtypes == dtypes and words in explanation.fix


@pytest.mark.parametrize("paste", [
    "ValueError: Password did not match Confirmation",
    "ValueError: Expected value argument (Tensor of shape (2,)) to be within the support (Boolean()) of the "
    "distribution Bernoulli(probs: torch.Size([2])), but found invalid values:\ntensor([0.5000, 1.0000])",
])
def test_round_thirty_six_wordings_need_what_makes_them_dtype_errors(paste: str) -> None:
    assert cw.explain(paste) is None


def test_a_float_mask_used_as_an_index_is_told_to_become_bool_but_embedding_ids_are_not() -> None:
    indexing = cw.explain("IndexError: tensors used as indices must be long, int, byte or bool tensors")
    assert "mask.bool()" in indexing.fix
    with pytest.raises(RuntimeError) as raised:
        nn.Embedding(4, 2)(torch.zeros(3))
    embedding = cw.explain(raised.value)
    assert embedding is not None and "mask.bool()" not in embedding.fix


def test_a_conv_whose_weight_and_bias_both_differ_from_its_input_is_the_whole_layer_when_live() -> None:
    with pytest.raises(RuntimeError) as raised:
        nn.Conv2d(3, 4, 3).double()(torch.zeros(1, 3, 8, 8))
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.CONV_WEIGHT and explanation.dtypes == ("f32", "f64")


def test_a_conv_whose_bias_alone_differs_stays_a_bias_mismatch() -> None:
    conv = nn.Conv2d(3, 4, 3).double()
    conv.bias = nn.Parameter(torch.zeros(4))
    with pytest.raises(RuntimeError) as raised:
        conv(torch.zeros(1, 3, 8, 8, dtype=torch.float64))
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.CONV_BIAS and explanation.dtypes == ("f64", "f32")
    assert explanation.confidence is Confidence.HIGH


def test_a_pasted_bias_message_stays_a_bias_mismatch_that_says_the_weight_may_differ_too() -> None:
    explanation = cw.explain("RuntimeError: Input type (float) and bias type (double) should be the same")
    assert explanation.kind is Kind.CONV_BIAS and "weight may be f64 too" in explanation.cause
    assert explanation.confidence is Confidence.LOW


def test_old_torch_s_bias_message_came_after_the_weight_check_and_stays_sure() -> None:
    explanation = cw.explain("RuntimeError: Input type (torch.cuda.HalfTensor) and bias type (torch.cuda.FloatTensor) "
                             "should be the same")
    assert explanation.kind is Kind.CONV_BIAS and explanation.confidence is Confidence.HIGH
    assert "may be" not in explanation.cause


class _HandWrittenConv(nn.Module):
    """A Keras-style layer holding its own kernel and bias and calling F.conv2d itself."""

    def __init__(self) -> None:
        super().__init__()
        self.kernel = nn.Parameter(torch.zeros(4, 3, 3, 3, dtype=torch.float64))
        self.bias = nn.Parameter(torch.zeros(4, dtype=torch.float64))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.conv2d(x, self.kernel, self.bias)


def test_a_hand_written_conv_whose_kernel_shares_its_bias_s_dtype_is_the_whole_layer_when_live() -> None:
    with pytest.raises(RuntimeError) as raised:
        _HandWrittenConv()(torch.zeros(1, 3, 8, 8))
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.CONV_WEIGHT and explanation.dtypes == ("f32", "f64")


def test_a_float64_input_to_a_conv_under_bf16_autocast_is_the_whole_layer_though_torch_names_the_bias() -> None:
    conv = nn.Conv2d(1, 4, 1)
    with pytest.raises(RuntimeError) as raised, torch.autocast("cpu", dtype=torch.bfloat16):
        conv(torch.zeros(1, 1, 4, 4, dtype=torch.float64))
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.CONV_WEIGHT and explanation.dtypes == ("f64", "bf16")
    assert "neither matches the input" in explanation.cause


def _standardised_conv(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    standardised = weight - weight.mean()
    return torch.nn.functional.conv1d(x, standardised.to(x.dtype), bias)


def test_a_conv_weight_cast_to_the_input_s_dtype_in_the_call_leaves_the_bias_alone_at_fault() -> None:
    with pytest.raises(RuntimeError) as raised:
        _standardised_conv(torch.zeros(1, 2, 8, dtype=torch.bfloat16), torch.ones(3, 2, 3), torch.zeros(3))
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.CONV_BIAS and explanation.dtypes == ("bf16", "f32")
    assert explanation.confidence is Confidence.HIGH


def test_a_float64_batch_into_batch_norm_is_told_as_numpy_data_when_live() -> None:
    with pytest.raises(RuntimeError) as raised:
        nn.BatchNorm1d(3)(torch.zeros(4, 3, dtype=torch.float64))
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.NORM_PARAM and explanation.dtypes == ("f64", "f32")
    assert "x.float()" in explanation.fix


def test_bernoulli_s_probability_check_is_read_as_nan_probabilities() -> None:
    explanation = cw.explain("RuntimeError: Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this "
                             "error message be improved?  If so, please report an enhancement request to PyTorch.)")
    assert explanation.kind is Kind.NONFINITE and explanation.confidence is Confidence.LOW
    assert "clamp_min" in explanation.fix


def _mask_shape_error(index: torch.Tensor) -> IndexError:
    with pytest.raises(IndexError) as raised:
        torch.zeros(256)[index]
    return raised.value


def test_byte_codes_used_as_indices_are_told_to_become_long() -> None:
    codes = torch.arange(64, dtype=torch.uint8)
    explanation = cw.explain(_mask_shape_error(codes))
    assert explanation.kind is Kind.INDEX_TENSOR and "codes.long()" in explanation.fix
    pasted = cw.explain("UserWarning: indexing with dtype torch.uint8 is now deprecated, please use a dtype "
                        "torch.bool instead.\nIndexError: The shape of the mask [64] at index 0 does not match the "
                        "shape of the indexed tensor [256] at index 0")
    assert pasted.kind is Kind.INDEX_TENSOR


def test_a_bool_mask_of_the_wrong_shape_is_a_shape_bug_not_a_dtype_one() -> None:
    flags = torch.ones(64, dtype=torch.bool)
    assert cw.explain(_mask_shape_error(flags)) is None
    assert cw.explain("IndexError: The shape of the mask [64] at index 0 does not match the shape of the indexed "
                      "tensor [256] at index 0") is None


@pytest.mark.parametrize(("paste", "kind", "dtypes", "words"), [
    ("RuntimeError: torch.histogramdd: if weight tensor is provided, input tensor and weight tensor should have the "
     "same dtype, but got input(float), and weight(bool)", Kind.INTEGER_OPERAND, ("f32", "bool"), "x.float()"),
    ("RuntimeError: torch.histogramdd: if weight tensor is provided, input tensor and weight tensor should have the "
     "same dtype, but got input(float), and weight(c10::BFloat16)", Kind.OP_DTYPE, ("f32", "bf16"), "one dtype"),
    ("TypeError: only integer tensors of a single element can be converted to an index", Kind.INDEX_TENSOR, (),
     "int(t.floor())"),
    ("RuntimeError: var_mean only support floating point and complex dtypes", Kind.INTEGER_OPERAND, (), "x.float()"),
    ("RuntimeError: std and var only support floating point and complex dtypes", Kind.INTEGER_OPERAND, (),
     "x.float()"),
    ("RuntimeError: linalg.solve: Expected A and B to have the same dtype, but found A of type Float and B of type "
     "BFloat16 instead", Kind.OP_DTYPE, ("f32", "bf16"), "A.float(), B.float()"),
    ('  File "/site-packages/torch/nn/functional.py", line 3462, in cross_entropy\n'
     "    return torch._C._nn.cross_entropy_loss(\n"
     "RuntimeError: expected scalar type BFloat16 but found Long", Kind.INTEGER_OPERAND, ("bf16", "int64"),
     "weight.float()"),
    ("RuntimeError: Integers to negative integer powers are not allowed.", Kind.INTEGER_OPERAND, (), "d.float()"),
    ("RuntimeError: heaviside is not yet implemented for tensors with different dtypes.", Kind.OP_DTYPE, (),
     "values.to(x.dtype)"),
    ("RuntimeError: input_lengths must be integral", Kind.TARGET, (), "dtype=torch.long"),
])
def test_round_thirty_seven_wordings(paste: str, kind: Kind, dtypes: tuple[str, ...], words: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and explanation.dtypes == dtypes and words in explanation.fix


def test_a_bool_target_negated_inside_margin_ranking_loss_is_the_loss_target() -> None:
    with pytest.raises(RuntimeError) as raised:
        torch.nn.functional.margin_ranking_loss(torch.zeros(3), torch.zeros(3), torch.ones(3, dtype=torch.bool))
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.TARGET and explanation.dtypes == ("bool",)


def test_a_bit_operation_on_16_bit_data_names_masks_first_and_shifts_name_packed_weights_first() -> None:
    anded = cw.explain("NotImplementedError: \"bitwise_and_cpu\" not implemented for 'BFloat16'")
    shifted = cw.explain("NotImplementedError: \"rshift_cpu\" not implemented for 'Half'")
    assert anded.culprit.startswith("a bool mask") and shifted.culprit.startswith("packed quantized weights")
    assert anded.kind is shifted.kind is Kind.NO_KERNEL


_POLAR = ("RuntimeError: Expected object of scalar type Float but got scalar type Double for second argument")


def test_the_torch_function_a_user_frame_calls_names_the_op_of_a_generic_message() -> None:
    framed = cw.explain('  File "rope.py", line 9, in rope\n'
                        "    freqs = torch.polar(torch.ones(angles.shape), angles)\n" + _POLAR)
    assert framed.kind is Kind.OP_DTYPE and framed.op == "torch.polar" and framed.dtypes == ("f32", "f64")


@pytest.mark.parametrize("paste", [
    _POLAR + "\nFixed it with:\n    angles = torch.from_numpy(grid).float()",
    '  File "rope.py", line 9, in rope\n    freqs = torch.ones(3) * torch.polar(r, angles)\n' + _POLAR,
    '  File "merge.py", line 114, in merge\n    d = torch.where(mask, delta, merged)\n' + _POLAR,
])
def test_a_torch_call_that_may_not_be_the_failing_one_leaves_the_message_generic(paste: str) -> None:
    assert cw.explain(paste).kind is Kind.SCALAR_TYPE


@pytest.mark.parametrize(("paste", "kind", "dtypes", "words"), [
    ("ValueError: Invalid usage of tensors with different dtypesFound torch.int64 and  torch.float32",
     Kind.SCALAR_TYPE, ("int64", "f32"), "torch.empty_like(x)"),
    ("RuntimeError: ProcessGroupGloo::allgather: invalid tensor type at index 0 (expected TensorOptions(dtype="
     "c10::BFloat16, device=cpu, layout=Strided), got TensorOptions(dtype=float, device=cpu, layout=Strided))",
     Kind.SCALAR_TYPE, ("bf16", "f32"), "x.new_empty"),
    ("RuntimeError: Cannot use ReduceOp.BOR with non-integral dtype", Kind.MASK, (), "dtype=torch.int32"),
    ("ValueError: ZeroRedundancyOptimizer only supports using the same dense type for all parameters but got both "
     "torch.BFloat16Tensor and torch.FloatTensor", Kind.OP_DTYPE, ("bf16", "f32"), "bf16-mixed"),
    ("RuntimeError: FSDP parameters should be materialized from meta device before training, but the following were "
     "still on meta device: ['0.weight']", Kind.DEVICE_MISMATCH, (), "to_empty"),
    ("RuntimeError: Got the following error when running the callback: RuntimeError: Invalid scalar type",
     Kind.NO_KERNEL, (), "t.float()"),
    ("torch.distributed.init_process_group(backend='gloo')\nRuntimeError: Invalid scalar type", Kind.NO_KERNEL, (),
     "NCCL"),
    ("failed while attempting to run meta for aten.bmm.default\n"
     "RuntimeError: expected scalar type torch.float16 but found torch.float32", Kind.MATMUL, ("f16", "f32"),
     "one dtype"),
    ('  File "attn.py", line 4, in attend\n    return torch.bmm(q, k)\n'
     "failed while attempting to run meta for aten.bmm.default\n"
     "RuntimeError: expected scalar type torch.float16 but found torch.float32", Kind.BATCHED_MATMUL, ("f16", "f32"),
     "one dtype"),
    ('  File "/site-packages/torch/distributed/tensor/parallel/loss.py", line 240, in _nll_loss_forward\n'
     "RuntimeError: gather(): Expected dtype int32/int64 for index, but got torch.float32", Kind.TARGET, ("f32",),
     "target.long()"),
    ('  File "/site-packages/torch/nn/utils/weight_norm.py", line 45, in compute_weight\n'
     "    return _weight_norm(v, g, self.dim)\nRuntimeError: expected scalar type BFloat16 but found Float",
     Kind.OP_DTYPE, ("bf16", "f32"), "weight_g"),
    ("RuntimeError: torch.histogramdd: input tensor and bins tensors should have the same dtype, but got input with "
     "dtype float and bins for dimension 0 with dtype double", Kind.OP_DTYPE, ("f32", "f64"), "x.float()"),
    ('  File "moe.py", line 30, in forward\n    out = torch.bmm(tokens, self.w_int8)\n'
     "RuntimeError: expected m1 and m2 to have the same dtype, but got: c10::BFloat16 != signed char",
     Kind.BATCHED_MATMUL, ("bf16", "int8"), "dequantize the weight"),
])
def test_round_thirty_nine_wordings(paste: str, kind: Kind, dtypes: tuple[str, ...], words: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and explanation.dtypes == dtypes and words in explanation.fix


def test_a_grad_scaler_step_with_no_gradients_and_an_update_without_a_step_are_told_apart() -> None:
    stepped = cw.explain("AssertionError: No inf checks were recorded for this optimizer.")
    updated = cw.explain("AssertionError: No inf checks were recorded prior to update.")
    assert "GradScaler.step" in stepped.cause and "update()" in updated.cause


def test_indices_of_an_unnamed_dtype_are_not_said_to_be_floats() -> None:
    explanation = cw.explain("IndexError: tensors used as indices must be long, int, byte or bool tensors")
    assert "of dtype float" not in explanation.cause


def test_quantile_told_from_what_the_live_frame_held() -> None:
    for data, kind in ((torch.arange(8), Kind.INTEGER_OPERAND), (torch.ones(8, dtype=torch.bfloat16), Kind.NO_KERNEL)):
        with pytest.raises(RuntimeError) as raised:
            torch.quantile(data, 0.5)
        assert cw.explain(raised.value).kind is kind


class _Dispatcher:
    """Stands for a library that catches a kernel's error and raises its own, naming the aten op."""

    def _kernel(self) -> None:
        raise RuntimeError("expected scalar type torch.bfloat16 but found torch.float32")

    def _dispatch(self) -> None:
        try:
            self._kernel()
        except RuntimeError as error:
            raise RuntimeError(f"{error}\n\nSharding propagation failed for aten.bmm.default(...)") from error

    def bmm(self) -> None:
        self._dispatch()

    def run(self) -> None:
        self._dispatch()


def test_a_wrapped_error_is_read_with_its_wrapper_s_lines_and_the_calls_that_led_to_it() -> None:
    with pytest.raises(RuntimeError) as by_bmm:
        _Dispatcher().bmm()
    with pytest.raises(RuntimeError) as by_other:
        _Dispatcher().run()
    assert cw.explain(by_bmm.value).kind is Kind.BATCHED_MATMUL
    assert cw.explain(by_other.value).kind is Kind.MATMUL


def test_a_bit_operation_on_float_data_tells_masks_bool_and_hashed_coordinates_integer() -> None:
    explanation = cw.explain("NotImplementedError: \"bitwise_xor_cpu\" not implemented for 'Float'")
    assert explanation.kind is Kind.MASK and "mask.bool()" in explanation.fix and ".long()" in explanation.fix


_FAKE_TENSOR_CALL = (
    "torch._dynamo.exc.TorchRuntimeError: RuntimeError when making fake tensor call\n"
    "  Explanation: Dynamo failed to run FX node with fake tensors: call_function {node}(*(FakeTensor(..., size=(2, 6, "
    "16), dtype=torch.bfloat16), FakeTensor(..., size=(16, 16), dtype=torch.float64)), **{{}}): got RuntimeError("
    "'expected scalar type torch.bfloat16 but found torch.float64')"
)


@pytest.mark.parametrize(("paste", "kind", "dtypes", "words"), [
    (_FAKE_TENSOR_CALL.format(node="<built-in function matmul>"), Kind.MATMUL, ("bf16", "f64"), "float32"),
    (_FAKE_TENSOR_CALL.format(node="<built-in method bmm of type object at 0x7f8d640cea40>"), Kind.BATCHED_MATMUL,
     ("bf16", "f64"), "float32"),
    ("RuntimeError: expected dtype torch.float32 for `end`, but got dtype torch.bfloat16", Kind.LERP, ("f32", "bf16"),
     ""),
    ("RuntimeError: When merging two branches' output in torch.cond,  expected same dtype but got torch.bfloat16 and "
     "torch.float32.", Kind.OP_DTYPE, ("bf16", "f32"), "torch.zeros_like(x)"),
    ("torch._dynamo.exc.UncapturedHigherOrderOpError: Expected body_fn_output and carried_inputs to have same metadata "
     "but found:\npair[1] differ in 'dtype: torch.float32 vs torch.bfloat16', where lhs is FakeTensor(..., size=(8, "
     "16))\n  Higher Order Operator: torch.while_loop", Kind.OP_DTYPE, ("f32", "bf16"), "carry.dtype"),
    ("RuntimeError: expected predicate to be bool, got torch.float32", Kind.MASK, ("f32",), "bool"),
    ("AssertionError: mask.dtype must be torch.bool, got torch.int64", Kind.MASK, ("int64",), "bool"),
    ("RuntimeError: Promotion of int.add/sub_(float) in in-place ops are not possible due to element size change.",
     Kind.RESULT_CAST, ("int64",), "torch.tensor(0.0)"),
])
def test_round_forty_wordings(paste: str, kind: Kind, dtypes: tuple[str, ...], words: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and explanation.dtypes == dtypes and words in explanation.fix


def test_a_carried_state_line_names_the_loop_it_came_from() -> None:
    explanation = cw.explain("pair[0] differ in 'dtype: torch.bfloat16 vs torch.float32', where lhs is FakeTensor\n"
                             "  Higher Order Operator: torch.ops.higher_order.scan")
    assert explanation.op == "torch.scan"


def test_an_int8_weight_blended_with_lerp_is_told_to_be_dequantized_and_a_count_to_be_cast() -> None:
    quantized = cw.explain("RuntimeError: expected dtype c10::BFloat16 for `end` but got dtype signed char")
    counted = cw.explain("RuntimeError: expected dtype float for `end` but got dtype long int")
    assert quantized.kind is counted.kind is Kind.LERP
    assert "dequantize" in quantized.fix and "dequantize" not in counted.fix


def test_token_ids_interpolated_or_given_gradients_are_pointed_to_the_embeddings() -> None:
    interpolated = cw.explain("RuntimeError: Expected tensor for argument #1 'indices' to have one of the following "
                              "scalar types: Long, Int; but got torch.FloatTensor instead (while checking arguments "
                              "for embedding)")
    graded = cw.explain("RuntimeError: only Tensors of floating point dtype can require gradients")
    assert "inputs_embeds" in interpolated.fix and "inputs_embeds" in graded.fix


def test_float_labels_in_a_compiled_cross_entropy_are_its_targets() -> None:
    explanation = cw.explain(
        "  Explanation: Dynamo failed to run FX node with fake tensors: call_function <function cross_entropy at "
        "0x7f93c3c0d6c0>(*(FakeTensor(..., size=(4, 10)), FakeTensor(..., size=(4,))), **{}): got RuntimeError("
        "'gather(): Expected dtype int32/int64 for index, but got torch.float32')")
    assert explanation.kind is Kind.TARGET and "long" in explanation.fix


@pytest.mark.parametrize(("paste", "kind", "dtypes", "words"), [
    ("RuntimeError: Input type (short int) and bias type (float) should be the same", Kind.INTEGER_OPERAND,
     ("int16", "f32"), "x.float()"),
    ("NotImplementedError: \"add_stub\" not implemented for 'UInt16'", Kind.NO_KERNEL, ("uint16",),
     "x.to(torch.int32)"),
    ("NotImplementedError: \"rshift_cpu\" not implemented for 'UInt16'", Kind.NO_KERNEL, ("uint16",),
     "x.to(torch.int32)"),
    ("ValueError: given numpy array has byte order different from the native byte order. Conversion between byte "
     "orders is currently not supported.", Kind.NUMPY_DTYPE, (), "newbyteorder"),
    ("ValueError: Expected theta to have floating point type, but got torch.int64", Kind.INTEGER_OPERAND, ("int64",),
     "x.float()"),
    ("RuntimeError: Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, "
     "use the `~` or `logical_not()` operator instead.", Kind.MASK, ("bool",), "x.float()"),
])
def test_round_forty_one_wordings(paste: str, kind: Kind, dtypes: tuple[str, ...], words: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and explanation.dtypes == dtypes and words in explanation.fix


def test_a_nan_far_down_a_printed_value_tensor_is_still_seen() -> None:
    rows = "\n".join("        [1.0126, 0.9868, 1.0640]," for _ in range(12))
    explanation = cw.explain("ValueError: Expected value argument (Tensor of shape (14, 3)) to be within the support "
                             "(Real()) of the distribution Normal(loc: torch.Size([3]), scale: torch.Size([3])), but "
                             f"found invalid values:\ntensor([[1.0, 2.0, 3.0],\n{rows}\n        [nan, 1.0, 1.0]])")
    assert explanation.kind is Kind.NONFINITE


@pytest.mark.parametrize(("paste", "kind", "dtypes", "words"), [
    ("RuntimeError: quantile() q tensor must be same dtype as the input tensor", Kind.OP_DTYPE, (), "q.to(x.dtype)"),
    ("RuntimeError: gather(): Expected dtype int32/int64 for index", Kind.INDEX_TENSOR, ("int32", "int64"),
     "ids.long()"),
    ("RuntimeError: index_add_(): Expected dtype int32/int64 for index but got: Double", Kind.INDEX_TENSOR,
     ("f64", "int32", "int64"), "ids.long()"),
    ("RuntimeError: torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's dtype "
     "BFloat16 and other's dtype Float", Kind.OP_DTYPE, ("bf16", "f32"), "A.float(), B.float()"),
    ("TypeError: Caught TypeError in DataLoader worker process 0.\nOriginal Traceback (most recent call last):\n"
     "TypeError: torch.cat(): input types can't be cast to the desired output type Byte", Kind.RESULT_CAST,
     ("uint8",), "collate_fn"),
    ("TypeError: default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found object",
     Kind.NUMPY_DTYPE, (), "pad_sequence"),
])
def test_round_forty_two_wordings(paste: str, kind: Kind, dtypes: tuple[str, ...], words: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and explanation.dtypes == dtypes and words in explanation.fix


def test_an_integer_kernel_passed_to_a_functional_conv_is_the_weight_when_live() -> None:
    laplacian = torch.tensor([[[[0, 1, 0], [1, -4, 1], [0, 1, 0]]]])
    field = torch.zeros(1, 1, 8, 8)
    with pytest.raises(RuntimeError) as raised:
        torch.nn.functional.conv2d(field, laplacian, padding=1)
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.CONV_WEIGHT and explanation.dtypes == ("f32", "int64")


class _TiedLM(nn.Module):
    """A language model whose lm_head shares its weight with the input embeddings."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(10, 8)
        self.body = nn.Linear(8, 8)
        self.lm_head = nn.Linear(8, 10, bias=False)
        self.lm_head.weight = self.embed.weight

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.lm_head(self.body(self.embed(ids)).to(self.lm_head.weight.dtype))


def test_a_head_converted_alone_names_the_embedding_tied_to_it_when_live() -> None:
    model = _TiedLM()
    model.lm_head.to(torch.bfloat16)
    with pytest.raises(RuntimeError) as raised:
        model(torch.tensor([[1, 2]]))
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.MATMUL and set(explanation.dtypes) == {"bf16", "f32"}
    assert "`embed.weight` and `lm_head.weight` are one tied parameter, bf16" in explanation.culprit


def test_a_tied_parameter_in_the_model_s_own_dtype_is_not_blamed() -> None:
    model = _TiedLM().to(torch.bfloat16)
    with pytest.raises(RuntimeError) as raised:
        model.body(torch.zeros(1, 8))
    assert "tied" not in cw.explain(raised.value).culprit
    with pytest.raises(RuntimeError) as raised:
        model(torch.tensor([[1, 2]])).float() @ torch.zeros(10, 2, dtype=torch.float64)
    assert "tied" not in cw.explain(raised.value).culprit
    assert "tied" not in cw.explain("RuntimeError: mat1 and mat2 must have the same dtype, but got BFloat16 and "
                                    "Float").culprit


@pytest.mark.parametrize(("paste", "kind", "dtypes", "words"), [
    ("RuntimeError: vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got Tensor with dtype "
     "torch.int64", Kind.INTEGER_OPERAND, ("int64",), "argmax"),
    ("RuntimeError: linalg.vecdot: Expected x and y to have the same dtype, but found x of type BFloat16 and y of type "
     "Float instead", Kind.OP_DTYPE, ("bf16", "f32"), "`x` in bf16"),
    ("RuntimeError: linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type Float and B of type "
     "Double instead", Kind.OP_DTYPE, ("f32", "f64"), "`LU` in f32"),
    ("RuntimeError: Offsets have to be int32", Kind.INDEX_TENSOR, ("int32",), "to(torch.int32)"),
    ("RuntimeError: sparse_sampled_addmm: Expected self to be a floating-point or complex tensor, but got BFloat16",
     Kind.NO_KERNEL, ("bf16",), "sparse_sampled_addmm"),
    ("RuntimeError: sampled_addmm: Expected mat1 and mat2 to have the same dtype, but got BFloat16 and Float",
     Kind.MATMUL, ("bf16", "f32"), "sampled"),
    ("RuntimeError: When constructing a nested tensor, all tensors in list must have the same dtype", Kind.OP_DTYPE, (),
     "nested_tensor"),
    ("RuntimeError: meshgrid expects all tensors to have the same dtype", Kind.OP_DTYPE, (), "torch.meshgrid"),
    ("RuntimeError: topk does not support bool dtypes on CPU", Kind.INTEGER_OPERAND, ("bool",), "topk"),
    ("NotImplementedError: \"_segment_reduce_lengths_cpu_kernel1\" not implemented for 'Float'", Kind.INDEX_TENSOR,
     ("int64", "f32"), "lengths"),
])
def test_round_forty_three_wordings(paste: str, kind: Kind, dtypes: tuple[str, ...], words: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and explanation.dtypes == dtypes
    assert words in f"{explanation.cause} {explanation.fix} {explanation.op}"


@pytest.mark.parametrize("paste", [
    "RuntimeError: Offsets have to be int32 for this kernel, use a smaller batch",
    "RuntimeError: vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got Tensor with dtype "
    "torch.float32",
])
def test_round_forty_three_wordings_need_what_makes_them_dtype_errors(paste: str) -> None:
    explanation = cw.explain(paste)
    assert explanation is None or explanation.kind not in (Kind.INDEX_TENSOR, Kind.INTEGER_OPERAND)


def test_an_int8_table_where_a_floating_weight_belongs_is_a_quantized_table_to_dequantize() -> None:
    explanation = cw.explain("RuntimeError: Expected tensor for argument #1 'weight' to have one of the following "
                             "scalar types: Half, BFloat16, Float, Double; but got torch.CharTensor instead (while "
                             "checking arguments for embedding_bag)")
    assert explanation.kind is Kind.INTEGER_OPERAND and explanation.dtypes == ("int8",)
    assert explanation.op == "embedding_bag" and "dequantize" in explanation.fix
    other = cw.explain("RuntimeError: Expected tensor for argument #1 'input' to have one of the following scalar "
                       "types: Half, Float, Double; but got torch.LongTensor instead (while checking arguments for "
                       "some_op)")
    assert other.kind is Kind.INTEGER_OPERAND and "dequantize" not in other.fix
    assert cw.explain("RuntimeError: Expected tensor for argument #1 'weight' to have one of the following scalar "
                      "types: Half, BFloat16, Float, Double; but got torch.FloatTensor instead") is None


class _LazyRecord:
    """An object whose ``__getattr__`` recurses until its fields exist, as a pandas DataFrame's does while it is built."""

    def __getattr__(self, name: str) -> object:
        return getattr(self, f"_{name}")

    def fill(self, values: torch.Tensor) -> None:
        values.numpy()


def test_an_error_raised_in_a_half_built_object_s_method_is_read_without_touching_its_attributes() -> None:
    with pytest.raises(TypeError) as raised:
        _LazyRecord().fill(torch.zeros(2, dtype=torch.bfloat16))
    explanation = cw.explain(raised.value)
    assert explanation is not None and explanation.kind is Kind.NUMPY_DTYPE and explanation.dtypes == ("bf16",)


_TRACED_ADD = (
    "torch._dynamo.exc.TorchRuntimeError: RuntimeError when making fake tensor call\n"
    "  Explanation: Dynamo failed to run FX node with fake tensors: call_method add_(*(FakeTensor(..., size=(), "
    "dtype=torch.int64), FakeTensor(..., size=(), dtype=torch.bfloat16)), **{}): got RuntimeError('Promotion of "
    "int.add/sub_(float) in in-place ops are not possible due to element size change.')"
)


@pytest.mark.parametrize(("paste", "kind", "dtypes"), [
    ('  File "<eval_with_key>.9", line 6, in forward\n'
     "    _weight_int8pack_mm = torch.ops.aten._weight_int8pack_mm.default(x, w_int8, scales);  x = w_int8 = None\n"
     "RuntimeError: expected scalar type BFloat16 but found Float", Kind.MATMUL, ("bf16", "f32")),
    ("RuntimeError: Input dtypes must be the same, got: input: torch.float32, batch1: torch.bfloat16, batch2: "
     "torch.bfloat16", Kind.BATCHED_MATMUL, ("f32", "bf16", "bf16")),
    (_TRACED_ADD, Kind.RESULT_CAST, ("int64", "bf16")),
    ("RuntimeError: [rank0]:[F1127 05:20:27.421015978 ProcessGroupGloo.cpp:1536] Check failed: "
     "outputTensors[i].dtype() == inputTensors[i].dtype() (c10::BFloat16 vs. float).", Kind.SCALAR_TYPE,
     ("bf16", "f32")),
    ("NotImplementedError: \"bincount_cpu\" not implemented for 'BFloat16'", Kind.INDEX_TENSOR, ("int64", "bf16")),
])
def test_round_forty_five_wordings(paste: str, kind: Kind, dtypes: tuple[str, ...]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and explanation.dtypes == dtypes


def test_a_fake_tensor_of_the_default_dtype_adds_no_dtype_to_an_in_place_promotion() -> None:
    paste = _TRACED_ADD.replace(", dtype=torch.bfloat16", "")
    assert cw.explain(paste).dtypes == ("int64",)


def test_a_pasted_frame_of_generated_code_names_the_op_an_exported_graph_ran() -> None:
    paste = ("Traceback (most recent call last):\n"
             '  File "/env/lib/python3.11/site-packages/torch/fx/graph_module.py", line 493, in __call__\n'
             "    return super(self.cls, obj).__call__(*args, **kwargs)\n"
             '  File "<eval_with_key>.69", line 14, in forward\n'
             "    conv1d_1 = torch.ops.aten.conv1d.default(mul, b_weight, None, [1], [1]);  mul = b_weight = None\n"
             '  File "/env/lib/python3.11/site-packages/torch/_ops.py", line 875, in __call__\n'
             "    return self._op(*args, **kwargs)\n"
             "RuntimeError: expected scalar type Double but found Half")
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.CONV_WEIGHT and explanation.dtypes == ("f64", "f16")


def test_quantile_is_told_from_the_tensor_the_call_passed_not_every_tensor_the_frame_held() -> None:
    scores = torch.ones(8, dtype=torch.bfloat16)
    ranks = scores.argsort()
    with pytest.raises(RuntimeError) as raised:
        torch.quantile(ranks, 0.5)
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.INTEGER_OPERAND and explanation.dtypes == ("int64",)
    with pytest.raises(RuntimeError) as raised:
        scores.quantile(0.5)
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("bf16",)
    assert explanation.confidence is Confidence.HIGH


def test_a_distribution_of_integer_tensors_sampling_is_told_as_its_parameters_not_a_layer_s_weights() -> None:
    with pytest.raises(NotImplementedError) as raised:
        torch.distributions.Normal(torch.tensor(0), torch.tensor(1)).sample((2,))
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.INTEGER_OPERAND and "torch.tensor(0.0)" in explanation.fix
    pasted = cw.explain("NotImplementedError: \"normal_kernel_cpu\" not implemented for 'Long'")
    assert pasted.kind is Kind.NO_KERNEL and "BitsAndBytesConfig" in pasted.fix


class _Classifier(nn.Module):
    """A small bf16-able classifier: a body, a norm and a head."""

    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Linear(4, 4)
        self.norm = nn.BatchNorm1d(4)
        self.head = nn.Linear(4, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.norm(self.body(x)))


def test_the_one_tensor_a_model_holds_in_the_odd_dtype_is_named_in_the_fix() -> None:
    model = _Classifier().to(torch.bfloat16).eval()
    model.head.bias = nn.Parameter(torch.zeros(3))
    with pytest.raises(RuntimeError) as raised:
        model(torch.zeros(2, 4, dtype=torch.bfloat16))
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.MATMUL
    assert "only `head.bias` (Linear) is f32 (its input and the rest are bf16)" in explanation.fix
    buffered = _Classifier().eval()
    buffered.norm.running_var = torch.ones(4, dtype=torch.float64)
    with pytest.raises(RuntimeError) as raised:
        buffered(torch.zeros(2, 4))
    assert "`norm.running_var` (BatchNorm1d) is f64" in cw.explain(raised.value).fix


def test_no_tensor_is_named_when_the_model_is_uniform_or_converted_in_many_parts() -> None:
    model = _Classifier().to(torch.bfloat16).eval()
    with pytest.raises(RuntimeError) as raised:
        model(torch.zeros(2, 4))
    assert "of the floating tensors of the module" not in cw.explain(raised.value).fix
    stack = nn.Sequential(*(nn.Linear(4, 4) for _ in range(4)))
    stack[2:].to(torch.bfloat16)
    with pytest.raises(RuntimeError) as raised:
        stack(torch.zeros(2, 4))
    assert "of the floating tensors of the module" not in cw.explain(raised.value).fix


def test_a_sparse_tensor_s_index_arrays_of_two_integer_dtypes_are_index_dtypes() -> None:
    explanation = cw.explain("RuntimeError: crow_indices and col_indices must have the same dtype, bot got Int and Long")
    assert explanation.kind is Kind.INDEX_TENSOR and explanation.dtypes == ("int32", "int64")
    assert "crow_indices" in explanation.op


def test_a_class_index_target_names_the_int64_the_message_expects() -> None:
    explanation = cw.explain("    loss = F.multilabel_margin_loss(scores, targets)\n"
                             "RuntimeError: expected scalar type Long but found Int")
    assert explanation.kind is Kind.TARGET and explanation.dtypes == ("int64", "int32")


def test_a_histogram_s_weights_of_another_dtype_are_told_to_take_the_values_dtype() -> None:
    explanation = cw.explain("RuntimeError: torch.histogramdd: if weight tensor is provided, input tensor and weight "
                             "tensor should have the same dtype, but got input(float), and weight(double)")
    assert explanation.kind is Kind.OP_DTYPE and "weight=weights.to(x.dtype)" in explanation.fix


def test_a_capturable_optimizer_on_the_cpu_is_a_device_problem() -> None:
    explanation = cw.explain("AssertionError: If capturable=True, params and state_steps must be on supported devices: "
                             "['cuda', 'xpu', 'hpu', 'privateuseone', 'xla'].")
    assert explanation.kind is Kind.DEVICE_MISMATCH and "capturable=(device.type == 'cuda')" in explanation.fix


@pytest.mark.parametrize(("paste", "device"), [
    ("RuntimeError: \"cat_cuda\" not implemented for 'Float8_e4m3fn'", "cuda"),
    ("NotImplementedError: \"sum_cpu\" not implemented for 'Float8_e4m3fn'", "cpu"),
])
def test_an_op_without_an_fp8_kernel_is_told_to_dequantize_first(paste: str, device: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("float8_e4m3fn",)
    assert explanation.device == device and "x.to(torch.bfloat16)" in explanation.fix
    assert "keep_fp32" not in explanation.fix


@pytest.mark.parametrize(("paste", "dtypes"), [
    ("ERROR: FP8 models require a GPU with Compute Capability 8.9 or higher (e.g., RTX 4090). Your GPU's capability "
     "is 8.6. Please select a non-FP8 model.", ()),
    ("AssertionError: Device compute capability 8.9 or higher required for FP8 execution.", ()),
    ("RuntimeError: f8e4m3nv is only supported on compute capability >= 90", ("float8_e4m3fn",)),
    ("AssertionError: fp8e4nv data type is not supported on CUDA arch < 89", ("float8_e4m3fn",)),
])
def test_fp8_on_a_gpu_below_compute_capability_8_9_is_told_to_run_in_bf16(paste: str, dtypes: tuple[str, ...]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == dtypes
    assert "8.9" in explanation.cause and "bf16" in explanation.fix


def test_triton_listing_e5m2_for_this_gpu_is_told_to_use_it() -> None:
    listed = cw.explain("ValueError(\"type fp8e4nv not supported in this architecture. The supported fp8 dtypes are "
                        "('fp8e4b15', 'fp8e5')\")")
    unlisted = cw.explain("ValueError: type fp8e4nv not supported in this architecture.")
    assert listed.kind is unlisted.kind is Kind.NO_KERNEL
    assert "fp8_e5m2" in listed.fix and "fp8_e5m2" not in unlisted.fix


def test_a_torch_older_than_float8_is_told_to_update() -> None:
    explanation = cw.explain("AttributeError: module 'torch' has no attribute 'float8_e4m3fn'")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("float8_e4m3fn",)
    assert "2.1" in explanation.cause and "update torch" in explanation.fix


def test_scaled_mm_refusing_its_scales_names_float32_scales_without_confidence() -> None:
    explanation = cw.explain(
        "RuntimeError: Invalid scaling configuration.\n- For TensorWise scaling, a and b should be float8, scales "
        "should be float and singletons.\n- For RowWise scaling, a and b should be float8, scales should be float, "
        "scale_a should be (64, 1) and scale_b should be (1, 32), and both should be contiguous.")
    assert explanation.kind is Kind.SCALAR_TYPE and explanation.confidence is Confidence.LOW
    assert "float32 scales" in explanation.fix


def test_fp8_matmul_sizes_not_divisible_by_16_are_told_to_pad() -> None:
    explanation = cw.explain("AssertionError: FP8 execution requires 2D input matrices with height divisible by 8 and "
                             "width divisible by 16, but got tensor with dims=[896, 712]")
    assert explanation.kind is Kind.NO_KERNEL and "pad" in explanation.fix


def test_cublaslt_refusing_a_matmul_is_an_fp8_layout_only_where_the_paste_runs_fp8() -> None:
    error = ("RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling cublasLtMatmul with transpose_mat1 t "
             "transpose_mat2 n m 2048 n 2048 k 2048")
    fp8 = cw.explain("out = torch._scaled_mm(a, b, scale_a, scale_b)\n" + error)
    assert fp8.kind is Kind.NO_KERNEL and fp8.confidence is Confidence.LOW and "storage offset" in fp8.cause
    assert cw.explain("out = a @ b\n" + error) is None


@pytest.mark.parametrize(("paste", "kind", "dtypes", "words"), [
    ("RuntimeError: Expected a.dtype() == torch::kInt8 to be true, but got false.", Kind.NO_KERNEL, ("int8",),
     "update the library"),
    ("ERROR : Arch conditional MMA instruction used without targeting appropriate compute capability. Aborting.",
     Kind.NO_KERNEL, (), "GPU the kernel supports"),
    ("RuntimeError: Expected condition to have ScalarType Byte, but got ScalarType Double", Kind.MASK, ("f64",),
     "cond.bool()"),
    ("RuntimeError: torch.cuda.sparse.HalfTensor is not enabled.", Kind.NO_KERNEL, ("f16",), "update torch"),
])
def test_round_forty_eight_wordings(paste: str, kind: Kind, dtypes: tuple[str, ...], words: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and explanation.dtypes == dtypes and words in explanation.fix


def test_an_xpu_kernel_is_told_on_the_xpu() -> None:
    explanation = cw.explain("NotImplementedError: \"angle_xpu\" not implemented for 'BFloat16'")
    assert explanation.device == "xpu" and "XPU" in explanation.cause


_SCALED_MM_REFUSED = (
    "ValueError: Invalid scaling configuration.\n- For TensorWise scaling, a and b should be float8, scales should be "
    "float and singletons.\nGot mat_a.dtype()=Float8_e4m3fn, scale_a.dtype()=Float, scale_a.size()=[], "
    "scale_a.stride()=[], mat_b.dtype()={mat_b}, scale_b.dtype()={scale_b}, scale_b.size()=[] and "
    "scale_b.stride()=[]")


@pytest.mark.parametrize(("mat_b", "scale_b", "kind", "dtypes", "words"), [
    ("Float8_e4m3fn", "BFloat16", Kind.MATMUL, ("float8_e4m3fn", "bf16"), "keep the scales float32"),
    ("BFloat16", "Float", Kind.MATMUL, ("float8_e4m3fn", "bf16"), "quantize after the last"),
    ("Char", "Float", Kind.INTEGER_OPERAND, ("int8",), "torch._int_mm"),
    ("Float8_e4m3fn", "Float", Kind.SCALAR_TYPE, (), "shape the message lists"),
])
def test_scaled_mm_s_got_line_says_which_operand_or_scale_is_odd(mat_b: str, scale_b: str, kind: Kind,
                                                                  dtypes: tuple[str, ...], words: str) -> None:
    explanation = cw.explain(_SCALED_MM_REFUSED.format(mat_b=mat_b, scale_b=scale_b))
    assert explanation.kind is kind and explanation.dtypes == dtypes and words in explanation.fix


def test_an_fp8_overflow_names_its_range_and_never_suggests_infinity() -> None:
    explanation = cw.explain("RuntimeError: value cannot be converted to type c10::Float8_e4m3fn without overflow")
    assert explanation.kind is Kind.VALUE_OVERFLOW and "±448" in explanation.cause
    assert "no infinity" in explanation.cause and "-inf')` for masks" not in explanation.fix


def test_a_uint8_weight_in_a_matmul_may_be_fp8_bytes_to_reinterpret() -> None:
    explanation = cw.explain("RuntimeError: expected m1 and m2 to have the same dtype, but got: c10::BFloat16 != "
                             "unsigned char")
    assert explanation.kind is Kind.MATMUL and "view(torch.float8_e4m3fn)" in explanation.fix


def test_a_live_fp8_weight_is_not_named_to_be_converted_to_the_input_s_dtype() -> None:
    layer = nn.Linear(8, 4, bias=False, dtype=torch.bfloat16)
    layer.weight.data = layer.weight.data.to(torch.float8_e4m3fn)
    with pytest.raises(RuntimeError) as raised:
        layer(torch.randn(2, 8, dtype=torch.bfloat16))
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.MATMUL and "float8_e4m3fn" in explanation.dtypes
    assert "weight.data = weight.data.to" not in explanation.fix and "times its scale" in explanation.fix


@pytest.mark.parametrize(("paste", "kind", "dtypes", "words"), [
    ("RuntimeError: Float8_e4m3fn is only supported for ROCm 6.5 and above", Kind.NO_KERNEL, ("float8_e4m3fn",),
     "ROCm 6.5 or newer"),
    ("ValueError: The quantization method fp8 is not supported for the current GPU. Minimum capability: 90. Current "
     "capability: 86.", Kind.NO_KERNEL, (), "unquantized"),
    ("AttributeError: '_OpNamespace' '_C' object has no attribute 'cutlass_scaled_mm_supports_fp8'", Kind.NO_KERNEL,
     (), "reinstall a wheel"),
    ("TypeError: Cannot handle this data type: (1, 1, 3), |O", Kind.INTEGER_OPERAND, (), "np.stack"),
    ("RuntimeError: self and mat2 must have the same dtype, but got BFloat16 and Float8_e4m3fn", Kind.MATMUL,
     ("bf16", "float8_e4m3fn"), "bias=bias"),
])
def test_round_forty_nine_wordings(paste: str, kind: Kind, dtypes: tuple[str, ...], words: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and explanation.dtypes == dtypes and words in explanation.fix


def test_a_capability_check_names_both_capabilities() -> None:
    explanation = cw.explain("ValueError: The quantization method fp8 is not supported for the current GPU. Minimum "
                             "capability: 90. Current capability: 86.")
    assert "9.0" in explanation.cause and "8.6" in explanation.cause


def test_a_traceback_s_source_line_is_not_read_as_a_noisy_output() -> None:
    paste = ("Float8_e4m3fn is only supported for ROCm 6.5 and above\n```\n    output = self.inner_sample(noise, "
             "latent_image, device, sampler, sigmas)\n```")
    assert cw.explain(paste).kind is Kind.NO_KERNEL
    assert cw.explain("output = self.inner_sample(noise, latent_image) in fp16") is None


def test_gray_images_in_fp16_are_read_as_nan_outputs_but_grayscale_data_is_not() -> None:
    explanation = cw.explain("CUDA FP16 test passed, but generated images are gray")
    assert explanation.kind is Kind.NONFINITE and "gray" in explanation.cause
    assert cw.explain("I train on grayscale images in fp16 and it works") is None


def test_checkpoint_recompute_metadata_names_the_saved_and_recomputed_dtypes() -> None:
    explanation = cw.explain(
        "torch.utils.checkpoint.CheckpointError: torch.utils.checkpoint: Recomputed values for the following tensors "
        "have different metadata than during the forward pass.\ntensor at position 9:\nsaved metadata: {'shape': "
        "torch.Size([2, 128]), 'dtype': torch.bfloat16, 'device': device(type='cuda', index=6)}\nrecomputed metadata: "
        "{'shape': torch.Size([2, 128]), 'dtype': torch.float32, 'device': device(type='cuda', index=6)}")
    assert explanation.kind is Kind.SCALAR_TYPE and explanation.dtypes == ("bf16", "f32")
    assert "saved bf16, recomputed f32" in explanation.cause and "FSDP2" in explanation.cause


@pytest.mark.parametrize(("said", "dtype"), [
    ("FP8 doesn't work on GTX 1650", "float8_e4m3fn"),
    ("[Bug]: fp8e4nv data type error on A100", "float8_e4m3fn"),
    ("bf16 error on T4", "bf16"),
])
def test_a_dtype_said_to_fail_on_a_gpu_without_it_is_told_with_low_confidence(said: str, dtype: str) -> None:
    explanation = cw.explain(said)
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == (dtype,)
    assert explanation.confidence is Confidence.LOW and "fp16" in explanation.fix


@pytest.mark.parametrize("said", ["bf16 error on A100", "fp8 works great on my 3090", "T5 model in bf16 error",
                                  "fp8 doesnt work"])
def test_a_gpu_that_has_the_dtype_or_no_failure_said_gets_no_answer(said: str) -> None:
    assert cw.explain(said) is None


@pytest.mark.parametrize(("paste", "kind", "dtypes", "words"), [
    ("RuntimeError: Attempted to call `variable.set_data(tensor)`, but `variable` and `tensor` have incompatible "
     "tensor type.", Kind.DEVICE_MISMATCH, (), "nn.Parameter(t)"),
    ("ValueError: Cannot merge LORA layers when the model is gptq quantized", Kind.NO_KERNEL, (), "unquantized"),
    ("Data in initializer 'onnx::Add_2877' has element type tensor(float16) but usage of initializer in graph expects "
     "tensor(float)", Kind.SCALAR_TYPE, ("f16", "f32"), "op_block_list"),
    ("AttributeError: 'torch.dtype' object has no attribute 'type'", Kind.NUMPY_DTYPE, (), "t.item()"),
    ("TypeError: can't assign a numpy.ndarray to a torch.ByteTensor", Kind.NUMPY_DTYPE, ("uint8",),
     "torch.from_numpy"),
    ("static graph must be of type int32 or int64, but got torch.float64", Kind.INDEX_TENSOR, ("f64",), ".long()"),
    ("RuntimeError: b_q_weight type is not kInt", Kind.SCALAR_TYPE, ("int32",), "own loader"),
    ("UserWarning: indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.\n"
     "IndexError: too many indices for tensor of dimension 1", Kind.INDEX_TENSOR, ("uint8",), "codes.long()"),
])
def test_round_fifty_wordings(paste: str, kind: Kind, dtypes: tuple[str, ...], words: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and explanation.dtypes == dtypes and words in explanation.fix


def test_too_many_indices_alone_is_not_told_as_a_dtype_problem() -> None:
    assert cw.explain("IndexError: too many indices for tensor of dimension 1") is None


def test_a_live_uint8_subscript_is_told_as_a_mask_not_indices() -> None:
    centers, codes = torch.linspace(-1, 1, 8), torch.tensor([[1, 2], [3, 4]], dtype=torch.uint8)
    with pytest.raises(IndexError) as raised:
        centers[codes]
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.INDEX_TENSOR and "codes.long()" in explanation.fix


def test_a_numbered_list_of_errors_answers_the_first_dtype_error_without_confidence() -> None:
    explanation = cw.explain(
        "The problems I hit:\n1. RuntimeError: expected scalar type Float but found Half\n2. torch.cuda.OutOfMemory"
        "Error: CUDA out of memory.\n3. RuntimeError: Expected all tensors to be on the same device, but found at "
        "least two devices, cuda:0 and cuda:1!")
    assert explanation.kind is Kind.SCALAR_TYPE and explanation.confidence is Confidence.LOW


@pytest.mark.parametrize(("paste", "kind", "dtypes", "words"), [
    ("Error: torch_xla/csrc/convert_ops.cpp:83 : Unsupported XLA type 10", Kind.NO_KERNEL, ("f16",), "bf16-mixed"),
    ("RuntimeError: Error while lowering: f32[24,3,7,7]{0,1,3,2} xla::cast, type=f32, dtype=Float, stype=Half",
     Kind.NO_KERNEL, ("f16",), "bf16-mixed"),
    ("Error: \"Feature \"bf16\" requires .target sm_80 or higher", Kind.NO_KERNEL, ("bf16",), "fp16"),
    ("Exception: cublaslt ran into an error!", Kind.NO_KERNEL, ("int8",), "update bitsandbytes"),
    ("TypeError: can't convert np.ndarray of type numpy.int32. The only supported types are: float64, float32, "
     "float16, int64, int32, int16, int8, and uint8.", Kind.NUMPY_DTYPE, ("int32",), "astype(np.int64)"),
    ("_pickle.UnpicklingError: Weights only load failed. WeightsUnpickler error: Can only build Tensor, parameter or "
     "OrderedDict objects, but got <class 'numpy.dtypes.Float64DType'>", Kind.NUMPY_DTYPE, ("f64",), "safe_globals"),
    ("AssertionError: Expects full precision but got torch.bfloat16", Kind.OP_DTYPE, ("bf16",), "MixedPrecision"),
])
def test_round_fifty_one_wordings(paste: str, kind: Kind, dtypes: tuple[str, ...], words: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and explanation.dtypes == dtypes and words in explanation.fix


def test_a_weights_only_refusal_never_advises_unpickling_the_file() -> None:
    explanation = cw.explain("Unsupported global: GLOBAL numpy.core.multiarray.scalar")
    assert explanation.kind is Kind.NUMPY_DTYPE and "never load a file you did not make" in explanation.fix


def test_an_xla_type_a_tpu_has_is_not_told_as_missing() -> None:
    assert cw.explain("Error: torch_xla/csrc/convert_ops.cpp:83 : Unsupported XLA type 11") is None


def test_an_op_read_only_from_code_pasted_below_the_error_is_said_with_low_confidence() -> None:
    paste = ("After adding DCN, training fails: RuntimeError: expected scalar type Half but found Float\n\n"
             "    def forward(self, x):\n        x = self.act1(self.bn1(self.conv1(x)))\n"
             "        return self.conv2(x, offset)")
    explanation = cw.explain(paste)
    assert explanation.confidence is Confidence.LOW and ("f16", "f32") == explanation.dtypes


def test_a_cython_buffer_of_another_integer_width_is_told_as_a_platform_width() -> None:
    explanation = cw.explain("ValueError: Buffer dtype mismatch, expected 'DTYPE_t' but got 'long'")
    assert explanation.kind is Kind.SCALAR_TYPE and "Windows" in explanation.cause
    assert "update the library" in explanation.fix


def test_a_retyped_kernel_name_without_quotes_is_still_a_missing_kernel() -> None:
    explanation = cw.explain("RuntimeError LayerNormKernelImpl not implenmented for half")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("f16",) and explanation.device == "cpu"


@pytest.mark.parametrize(("paste", "kind", "dtypes", "words"), [
    ("RuntimeError: Two or more parameters have different dtypes. Expected parameter 3 to have dtype torch.float64 "
     "but got dtype torch.float32.", Kind.OP_DTYPE, ("f64", "f32"), ".double()"),
    ("reward = np.float32(reward)\nAssertionError: The reward returned by `step()` must be a float", Kind.NUMPY_DTYPE,
     ("f32",), "float(reward)"),
    ("Type parameter (T) of Optype (Concat)bound to different types (tensor(float16) and tensor(float) in node "
     "(Concat_12).", Kind.SCALAR_TYPE, ("f16", "f32"), "export"),
])
def test_round_fifty_three_wordings(paste: str, kind: Kind, dtypes: tuple[str, ...], words: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and explanation.dtypes == dtypes and words in explanation.fix


def test_a_model_version_is_not_read_as_a_gpu() -> None:
    assert cw.explain("SDXL v10 bf16 error") is None


@pytest.mark.parametrize(("paste", "kind", "dtypes", "words"), [
    ("ValueError: Flash Attention 2.0 only supports torch.float16 and torch.bfloat16 dtypes. You passed torch.float32, "
     "this might lead to unexpected behaviour.", Kind.NO_KERNEL, ("f32",), "torch_dtype"),
    ("RuntimeError: at::cuda::blas::gemm: not implemented for struct c10::BFloat16", Kind.NO_KERNEL, ("bf16",),
     "float16"),
    ("FP16 Mixed precision trainning with AMP or APEX('--fp16') and FP16 half precision evaluation('--fp16_full_eval') "
     "can only be used on CUDA or NPU devices or certain XPU devices (with IPEX)", Kind.NO_KERNEL, ("f16",), "GPU"),
    ("UserWarning: FP16 is not supported on CPU; using FP32 instead", Kind.NO_KERNEL, ("f16",), "fp16=False"),
])
def test_round_fifty_four_wordings(paste: str, kind: Kind, dtypes: tuple[str, ...], words: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and explanation.dtypes == dtypes and words in explanation.fix


def test_triton_s_newer_dot_wording_reads_a_uint8_cache_as_stored_quantized_data() -> None:
    explanation = cw.explain("[Bug]: First input (bf16) and second input (uint8) must have the same dtype!")
    assert explanation.kind is Kind.MATMUL and explanation.dtypes == ("bf16", "uint8")
    assert "KV cache as uint8" in explanation.culprit


@pytest.mark.parametrize(("paste", "dtypes", "words"), [
    ("RuntimeError: Scale must be Float or BFloat16, found Double", ("f64",), "numpy"),
    ("RuntimeError: Scale must be Float or BFloat16, found Half", ("f16",), "16-bit"),
])
def test_fake_quant_scales_in_another_dtype_are_told_to_be_float32(paste: str, dtypes: tuple[str, ...],
                                                                   words: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.OP_DTYPE and explanation.dtypes == dtypes
    assert words in explanation.culprit and "scale.float()" in explanation.fix


@pytest.mark.parametrize(("paste", "kind", "dtypes", "words"), [
    ("RuntimeError: Can only calculate the mean of floating types. Got Long instead.", Kind.INTEGER_OPERAND,
     ("int64",), "x.float()"),
    ("RuntimeError: expected scalar type Double but found Char", Kind.INTEGER_OPERAND, ("f64", "int8"), "x.double()"),
    ("AssertionError: input should be in float32 type, got torch.float16", Kind.NO_KERNEL, ("f32", "f16"),
     "float32"),
    ("RuntimeError: getCudnnDataTypeFromScalarType() not supported for QUInt8", Kind.NO_KERNEL, ("int8",),
     "model.cpu()"),
    ("bfloat16 cast in triton_mm - error: LLVM Translation failed for operation: builtin.unrealized_conversion_cast",
     Kind.NO_KERNEL, ("bf16",), "update Triton"),
    ("ValueError: expects float tensor or scalar but got int32", Kind.INTEGER_OPERAND, ("int32",), "x.float()"),
])
def test_round_fifty_five_wordings(paste: str, kind: Kind, dtypes: tuple[str, ...], words: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and explanation.dtypes == dtypes and words in explanation.fix


@pytest.mark.parametrize("paste", [
    "error: LLVM Translation failed for operation: builtin.unrealized_conversion_cast",
    "ValueError: expects float tensor or scalar but got fp16",
])
def test_round_fifty_five_wordings_say_nothing_without_their_dtype(paste: str) -> None:
    assert cw.explain(paste) is None


def test_an_int8_tensor_beside_fp32_or_float64_is_data_but_beside_a_16_bit_dtype_a_quantized_weight() -> None:
    assert cw.explain("RuntimeError: expected scalar type Double but found Char").kind is Kind.INTEGER_OPERAND
    assert cw.explain("RuntimeError: expected scalar type Float but found Char").kind is Kind.INTEGER_OPERAND
    assert cw.explain("RuntimeError: expected scalar type BFloat16 but found Char").kind is Kind.MATMUL


def test_a_retyped_numpy_dtype_refusal_beside_bf16_is_numpy_lacking_bf16() -> None:
    explanation = cw.explain("[Bug] BF16 causing unspported numpy dtype error in create_constant")
    assert explanation.kind is Kind.NUMPY_DTYPE and explanation.dtypes == ("bf16",)
    assert explanation.confidence is Confidence.LOW and "x.float().numpy()" in explanation.fix
    assert cw.explain("unsupported numpy dtype") is None


def test_a_wrong_output_scalar_type_is_not_read_as_wrong_values() -> None:
    assert cw.explain("[AMP][Autocast] autocast generates wrong output scalar type with fp16") is None
    assert cw.explain("fp16 gives wrong outputs after conversion").kind is Kind.NONFINITE


def test_a_convolution_an_extension_implements_is_read_as_the_extension_s_check() -> None:
    paste = (
        'File "/site-packages/mmcv/ops/deform_conv.py", line 234, in forward\n'
        "    out = deform_conv2d(x, offset, self.weight, self.stride, self.padding,\n"
        'File "/site-packages/mmcv/ops/deform_conv.py", line 73, in forward\n'
        "    ext_module.deform_conv_forward(\n"
        "RuntimeError: expected scalar type Half but found Float"
    )
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.SCALAR_TYPE and explanation.confidence is Confidence.LOW
    assert "custom extension" in explanation.cause and "mmcv" in explanation.fix


def test_a_retyped_support_still_reads_as_sixteen_bit_only() -> None:
    explanation = cw.explain("RuntimeError: FLashAttention only surpport fp16 and bf16 data type")
    assert explanation.kind is Kind.NO_KERNEL


def test_attention_field_lines_pasted_without_their_error_line_are_read_together() -> None:
    explanation = cw.explain("Bug\n query.dtype: torch.float16\n  key.dtype  : torch.float32\n  value.dtype: torch.float32")
    assert explanation.kind is Kind.SDPA and explanation.dtypes == ("f16", "f32")


@pytest.mark.parametrize("paste", [
    "[bug]: SD 2.x models return only black in float16",
    "Lora trained in full FP16 will always be black",
    "fp16: the results are all black (zeros)",
])
def test_black_outputs_said_in_other_words_beside_fp16_are_nan(paste: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.NONFINITE and explanation.dtypes == ("f16",)


@pytest.mark.parametrize(("paste", "kind", "dtypes", "words"), [
    ("RuntimeError: current_scale must be a float tensor.", Kind.LOSS_SCALE, (), "float32"),
    ("RuntimeError: growth_tracker must be an int tensor.", Kind.LOSS_SCALE, (), "int32"),
    ("[Bug] Check failed: data_type_v<T> == dtype_ (f16 vs. bf16)", Kind.SCALAR_TYPE, ("f16", "bf16"), "pin it"),
])
def test_round_fifty_seven_wordings(paste: str, kind: Kind, dtypes: tuple[str, ...], words: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and explanation.dtypes == dtypes and words in explanation.fix


def test_a_check_naming_one_dtype_twice_says_nothing() -> None:
    assert cw.explain("Check failed: data_type_v<T> == dtype_ (f16 vs. f16)") is None


def test_a_dtype_argument_narrower_than_the_input_is_told_to_cast_the_result() -> None:
    explanation = cw.explain("RuntimeError: linalg.vector_norm: the dtype of the input (Float) should be convertible "
                             "without narrowing to the specified dtype (BFloat16)")
    assert explanation.kind is Kind.OP_DTYPE and explanation.dtypes == ("f32", "bf16")
    assert "torch.linalg.vector_norm(g).to(torch.bfloat16)" in explanation.fix


@pytest.mark.parametrize(("paste", "kind", "words"), [
    ("RuntimeError: gather_out_cpu(): Expected dtype int64 for index", Kind.INDEX_TENSOR, "long"),
    ("ValueError: Changing the dtype to a subarray type is only supported if the total itemsize is unchanged",
     Kind.NUMPY_DTYPE, ".astype(dtype)"),
])
def test_round_fifty_eight_wordings(paste: str, kind: Kind, words: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and words in explanation.fix


def test_found_dtype_with_an_out_argument_is_the_out_buffer_s_dtype() -> None:
    def round_into_int_table() -> None:
        table = torch.empty(4, dtype=torch.int32)
        torch.round(torch.rand(4) * 65536, out=table)

    try:
        round_into_int_table()
    except RuntimeError as error:
        explanation = cw.explain(error)
    assert explanation.kind is Kind.INDEXED_WRITE and explanation.dtypes == ("f32", "int32")
    assert "out" in explanation.fix


@pytest.mark.parametrize(("paste", "kind", "words"), [
    ("RuntimeError: Expected isFloatingType(grads[i].type().scalarType()) to be true, but got false.",
     Kind.INTEGER_OPERAND, "mark_non_differentiable"),
    ("RuntimeError: data set to a tensor that requires gradients must be floating point or complex dtype",
     Kind.INTEGER_OPERAND, "register_buffer"),
    ("RuntimeError: Expected object of scalar type Byte but got scalar type Bool for argument #2 'other'", Kind.MASK,
     "mask.bool()"),
])
def test_round_fifty_nine_wordings(paste: str, kind: Kind, words: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and words in explanation.fix


def test_a_parameter_given_integer_data_is_told_live() -> None:
    weight = nn.Parameter(torch.zeros(3))
    try:
        weight.data = torch.zeros(3, dtype=torch.int8)
    except RuntimeError as error:
        explanation = cw.explain(error)
    assert explanation.kind is Kind.INTEGER_OPERAND and "register_buffer" in explanation.fix


@pytest.mark.parametrize(("paste", "dtypes"), [
    ("RuntimeError: mkldnn_reorder_linear_weight: bf16 path needs the cpu support avx512bw, avx512vl and avx512d",
     ("bf16",)),
    ("AssertionError: BF16 weight prepack needs the cpu support avx512bw, avx512vl and avx512dq", ("bf16",)),
    ("RuntimeError: DNNL does not support bf16/f16 backward on the platform with avx2_vnni_2", ("bf16", "f16")),
    ("BlasKernel.cpp:80:29: error: unknown type name 'bfloat16x8_t'; did you mean 'float16x8_t'?", ("bf16",)),
])
def test_a_cpu_or_compiler_without_bf16_instructions_is_told_to_use_float32(paste: str, dtypes: tuple[str, ...]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == dtypes and explanation.device == "cpu"
    assert "float32" in explanation.fix


@pytest.mark.parametrize("paste", [
    "[Rank 0] Overflow detected. Skipping step. Attempted loss scale: 8.0, reducing to 4.0",
    "[INFO] [fused_optimizer.py:316:_update_scale] Reducing dynamic loss scale from 8.0 to 4.0",
    ("Traceback (most recent call last):\n"
     '  File "/site-packages/apex/amp/scaler.py", line 176, in unscale_with_stashed\n'
     "    out_scale/grads_have_scale,\nZeroDivisionError: float division by zero"),
])
def test_older_loss_scaler_logs_and_a_scale_divided_by_zero_are_loss_scaling(paste: str) -> None:
    assert cw.explain(paste).kind is Kind.LOSS_SCALE


def test_a_division_by_zero_outside_unscaling_says_nothing() -> None:
    assert cw.explain("ZeroDivisionError: division by zero") is None


def test_old_arithmetic_between_long_and_float_is_integer_data_in_float_math() -> None:
    explanation = cw.explain("RuntimeError: Expected object of type torch.LongTensor but found type torch.FloatTensor "
                             "for argument #2 'other'")
    assert explanation.kind is Kind.INTEGER_OPERAND and explanation.dtypes == ("int64", "f32")


@pytest.mark.parametrize(("paste", "kind", "dtypes"), [
    ("RuntimeError: \"roll_cuda\" not implemented for 'Bool'", Kind.NO_KERNEL, ("bool",)),
    ("RuntimeError: \"linspace_cpu\" not implemented for 'Long'", Kind.NO_KERNEL, ("int64",)),
    ("RuntimeError: \"add_cuda\" not implemented for 'Bool'", Kind.MASK, ("bool",)),
    ("RuntimeError: s__th_or is not implemented for type CUDABoolType", Kind.NO_KERNEL, ("bool",)),
    ("RuntimeError: _th_normal is not implemented for type torch.LongTensor", Kind.NO_KERNEL, ("int64",)),
])
def test_integer_and_bool_kernels_missing_are_told_by_what_the_op_does(paste: str, kind: Kind,
                                                                       dtypes: tuple[str, ...]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and explanation.dtypes == dtypes



def test_lerp_on_an_integer_tensor_and_a_lowercased_legacy_type_are_read() -> None:
    explanation = cw.explain("RuntimeError: expected dtype long int for `weights` but got dtype float")
    assert explanation.kind is Kind.INTEGER_OPERAND and explanation.dtypes == ("int64", "f32")
    explanation = cw.explain("input type (torch.cuda.floattensor) and weight type (torch.cuda.halftensor) should be the "
                             "same.")
    assert explanation.kind is Kind.CONV_WEIGHT and explanation.dtypes == ("f32", "f16")


@pytest.mark.parametrize("paste", [
    "RuntimeError: \"sum_cpu\" not implemented for 'Bool'",
    "RuntimeError: \"argmax_cpu\" not implemented for 'Bool'",
    "\"where_cpu\"not implemented for 'Bool'",
])
def test_a_bool_kernel_missing_from_an_op_that_takes_bool_data_is_no_kernel(paste: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("bool",)
    assert "update torch" in explanation.fix


def test_a_bool_tensor_in_a_mean_is_still_integer_data_in_float_math() -> None:
    assert cw.explain("RuntimeError: \"mean_cpu\" not implemented for 'Bool'").kind is Kind.INTEGER_OPERAND


def test_pooling_a_bool_mask_is_still_integer_data_in_float_math() -> None:
    assert cw.explain("RuntimeError: \"max_pool2d\" not implemented for 'Bool'").kind is Kind.INTEGER_OPERAND


@pytest.mark.parametrize("paste", [
    'inline_ops_2bf16.cuh(153): error: identifier "__high2bfloat16" is undefined',
    'inline_ops_2bf16.cuh(156): error: no suitable user-defined conversion from "__nv_bfloat162" to "__half2" exists',
])
def test_nvcc_without_bf16_intrinsics_is_told_to_build_for_the_gpu_s_architecture(paste: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("bf16",)
    assert "TORCH_CUDA_ARCH_LIST" in explanation.fix


def test_a_kernel_s_int32_check_on_an_index_tensor_is_told_to_convert_it() -> None:
    explanation = cw.explain("RuntimeError: Expected seq_idx.scalar_type() == torch::kInt32 to be true, but got false.")
    assert explanation.kind is Kind.INDEX_TENSOR and explanation.dtypes == ("int32",)
    assert "seq_idx.to(torch.int32)" in explanation.fix


def test_a_narrowing_dtype_argument_names_the_dtype_it_asked_for() -> None:
    explanation = cw.explain("RuntimeError: linalg.vector_norm: the dtype of the input (Double) should be convertible "
                             "without narrowing to the specified dtype (Float)")
    assert explanation.dtypes == ("f64", "f32") and "torch.linalg.vector_norm(g).to(torch.float32)" in explanation.fix


def test_mm_s_self_and_mat2_check_is_read_through_markdown_underscores() -> None:
    explanation = cw.explain("_RuntimeError: expected self and mat2 to have the same dtype, but got: c10::Half != "
                             "c10::BFloat16_")
    assert explanation.kind is Kind.MATMUL and explanation.dtypes == ("f16", "bf16")
    assert explanation.confidence is Confidence.HIGH


def test_tensordot_s_check_is_read_when_a_paste_cuts_its_last_letter() -> None:
    assert cw.explain("RuntimeError: both inputs should have same dtyp").kind is Kind.MATMUL


@pytest.mark.parametrize(("paste", "names", "said"), [
    ("ValueError: Argument `edge_index` needs to be of type `torch.long` but found type `torch.int32`.",
     ("int32", "int64"), "`edge_index` holds indices of dtype int32"),
    ("IndexError: Only slices (':'), list, tuples, torch.tensor and np.ndarray of dtype long or bool are valid "
     "indices (got 'Tensor')", (), "indexing got indices"),
    ("'assert col.dtype == torch.long' error", ("int64",), "`col` holds indices"),
    ("RuntimeError: convert_indices_from_coo_to_csr_cpu not implemented for Float", ("f32",), "of dtype f32"),
])
def test_an_index_argument_of_another_dtype_is_an_index_tensor_to_convert(paste: str, names: tuple[str, ...],
                                                                          said: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.INDEX_TENSOR and explanation.dtypes == names
    assert said in explanation.cause and "int64" in explanation.cause


def test_argmax_of_a_bool_tensor_is_a_missing_kernel_on_data_it_takes_as_it_is() -> None:
    explanation = cw.explain("RuntimeError: argmax(): does not support bool input")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("bool",)
    assert "takes it as data" in explanation.cause and "mask.to(torch.uint8)" in explanation.fix


def test_a_library_s_unsupported_16_bit_dtype_is_a_missing_kernel() -> None:
    explanation = cw.explain("RuntimeError: un-supported dtype: bfloat16")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("bf16",)


@pytest.mark.parametrize(("arguments", "names", "capability"), [
    ("(__half *, c10::Half)", ("f16",), "TORCH_CUDA_ARCH_LIST=7.0"),
    ("(__nv_bfloat16 *, c10::BFloat16)", ("bf16",), "TORCH_CUDA_ARCH_LIST=8.0"),
])
def test_nvcc_without_a_16_bit_atomic_add_is_told_to_build_for_the_gpu_s_architecture(
        arguments: str, names: tuple[str, ...], capability: str) -> None:
    explanation = cw.explain('kernel.cu(958): error: no instance of overloaded function "atomicAdd" matches the '
                             f"argument list\n            argument types are: {arguments}")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == names and capability in explanation.fix


def test_nvcc_s_atomic_add_error_without_its_argument_types_is_not_explained() -> None:
    assert cw.explain('error: no instance of overloaded function "atomicAdd" matches the argument list') is None


def test_a_nan_loss_in_code_markup_is_still_a_nan_loss() -> None:
    explanation = cw.explain("ValueError: Quantization: Failed due to `NaN` loss for `self_attn.q_proj`")
    assert explanation.kind is Kind.NONFINITE


def test_torchao_without_a_kernel_for_a_quantized_linear_is_a_missing_kernel() -> None:
    explanation = cw.explain("QuantizedLinearNotImplementedError when inference with "
                             "Int8DynamicActivationInt4WeightConfig")
    assert explanation.kind is Kind.NO_KERNEL and "torchao" in explanation.cause


def test_a_quantized_op_on_a_gpu_device_is_told_the_eager_int8_kernels_are_the_cpu_s() -> None:
    explanation = cw.explain("NotImplementedError: The operator 'quantized::linear_dynamic' is not currently "
                             "implemented for the XPU device. Please open a feature on "
                             "https://github.com/intel/torch-xpu-ops/issues.")
    assert explanation.kind is Kind.NO_KERNEL and explanation.device == "xpu"
    assert "CPU" in explanation.cause and "quantized::linear_dynamic" in explanation.cause


def test_two_integer_dtypes_in_a_gru_are_a_packed_sequence_s_batch_sizes() -> None:
    lengths = torch.tensor([4, 3, 1])
    batch_sizes = (lengths[None, :] > torch.arange(4)[:, None]).sum(1).to(torch.int32)
    packed = nn.utils.rnn.PackedSequence(torch.randn(8, 8), batch_sizes)
    with pytest.raises(RuntimeError) as raised:
        nn.GRU(8, 16)(packed)
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.INDEX_TENSOR and set(explanation.dtypes) == {"int64", "int32"}
    assert "batch_sizes" in explanation.cause and "pack_padded_sequence" in explanation.fix


@pytest.mark.parametrize(("paste", "kind", "names"), [
    ("Type Error: Type parameter (T) of Optype (LayerNormalization) bound to different types (tensor(float16) and "
     "tensor(float)) in node (n0_16).", Kind.NORM_PARAM, ("f16", "f32")),
    ("Load model failed:Type Error: Type parameter\n(T) bound to different types (tensor(float) and tensor(float16) "
     "in node (Add_11).", Kind.SCALAR_TYPE, ("f32", "f16")),
    ("Type Error: Type parameter (T) of Optype (LayerNormalization) bound to different types\n(tensor(float) and "
     "tensor(float16) in node\n(/model/encoder/layer.0/attention/output/LayerNorm/LayerNormalization).",
     Kind.NORM_PARAM, ("f32", "f16")),
])
def test_onnxruntime_s_bound_types_are_read_by_operator_type_and_across_a_wrapped_line(
        paste: str, kind: Kind, names: tuple[str, ...]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and explanation.dtypes == names


def test_an_onnx_output_type_check_with_an_unnamed_node_names_the_output() -> None:
    explanation = cw.explain("FAIL : Type Error: Type (tensor(float)) of output arg (CastDef_19) of node () does not "
                             "match expected type (tensor(float16))")
    assert explanation.kind is Kind.SCALAR_TYPE and explanation.dtypes == ("f32", "f16")
    assert "node writing CastDef_19" in explanation.cause


@pytest.mark.parametrize("paste", [
    "[ONNXRuntimeError] : 9 : NOT_IMPLEMENTED : Could not find an implementation for Conv(11) node with name 'Conv_0'",
    "[ONNXRuntimeError] : 9 : NOT_IMPLEMENTED : Could not find an implementation for ConvTranspose(11) node with name "
    "'ConvTranspose_3'",
    "[ONNXRuntimeError] : 1 : FAIL : Failed to find kernel for Sub",
])
def test_onnxruntime_without_an_operator_s_kernel_and_no_dtype_said_is_a_missing_kernel_said_with_doubt(
        paste: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.NO_KERNEL and explanation.confidence is Confidence.LOW
    assert explanation.dtypes == () and "float32" in explanation.fix


def test_a_gemm_without_a_kernel_for_its_input_and_output_pair_names_both() -> None:
    explanation = cw.explain("RuntimeError: bgemm input type at::Half and output type float is not supported for ROCm")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("f16", "f32")
    assert "input f16 and output f32" in explanation.cause


def test_a_retyped_index_put_check_with_a_singular_dtype_is_read() -> None:
    explanation = cw.explain("Runtime Error: Index put requires the source and destination dtype match, got Float for "
                             "the destination and BFloat16 for the source.")
    assert explanation.kind is Kind.INDEXED_WRITE and explanation.dtypes == ("f32", "bf16")


def test_autocast_on_a_device_it_does_not_cover_is_told_to_convert_explicitly() -> None:
    explanation = cw.explain("RuntimeError: User specified autocast device_type must be 'cuda' or 'cpu'")
    assert explanation.kind is Kind.NO_KERNEL and "model.half()" in explanation.fix


def test_a_bf16_symbol_missing_from_a_compiled_library_is_a_build_to_match() -> None:
    explanation = cw.explain("OSError: libbitsandbytes_rocm62.so: undefined symbol: "
                             "_Z36__device_stub__kOptimizer32bit1StateI12hip_bfloat16Li2EEvPT_")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("bf16",)
    assert explanation.confidence is Confidence.LOW


def test_faiss_refusing_an_array_as_a_float_pointer_is_told_to_pass_float32() -> None:
    explanation = cw.explain("TypeError: in method 'GpuIndexIVFFlat_train', argument 3 of type 'float const *'")
    assert explanation.kind is Kind.NUMPY_DTYPE and "dtype=np.float32" in explanation.fix



@pytest.mark.parametrize(("paste", "names"), [
    ("TypeError: can't convert np.ndarray of type numpy.uint16.", ("uint16",)),
    ("convert the data into torch.tensor give this error: can't convert np.ndarray of type numpy.uint16", ("uint16",)),
])
def test_numpy_s_refusal_cut_before_its_list_of_supported_types_is_read(paste: str, names: tuple[str, ...]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.NUMPY_DTYPE and explanation.dtypes == names
    assert "before 2.3" in explanation.cause


def test_a_numpy_time_array_is_told_to_become_numbers_in_a_unit() -> None:
    gaps = np.diff(np.array(["2024-01-01", "2024-01-05"], dtype="datetime64[D]"))
    with pytest.raises(TypeError) as raised:
        torch.from_numpy(gaps)
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.NUMPY_DTYPE and "np.timedelta64(1, 'D')" in explanation.fix


@pytest.mark.parametrize(("paste", "names", "op"), [
    ("TypeError: Input type uint16 is not supported", ("uint16",), "to_pil_image"),
    ("TypeError: Cannot handle this data type: (1, 1), <i8", ("int64",), "PIL Image.fromarray"),
    ("TypeError: Image data of dtype object cannot be converted to float", (), "matplotlib imshow"),
])
def test_images_made_from_arrays_pil_or_matplotlib_cannot_take(paste: str, names: tuple[str, ...], op: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.INTEGER_OPERAND and explanation.dtypes == names and explanation.op == op


def test_pil_refusing_a_uint8_array_for_its_channel_count_is_not_a_dtype_error() -> None:
    assert cw.explain("TypeError: Cannot handle this data type: (1, 1, 800), |u1") is None


def test_torchaudio_s_writer_without_a_bf16_format_is_told_to_save_float32() -> None:
    explanation = cw.explain("No format found for dtype torch.bfloat16; dtype must be one of [torch.uint8, "
                             "torch.int16, torch.int32, torch.int64, torch.float32, torch.float64].")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("bf16",)
    assert "wav.float()" in explanation.fix


def test_mkl_fft_s_message_cut_before_its_dtype_names_none() -> None:
    explanation = cw.explain("RuntimeError: MKL FFT doesn't support tensor of type")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ()


def test_a_sampler_given_integer_rates_is_told_to_give_it_floats() -> None:
    with pytest.raises(NotImplementedError) as raised:
        torch.poisson(torch.full((3,), 100))
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("int64",)
    assert "rates.float()" in explanation.fix


@pytest.mark.parametrize(("paste", "kind"), [
    ("RuntimeError: \"upsample_bilinear2d_channels_last\" not implemented for 'Byte'", Kind.INTEGER_OPERAND),
    ("RuntimeError: \"upsample_nearest2d_out_frame\" not implemented for 'Byte'", Kind.INTEGER_OPERAND),
    ("NotImplementedError: \"upsample_bicubic2d_xpu\" not implemented for 'Byte'", Kind.NO_KERNEL),
])
def test_resizing_uint8_is_integer_data_in_float_math_except_where_a_device_lacks_the_kernel(
        paste: str, kind: Kind) -> None:
    assert cw.explain(paste).kind is kind


def test_a_trainer_skipping_an_update_on_a_nan_grad_norm_under_amp_is_loss_scaling() -> None:
    explanation = cw.explain("The grad norm is nan when set use_amp=True\n\nWARNING: The grad norm is nan. Skipping "
                             "updating the model")
    assert explanation.kind is Kind.LOSS_SCALE


def test_a_trainer_skipping_an_update_on_a_nan_grad_norm_without_amp_is_not_loss_scaling() -> None:
    assert cw.explain("WARNING: The grad norm is nan. Skipping updating the model") is None


def test_apex_finding_a_buffer_on_the_cpu_is_a_device_problem_first() -> None:
    explanation = cw.explain("RuntimeError: Found buffer total_ops with type torch.DoubleTensor, expected "
                             "torch.cuda.FloatTensor.")
    assert explanation.kind is Kind.DEVICE_MISMATCH and explanation.dtypes == ("f64", "f32")
    assert "total_ops" in explanation.cause


def test_torchvision_s_bit_depth_transform_on_a_float_image_is_told_to_run_on_uint8() -> None:
    explanation = cw.explain("TypeError: Number of value bits is only defined for integer dtypes, but got "
                             "torch.float32.")
    assert explanation.kind is Kind.INTEGER_OPERAND and explanation.dtypes == ("f32",)
    assert "RandomInvert" in explanation.fix


def test_a_numpy_structured_array_is_told_to_unpack_its_fields() -> None:
    points = np.zeros(3, dtype=[("x", "f4"), ("y", "f4"), ("z", "f4")])
    with pytest.raises(TypeError) as raised:
        torch.from_numpy(points)
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.NUMPY_DTYPE and "structured" in explanation.cause
    assert "structured_to_unstructured" in explanation.fix


def test_a_kernel_written_for_one_dtype_names_both_the_one_it_reads_and_the_one_it_got() -> None:
    explanation = cw.explain("RuntimeError: expected scalar type Float but found Half (data_ptr<float> at "
                             "/tmp/torch/include/ATen/core/TensorMethods.h:5747)")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("f32", "f16")


def test_a_kernel_that_runs_only_in_fp16_or_bf16_said_with_a_slash_names_the_float32_it_got() -> None:
    explanation = cw.explain("[Bug]: DSL kernel only supports fp16/bf16 inputs when using torch.float32 dtype")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("f32",)


def test_mm_s_check_said_as_the_same_type_is_a_matmul() -> None:
    assert cw.explain("RuntimeError: mat1 and mat2 must have the same type").kind is Kind.MATMUL


def test_torch_s_rnn_input_check_is_a_recurrent_layer_s_two_dtypes() -> None:
    with pytest.raises((ValueError, RuntimeError)) as raised:
        nn.GRU(4, 8)(torch.randn(3, 2, 4, dtype=torch.float64))
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.RNN and set(explanation.dtypes) == {"f64", "f32"}


def test_a_kernel_s_check_that_two_tensors_share_a_dtype_is_an_op_given_two() -> None:
    explanation = cw.explain("RuntimeError: Expected x1.dtype() == cos.dtype() to be true, but got false.")
    assert explanation.kind is Kind.OP_DTYPE and "cos.to(x1.dtype)" in explanation.fix


def test_scaled_mm_with_a_bias_and_a_float32_output_is_a_missing_kernel() -> None:
    explanation = cw.explain("SamplerCustomAdvanced Bias is not supported when out_dtype is set to Float32")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("f32",)
    assert "out_dtype=torch.bfloat16" in explanation.fix


def test_promoting_a_uint16_tensor_is_told_to_convert_it_when_loaded() -> None:
    with pytest.raises(RuntimeError) as raised:
        torch.cat([torch.tensor([1]), torch.tensor([2], dtype=torch.uint16)])
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.NO_KERNEL and set(explanation.dtypes) == {"int64", "uint16"}
    assert ".long()" in explanation.fix


def test_tensor_split_at_float_boundaries_is_an_index_tensor() -> None:
    with pytest.raises(RuntimeError) as raised:
        torch.arange(10).tensor_split(torch.tensor([3.0, 7.0]))
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.INDEX_TENSOR and explanation.dtypes == ("f32",)


def test_a_lora_kernel_without_an_input_and_output_dtype_pair_names_both() -> None:
    explanation = cw.explain("RuntimeError: No suitable kernel. h_in=16 h_out=4096 dtype=Float out_dtype=Half")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("f32", "f16")
    assert explanation.cause.startswith("a library has no kernel for input f32 and output f16")


def test_an_npu_library_without_fp8_support_is_a_missing_kernel() -> None:
    explanation = cw.explain("terminate called after throwing an instance of 'c10::Error'\n  what():  Float8_e4m3fn "
                             "has not been supported")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("float8_e4m3fn",)


def test_reflection_padding_of_a_bool_mask_is_a_data_op_without_a_bool_kernel() -> None:
    with pytest.raises(NotImplementedError) as raised:
        F.pad(torch.ones(1, 1, 4, 4, dtype=torch.bool), (1, 1, 1, 1), mode="reflect")
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("bool",)
    assert "moves or makes data" in explanation.cause


def test_torch_s_cpp_names_of_complex_dtypes_are_read() -> None:
    explanation = cw.explain("RuntimeError: expected m1 and m2 to have the same dtype, but got: c10::complex<double> != "
                             "c10::complex<float>")
    assert explanation.kind is Kind.MATMUL and explanation.dtypes == ("complex128", "complex64")


def test_a_float_slice_bound_is_an_index_of_the_wrong_type() -> None:
    kernel = torch.randn(8, 8, 7, 7)
    with pytest.raises(TypeError) as raised:
        kernel[..., (7 - 5) / 2:(7 + 5) / 2]
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.INDEX_TENSOR and "//" in explanation.fix


def test_an_op_that_expected_int16_data_and_found_a_float_weight_got_integer_data() -> None:
    explanation = cw.explain("RuntimeError: expected scalar type Short but found Float")
    assert explanation.kind is Kind.INTEGER_OPERAND and explanation.dtypes == ("int16", "f32")
    assert ".float()" in explanation.fix
    long_index = cw.explain("RuntimeError: expected scalar type Long but found Float")
    assert long_index.kind is Kind.INDEX_TENSOR and long_index.confidence is Confidence.LOW


def test_index_add_in_the_wording_that_names_no_dtypes_is_an_indexed_write() -> None:
    explanation = cw.explain("RuntimeError: index_add_(): self and source must have the same scalar type")
    assert explanation.kind is Kind.INDEXED_WRITE and explanation.dtypes == ()


def test_a_python_object_torch_cannot_read_a_dtype_from_is_named() -> None:
    with pytest.raises(RuntimeError) as raised:
        torch.tensor({"image": 1})
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.NUMPY_DTYPE and "`dict`" in explanation.cause and explanation.dtypes == ()
    assert "sample['image']" in explanation.fix
    assert cw.explain("RuntimeError: Could not infer dtype of numpy.float32").op == "torch.tensor from numpy scalars"


def test_invalid_scalar_type_without_gloo_is_a_type_list_lacking_the_dtype_said_with_low_confidence() -> None:
    explanation = cw.explain("LLaMA 13B fails on CPU with BF16\n\nRuntimeError: Invalid scalar type")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("bf16",)
    assert explanation.confidence is Confidence.LOW and "gloo" in explanation.culprit
    with_gloo = cw.explain("all_reduce of bf16 with the gloo backend\nRuntimeError: Invalid scalar type")
    assert with_gloo.op == "gloo collective" and with_gloo.confidence is Confidence.HIGH


def test_an_onnx_model_fed_integer_data_where_it_takes_floats_is_told_to_convert_it() -> None:
    explanation = cw.explain("onnxruntime.capi.onnxruntime_pybind11_state.InvalidArgument: [ONNXRuntimeError] : 2 : "
                             "INVALID_ARGUMENT : Unexpected input data type. Actual: (tensor(int16)) , expected: "
                             "(tensor(float16))")
    assert explanation.kind is Kind.SCALAR_TYPE and explanation.dtypes == ("int16", "f16")
    assert "x.astype(np.float16)" in explanation.fix and "32768" in explanation.fix


def test_old_torch_naming_the_cpu_backend_of_a_missing_half_kernel_says_the_model_runs_on_the_cpu() -> None:
    explanation = cw.explain("RuntimeError: _th_admm_out not supported on CPUType for Half")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("f16",)
    assert "on the CPU" in explanation.cause and "fp32" in explanation.fix


def test_triton_lacking_a_conversion_on_an_older_gpu_names_both_dtypes() -> None:
    explanation = cw.explain("Unsupported conversion from bf16 to f16\nLLVM ERROR: Unsupported rounding mode for "
                             "conversion.")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("bf16", "f16")
    assert "Ampere" in explanation.cause
    fp8 = cw.explain("Unsupported conversion from f8E4M3FN to f16")
    assert fp8.dtypes == ("float8_e4m3fn", "f16")


def test_inf_encountered_in_a_library_s_check_of_its_predictions_is_a_non_finite_value() -> None:
    explanation = cw.explain("RuntimeError: Encountered inf in predicted array")
    assert explanation.kind is Kind.NONFINITE and explanation.cause.startswith("inf values appeared")


def test_rllib_s_observation_outside_its_space_is_a_numpy_dtype_said_with_low_confidence() -> None:
    explanation = cw.explain("ERROR multi_agent_env_runner.py:843 -- The observation collected from env.reset was not "
                             "contained within your env's observation space. Its possible that there was a "
                             "typemismatch (for example observations of np.float32 and a space ofnp.float64 "
                             "observations), or that one of the sub-observations wasout of bounds")
    assert explanation.kind is Kind.NUMPY_DTYPE and explanation.dtypes == ("f32", "f64")
    assert explanation.confidence is Confidence.LOW and "astype(np.float32)" in explanation.fix


def test_masks_of_two_torch_eras_combined_may_also_be_run_on_the_torch_they_were_written_for() -> None:
    explanation = cw.explain("RuntimeError: Expected object of scalar type Byte but got scalar type Bool for sequence "
                             "element")
    assert explanation.kind is Kind.MASK and "torch version the code was written for" in explanation.fix


def test_two_floating_dtypes_said_to_mismatch_with_a_slash_are_read() -> None:
    explanation = cw.explain("Spandrel doesn't support bf16\n\n> passing a bfloat16 model to spandrel results in "
                             "float/bfloat16 mismatch errors")
    assert explanation.kind is Kind.SCALAR_TYPE and explanation.dtypes == ("f32", "bf16")
    assert explanation.confidence is Confidence.LOW


def test_a_mask_constant_past_fp16_s_range_said_beside_fp16_is_an_overflow() -> None:
    explanation = cw.explain("How to use fp16 training with masked operations\n\nOn float32 training, I'm masking "
                             "with -1e20 value, and it seems to be training fine. Unfortunately, when training with "
                             "float16 and masking with -1e15, amp loss scaling always returns NaN for gradients.")
    assert explanation.kind is Kind.VALUE_OVERFLOW and explanation.dtypes == ("f16",)
    assert "-1e15" in explanation.cause and "finfo" in explanation.fix
    assert cw.explain("masking with -1e20 in float32 training works") is None


def test_a_result_said_to_come_out_in_the_wrong_dtype_is_not_read_as_drifted_values() -> None:
    explanation = cw.explain("torch.compile with bfloat16\n\nWith torch.compile, the dtype for randn output is wrong."
                             "\n\n```\nExpected: torch.bfloat16\nOutput: torch.float32\n```")
    assert explanation.kind is Kind.SCALAR_TYPE and explanation.dtypes == ("bf16", "f32")
    assert "torch.compiler.disable" in explanation.fix
    commented = cw.explain("template = {'w': torch.zeros(4, dtype=torch.bfloat16)}  # wrong dtype\nprecision is lost "
                           "in bf16")
    assert commented is None or commented.kind is not Kind.SCALAR_TYPE


def test_a_convolution_whose_input_differs_in_device_and_dtype_names_both() -> None:
    explanation = cw.explain("RuntimeError: Input type (torch.FloatTensor) and weight type (torch.cuda.HalfTensor) "
                             "should be the same")
    assert explanation.kind is Kind.CONV_WEIGHT and explanation.dtypes == ("f32", "f16")
    assert explanation.confidence is Confidence.LOW and "device" in explanation.cause
    assert "x.to(device=layer.weight.device, dtype=layer.weight.dtype)" in explanation.fix
    same_dtype = cw.explain("RuntimeError: Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) "
                            "should be the same")
    assert same_dtype.kind is Kind.DEVICE_MISMATCH


def test_an_operator_missing_on_the_xpu_device_is_a_missing_kernel_said_with_low_confidence() -> None:
    explanation = cw.explain("NotImplementedError: The operator 'torch_ipex::ipex_woq_linear' is not currently "
                             "implemented for the XPU device. Please open a feature on "
                             "https://github.com/intel/torch-xpu-ops/issues.")
    assert explanation.kind is Kind.NO_KERNEL and explanation.op == "torch_ipex::ipex_woq_linear"
    assert explanation.confidence is Confidence.LOW and "PYTORCH_ENABLE_XPU_FALLBACK=1" in explanation.fix
    quantized = cw.explain("NotImplementedError: The operator 'quantized::linear_dynamic' is not currently implemented "
                           "for the XPU device.")
    assert "torch.ao quantized" in quantized.cause


def test_lstsq_s_own_check_is_read_when_the_paste_cuts_its_name_off() -> None:
    explanation = cw.explain("(BUG) Expected input and other to have the same dtype, but got input's dtype Float and "
                             "other's dtype Double")
    assert explanation.kind is Kind.OP_DTYPE and explanation.dtypes == ("f32", "f64")
    assert explanation.op == "torch.linalg.lstsq"


def test_faiss_ids_of_another_dtype_than_int64_are_a_numpy_dtype() -> None:
    explanation = cw.explain("TypeError: in method 'GpuIndex_add_with_ids', argument 4 of type 'faiss::Index::idx_t "
                             "const *'")
    assert explanation.kind is Kind.NUMPY_DTYPE and "dtype=np.int64" in explanation.fix
    vectors = cw.explain("TypeError: in method 'IndexIDMap_add_with_ids', argument 3 of type "
                         "'faiss::IndexIDMapTemplate< faiss::Index >::component_t const *'")
    assert vectors.kind is Kind.NUMPY_DTYPE and "dtype=np.float32" in vectors.fix


def test_a_failed_float32_assertion_of_a_library_given_fp16_is_a_missing_kernel() -> None:
    explanation = cw.explain("Cannot use float16 tensors with faiss\n\ngidx.train(bank) # AssertionError ---> 49     "
                             "assert x.dtype == torch.float32")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("f16", "f32")
    assert explanation.confidence is Confidence.HIGH and "x.to(torch.float32)" in explanation.fix
    passing = cw.explain("with bf16 weights\n    assert x.dtype == torch.float32")
    assert passing.confidence is Confidence.LOW


def test_a_triton_path_only_on_ampere_is_a_missing_kernel_of_an_older_gpu() -> None:
    explanation = cw.explain("[Bug]: dtype float16 Failure to use enable-chunked-prefill\n\nAssertion `!(srcMmaLayout "
                             "&& dstMmaLayout && !srcMmaLayout.isAmpere()) && \"mma -> mma layout conversion is only "
                             "supported on Ampere\"' failed.")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("f16",)
    assert explanation.confidence is Confidence.LOW and "Ampere" in explanation.cause


def test_a_frameless_float_op_given_int64_may_have_met_an_integer_constant() -> None:
    explanation = cw.explain("RuntimeError: expected scalar type float but found long int")
    assert explanation.kind is Kind.INTEGER_OPERAND and explanation.confidence is Confidence.LOW
    assert "`0.0`" in explanation.fix and "torch.tensor(0)" in explanation.culprit


def test_a_median_without_a_bool_kernel_takes_bool_as_data() -> None:
    with pytest.raises((NotImplementedError, RuntimeError)) as raised:
        torch.ones(5, dtype=torch.bool).median()
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.NO_KERNEL and "the kernel is missing" in explanation.cause


def test_two_integer_widths_in_a_matmul_are_the_matmul_s_mismatch() -> None:
    explanation = cw.explain("out = torch.addmm(a, b, c)\nRuntimeError: expected scalar type Long but found Int")
    assert explanation.kind is Kind.MATMUL and explanation.dtypes == ("int64", "int32")
    assert ".long()" in explanation.fix


def test_graph_ids_of_another_integer_width_than_the_graph_are_an_index_tensor() -> None:
    explanation = cw.explain("dgl._ffi.base.DGLError: Expect argument \"edges[\"('user', 'buys', 'item')\"]\" to have "
                             "data type torch.int64. But got torch.int32.")
    assert explanation.kind is Kind.INDEX_TENSOR and explanation.dtypes == ("int32", "int64")
    assert "g.idtype" in explanation.fix


def test_pyg_s_edge_index_check_is_an_index_tensor_that_may_be_none() -> None:
    explanation = cw.explain("ValueError: `MessagePassing.propagate` only supports `torch.LongTensor` of shape `[2, "
                             "num_messages]` or `torch_sparse.SparseTensor` for argument `edge_index`.")
    assert explanation.kind is Kind.INDEX_TENSOR and explanation.dtypes == ("int64",)
    assert "None" in explanation.cause


def test_a_result_cast_spelled_without_its_space_is_read() -> None:
    explanation = cw.explain("RuntimeError: result type Floatcan't be cast to the desired output type Long")
    assert explanation.kind is Kind.RESULT_CAST and explanation.dtypes == ("f32", "int64")


def test_dgl_s_kernel_that_needs_float_features_names_the_integer_ones_the_paste_shows() -> None:
    explanation = cw.explain("print(dataset[0])  # edge_labels: Scheme(shape=(1,), dtype=torch.int64)\nDGLError: "
                             "[20:27:03] /opt/dgl/src/array/kernel.cc:38: Check failed: (out->dtype).code == kDLFloat")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("int64",)
    assert ".float()" in explanation.fix


def test_imag_of_a_real_tensor_is_told_to_keep_it_complex() -> None:
    with pytest.raises(RuntimeError) as raised:
        torch.imag(torch.ones(3))
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.NO_KERNEL and "complex64" in explanation.fix


def test_a_quantized_model_cast_after_loading_is_told_to_set_the_dtype_when_loading() -> None:
    explanation = cw.explain("ValueError: Casting a quantized model to a new `dtype` is unsupported. To set the dtype "
                             "of unquantized layers, please use the `torch_dtype` argument")
    assert explanation.kind is Kind.SCALAR_TYPE and "torch_dtype=" in explanation.fix


def test_torch_s_int4_matmul_given_float32_activations_is_a_missing_kernel() -> None:
    explanation = cw.explain("RuntimeError: _weight_int4pack_mm_cpu : expect A to be float16 or bfloat16 tensor.")
    assert explanation.kind is Kind.NO_KERNEL and explanation.op == "_weight_int4pack_mm_cpu"
    assert "float16 or bfloat16" in explanation.cause and "update torch" in explanation.fix


def test_a_loss_said_inf_beside_gradient_overflow_is_the_loss_scaler() -> None:
    explanation = cw.explain("I train Jasper ASR but the loss is inf and Gradient overflow. How should I solve it.")
    assert explanation.kind is Kind.LOSS_SCALE and "learning rate" in explanation.fix


def test_a_scale_that_keeps_falling_under_amp_is_the_loss_scale_with_one_scale_per_loss() -> None:
    explanation = cw.explain("weird behavior when trying to use amp\n\nthe scale keeps decreasing 'forever'")
    assert explanation.kind is Kind.LOSS_SCALE and "num_losses=" in explanation.fix
    assert cw.explain("the scale keeps decreasing as the image shrinks") is None


def test_istft_given_a_real_spectrogram_is_told_to_make_it_complex() -> None:
    with pytest.raises(RuntimeError) as raised:
        torch.istft(torch.randn(65, 10, 2), n_fft=128, window=torch.hann_window(128))
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.OP_DTYPE and "view_as_complex" in explanation.fix


def test_float64_data_beside_a_float32_transform_may_also_convert_the_transform() -> None:
    explanation = cw.explain("RuntimeError: expected scalar type Double but found Float")
    assert "transform.to(torch.float64)" in explanation.fix


def test_matmul_s_check_with_its_dtypes_in_parentheses_is_read() -> None:
    explanation = cw.explain("RuntimeError: self and mat2 must have the same dtype (Half and BFloat16)")
    assert explanation.kind is Kind.MATMUL and explanation.dtypes == ("f16", "bf16")


def test_a_floating_point_exception_in_a_chinese_locale_is_a_crash() -> None:
    explanation = cw.explain("my config: bf16=True\n浮点数例外(吐核)")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("bf16",)
    assert explanation.confidence is Confidence.LOW


def test_ranks_running_one_collective_in_two_dtypes_are_named() -> None:
    explanation = cw.explain("RuntimeError: Detected mismatch between collectives on ranks. Rank 7 is running "
                             "collective: CollectiveFingerPrint(SequenceNumber=5, OpType=_ALLGATHER_BASE, "
                             "TensorShape=[1], TensorDtypes=BFloat16), but Rank 4 is running collective: "
                             "CollectiveFingerPrint(SequenceNumber=5, OpType=_ALLGATHER_BASE, TensorShape=[1], "
                             "TensorDtypes=Float)")
    assert explanation.kind is Kind.SCALAR_TYPE and explanation.dtypes == ("bf16", "f32")
    one_dtype = ("RuntimeError: Detected mismatch between collectives on ranks. Rank 1 is running collective: "
                 "CollectiveFingerPrint(OpType=BROADCAST, TensorShape=[4], TensorDtypes=Float), but Rank 0 is running "
                 "collective: CollectiveFingerPrint(OpType=BROADCAST, TensorShape=[8], TensorDtypes=Float)")
    assert cw.explain(one_dtype) is None


def test_triton_casting_bytes_to_fp8_by_value_is_told_to_bitcast() -> None:
    explanation = cw.explain("CompilationError: cannot cast uint8 to fp8e4nv")
    assert explanation.kind is Kind.SCALAR_TYPE and explanation.dtypes == ("uint8", "float8_e4m3fn")
    assert "bitcast=True" in explanation.fix
    assert cw.explain("CompilationError: cannot cast uint8 to fp8e5").dtypes == ("uint8", "float8_e5m2")


def test_autocast_without_an_extension_s_kernel_or_a_dtype_it_knows_is_a_missing_kernel() -> None:
    unregistered = cw.explain("RuntimeError: Unrecognized tensor type ID: Autocast")
    assert unregistered.kind is Kind.NO_KERNEL and "torchvision" in unregistered.fix
    bf16 = cw.explain("RuntimeError: Unexpected floating ScalarType in at::autocast::prioritize")
    assert bf16.kind is Kind.NO_KERNEL and "1.10" in bf16.fix


def test_no_kernel_image_for_the_gpu_is_a_build_without_its_architecture() -> None:
    explanation = cw.explain("Error no kernel image is available for execution on the device at line 167 in file "
                             "D:\\ai\\bitsandbytes\\csrc\\ops.cu")
    assert explanation.kind is Kind.NO_KERNEL and explanation.confidence is Confidence.LOW
    assert "TORCH_CUDA_ARCH_LIST" in explanation.fix


def test_a_paraphrased_missing_float8_kernel_and_fp8_matmul_beside_lora_are_missing_kernels() -> None:
    paraphrased = cw.explain("the error is r2.weight addmm_cuda not implemented for float8")
    assert paraphrased.kind is Kind.NO_KERNEL and "a tensor of a dtype it lacks" in paraphrased.culprit
    lora = cw.explain("!!! Exception during processing !!! FP8 matmul with unmerged LoRAs is not supported")
    assert lora.kind is Kind.NO_KERNEL and "merge" in lora.fix


def test_a_detection_model_given_uint8_images_is_told_to_scale_them() -> None:
    explanation = cw.explain("TypeError: Expected input images to be of floating type (in range [0, 1]), but found "
                             "type torch.uint8 instead")
    assert explanation.kind is Kind.INTEGER_OPERAND and explanation.dtypes == ("uint8",)
    assert "/ 255" in explanation.fix


def test_numpy_s_in_place_ufunc_that_cannot_cast_back_is_a_numpy_dtype() -> None:
    with pytest.raises(TypeError) as raised:
        coords = np.arange(4)
        coords *= 0.5
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.NUMPY_DTYPE and explanation.dtypes == ("f64", "int64")
    assert "arr = arr * scale" in explanation.fix


def test_an_old_torch_refusing_a_bool_array_is_told_to_make_masks_uint8() -> None:
    explanation = cw.explain("TypeError: can't convert np.ndarray of type numpy.bool_. The only supported types are: "
                             "double, float, float16, int64, int32, and uint8.")
    assert "astype(np.uint8)" in explanation.fix and "on the supported list" not in explanation.cause


def test_simpletuner_s_dtype_and_optimizer_check_lists_its_own_options() -> None:
    explanation = cw.explain("ValueError: Your configuration is requesting an incompatible dtype and optimizer "
                             "combination.")
    assert explanation.kind is Kind.OP_DTYPE and "--adam_bfloat16" in explanation.fix


def test_backward_from_a_complex_value_or_a_complex_gradient_for_a_real_input_is_a_loss_dtype() -> None:
    with pytest.raises(RuntimeError) as raised:
        (torch.randn(3, dtype=torch.complex64, requires_grad=True) * 2).sum().backward()
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.LOSS_DTYPE and explanation.dtypes == ("complex64",)
    assert "loss.real.backward()" in explanation.fix
    adjoint = cw.explain("RuntimeError: Expected isFloatingType(grad.scalar_type()) || (input_is_complex == "
                         "grad_is_complex) to be true, but got false.")
    assert adjoint.kind is Kind.LOSS_DTYPE and "grad.real" in adjoint.fix


def test_a_float_index_given_to_index_select_is_an_index_tensor_not_a_missing_kernel() -> None:
    explanation = cw.explain("RuntimeError: \"index_select_out_cuda_impl\" not implemented for 'Float'")
    assert explanation.kind is Kind.INDEX_TENSOR and explanation.dtypes == ("f32",)
    half = cw.explain("RuntimeError: \"index_select_out_cpu_\" not implemented for 'Half'")
    assert half.kind is Kind.NO_KERNEL


def test_a_jit_built_extension_with_bf16_kernels_that_failed_to_build_is_a_missing_kernel() -> None:
    explanation = cw.explain("RuntimeError: Error building extension 'wkv_1024_bf16'")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("bf16",)
    assert explanation.confidence is Confidence.LOW and "TORCH_CUDA_ARCH_LIST" in explanation.fix
    assert cw.explain("RuntimeError: Error building extension 'fused_adam'") is None


def test_torch_ao_quantization_errors_of_older_torch_are_read() -> None:
    stub = cw.explain("Could not run 'quantized::conv2d' with arguments from the 'CPUTensorId' backend. "
                      "'quantized::conv2d' is only available for these backends: [QuantizedCPUTensorId].")
    assert stub.kind is Kind.NO_KERNEL and "QuantStub" in stub.fix
    arithmetic = cw.explain("RuntimeError: Unimplemented backend QuantizedCPU")
    assert arithmetic.kind is Kind.NO_KERNEL and "FloatFunctional" in arithmetic.fix
    engine = cw.explain("RuntimeError: Didn't find engine for operation quantized::linear_prepack NoQEngine")
    assert engine.kind is Kind.NO_KERNEL and "'qnnpack'" in engine.fix
    half = cw.explain("model.half()\nRuntimeError: quantize only works on Float Tensor.")
    assert half.kind is Kind.NO_KERNEL and half.dtypes == ("f16",)
    onednn = cw.explain("RuntimeError: quantized::conv2d_relu (ONEDNN): data type of input should be QUint.")
    assert onednn.kind is Kind.NO_KERNEL and "qnnpack" in onednn.cause
    prepacked = cw.explain("RuntimeError: Could not run 'prepacked::conv2d_clamp_run' with arguments from the "
                           "'QuantizedCPU' backend.")
    assert prepacked.kind is Kind.NO_KERNEL


def test_an_onnx_package_without_fp8_types_is_told_to_update() -> None:
    explanation = cw.explain("AttributeError: FLOAT8E4M3FN")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("float8_e4m3fn",)
    assert "pip install -U onnx" in explanation.fix


def test_a_c_buffer_type_named_with_const_and_t_is_read() -> None:
    explanation = cw.explain("ValueError: Buffer dtype mismatch, expected 'const float32_t' but got 'double'")
    assert explanation.dtypes == ("f32", "f64")


def test_guided_diffusion_s_lowered_log2_scale_is_a_skip_unless_the_loss_itself_is_nan() -> None:
    skipped = cw.explain("Found NaN, decreased lg_loss_scale to 12.5")
    assert skipped.kind is Kind.LOSS_SCALE
    collapsed = cw.explain("Found NaN, decreased lg_loss_scale to -3.0")
    assert collapsed.kind is Kind.LOSS_SCALE and "minimum" in collapsed.cause
    diverged = cw.explain("| loss          | nan       |\nFound NaN, decreased lg_loss_scale to -16199.354")
    assert diverged.kind is Kind.NONFINITE
    garbled = cw.explain("Found NaN, decreased lg_loss_scale to 1..2")
    assert garbled.kind is Kind.LOSS_SCALE and "minimum" not in garbled.cause


def test_export_and_conversion_messages_of_mobile_runtimes_are_read() -> None:
    xnnpack = cw.explain("Error in XNNPACK: failed to define Binary Elementwise operator with input IDs #0 and #1 and "
                         "output ID #6: mismatching datatypes across the first input (FP32), the second input (FP16)")
    assert xnnpack.kind is Kind.SCALAR_TYPE and xnnpack.dtypes == ("f32", "f16")
    coreml = cw.explain("ValueError: In op, of type linear, named out_w, the named input `weight` must have the same "
                        "data type as the named input `x`. However, weight has dtype fp32 whereas x has dtype int32.")
    assert coreml.kind is Kind.INTEGER_OPERAND and set(coreml.dtypes) == {"f32", "int32"}
    narrowed = cw.explain("WARNING:root:Saving value type of float16 into a builtin type of i8, might lose precision!")
    assert narrowed.kind is Kind.RESULT_CAST and narrowed.confidence is Confidence.LOW
    assert cw.explain("Saving value type of int64 into a builtin type of int32, might lose precision!") is None
    unhandled = cw.explain("assert failed (false): Unhandled dtype BFloat16 for index.Tensor_out")
    assert unhandled.kind is Kind.NO_KERNEL and unhandled.dtypes == ("bf16",)
    intc = cw.explain("TypeError: Unsupported numpy type: <class 'numpy.intc'>")
    assert intc.kind is Kind.NUMPY_DTYPE and "np.int32" in intc.fix


def test_cudnn_given_an_integer_layer_and_a_dtype_map_without_an_entry_are_missing_kernels() -> None:
    cudnn = cw.explain("RuntimeError: getCudnnDataType() not supported for Char")
    assert cudnn.kind is Kind.NO_KERNEL and cudnn.dtypes == ("int8",)
    table = cw.explain("Traceback (most recent call last):\n  File \"builder.py\", line 3, in make_tensor\n"
                       "KeyError: torch.uint8")
    assert table.kind is Kind.NO_KERNEL and table.confidence is Confidence.LOW


def test_an_integer_target_s_loss_backward_names_the_prediction_s_dtype() -> None:
    explanation = cw.explain("loss.backward()\nRuntimeError: Found dtype Long but expected BFloat16")
    assert explanation.kind is Kind.TARGET and explanation.dtypes == ("int64", "bf16")


def test_cpp_spellings_of_unsigned_integer_dtypes_are_read() -> None:
    explanation = cw.explain("RuntimeError: Input type (short unsigned int) and bias type (float) should be the same")
    assert explanation.kind is Kind.INTEGER_OPERAND and explanation.dtypes == ("uint16", "f32")


def test_torch_complex_given_integers_is_integer_data_and_argmin_of_complex_a_missing_kernel() -> None:
    with pytest.raises(RuntimeError) as raised:
        torch.complex(torch.tensor([1, 3]), torch.tensor([1, -1]))
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.INTEGER_OPERAND and explanation.dtypes == ("int64",)
    with pytest.raises(RuntimeError) as argmin:
        torch.tensor([1 + 1j, 2 - 1j]).argmin()
    assert cw.explain(argmin.value).kind is Kind.NO_KERNEL


def test_gcd_or_lcm_given_whole_numbers_stored_as_floats_is_a_missing_kernel() -> None:
    with pytest.raises((NotImplementedError, RuntimeError)) as raised:
        torch.lcm(torch.tensor([6.0, 4.0], dtype=torch.float64), torch.tensor([4.0, 6.0], dtype=torch.float64))
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("f64",) and "x.long()" in explanation.fix


def test_multi_dot_given_two_dtypes_is_a_matmul_mismatch() -> None:
    with pytest.raises(RuntimeError) as raised:
        torch.linalg.multi_dot([torch.randn(2, 3), torch.randn(3, 2, dtype=torch.float64)])
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.MATMUL and explanation.dtypes == ("f32", "f64")


def test_a_masked_op_that_takes_only_bool_masks_given_uint8_is_a_mask_dtype() -> None:
    explanation = cw.explain("RuntimeError: masked_scatter_ only supports boolean masks, but got mask with dtype Byte")
    assert explanation.kind is Kind.MASK and explanation.dtypes == ("bool", "uint8")
    assert "mask.to(torch.bool)" in explanation.fix


def test_a_metric_logged_as_nan_in_a_quoted_dict_or_in_chinese_is_a_non_finite_value() -> None:
    logged = cw.explain("使用fp16训练\n{'loss': 4.6758, 'grad_norm': nan, 'learning_rate': 0.0001, 'epoch': 0.05}")
    assert logged.kind is Kind.NONFINITE and logged.dtypes == ("f16",)
    always = cw.explain("微调时grad_norm总是nan\n--fp16 True")
    assert always.kind is Kind.NONFINITE and always.dtypes == ("f16",)
    returned = cw.explain("fp16精度在ReduceMean节点返回nan")
    assert returned.kind is Kind.NONFINITE and returned.dtypes == ("f16",)
    assert cw.explain("{'loss': 4.6758, 'grad_norm': nan}") is None


def test_a_gtx_16xx_card_named_beside_black_or_nan_outputs_is_read_as_fp16_trouble() -> None:
    black = cw.explain("Black square when upscaling with ESRGAN\nI'm using a 1660 super with the latest drivers")
    assert black.kind is Kind.NONFINITE and black.dtypes == ("f16",) and "GTX 16xx" in black.cause
    assert "fp32" in black.fix
    peak = cw.explain("silent audio files, the log says Peak=nan\nGPU: NVIDIA GeForce GTX 1660 Ti, 6 GB VRAM")
    assert peak.kind is Kind.NONFINITE and "GTX 16xx" in peak.cause
    assert cw.explain("Black square when upscaling with ESRGAN\nI'm using an RTX 3090") is None
    every = cw.explain("Cupscale upscales textures completely black.")
    assert every.kind is Kind.NONFINITE and every.dtypes == ()


def test_a_cut_expected_scalar_type_reads_the_one_dtype_it_names() -> None:
    cut = cw.explain("Precision 64 and version 0.8: Expected scalar type double")
    assert cut.kind is Kind.SCALAR_TYPE and cut.dtypes == ("f64",) and cut.confidence is Confidence.LOW
    assert cw.explain("RuntimeError: expected scalar type Long") is None


def test_a_retyped_mat_1_and_mat_2_message_is_a_matmul_mismatch() -> None:
    explanation = cw.explain("the error message \"Runtime Error Mat 1 and Mat2 must have the same dtype.\"")
    assert explanation.kind is Kind.MATMUL and "matrix multiply" in explanation.cause


def test_a_conversion_between_the_two_fp8_formats_is_a_missing_kernel() -> None:
    explanation = cw.explain("torch._inductor.exc.InductorError: AssertionError: Conversions between float8_e5m2 and "
                             "float8_e4m3fn is not supported!")
    assert explanation.kind is Kind.NO_KERNEL
    assert explanation.dtypes == ("float8_e5m2", "float8_e4m3fn") and "bfloat16" in explanation.fix


def test_autocast_refusing_its_dtype_on_mps_and_bf16_amp_on_an_old_torch_are_missing_support() -> None:
    mps = cw.explain("UserWarning: In MPS autocast, but the target dtype is not supported. Disabling autocast.\n"
                     "MPS Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.")
    assert mps.kind is Kind.NO_KERNEL and mps.dtypes == ("bf16", "f16") and "update torch" in mps.fix
    assert mps.confidence is Confidence.LOW
    old = cw.explain("MisconfigurationException: To use bfloat16 with native amp you must install torch greater or "
                     "equal to 1.10.")
    assert old.kind is Kind.NO_KERNEL and old.dtypes == ("bf16",) and "update torch" in old.fix


def test_anomaly_mode_s_nan_gradient_says_fp16_loss_scaling_expects_some() -> None:
    explanation = cw.explain("RuntimeError: Function 'CudnnConvolutionBackward0' returned nan values in its 1th output.")
    assert explanation.kind is Kind.NONFINITE and "set_detect_anomaly" in explanation.fix


def test_the_cpu_s_slow_convolution_im2col_without_half_says_cpu() -> None:
    explanation = cw.explain("fp16 inference on cpu works on the gpu box\n"
                             "RuntimeError: \"unfolded2d_copy\" not implemented for 'Half'")
    assert explanation.kind is Kind.NO_KERNEL and explanation.device == "cpu" and "model.float()" in explanation.fix


def test_index_wordings_cut_or_old_are_read_as_index_dtypes() -> None:
    cut = cw.explain("RuntimeError: Expected tensor for argument #1 'indices' to have scalar type Long; but got "
                     "torch.IntTenso")
    assert cut.kind is Kind.INDEX_TENSOR and cut.dtypes == ("int32",)
    basic = cw.explain("TypeError: Performing basic indexing on a tensor and encountered an error indexing dim 0 with "
                       "an object of type torch.ByteTensor. The only supported types are integers, slices")
    assert basic.kind is Kind.INDEX_TENSOR and basic.dtypes == ("uint8",)


def test_a_library_lacking_a_dtype_and_a_float_only_check_are_missing_kernels() -> None:
    onednn = cw.explain("RuntimeError: Long is not supported in oneDNN")
    assert onednn.kind is Kind.NO_KERNEL and onednn.dtypes == ("int64",) and "oneDNN" in onednn.cause
    checked = cw.explain("with torch.autocast('cuda', dtype=torch.bfloat16):\n"
                         "RuntimeError: Expected (in.dtype() == torch::kFloat || in.dtype() == torch::kDouble)")
    assert checked.kind is Kind.NO_KERNEL and checked.dtypes == ("bf16",)
    logits = cw.explain("ValueError: logits must be of type float32")
    assert logits.kind is Kind.NO_KERNEL and logits.dtypes == ("f32",) and logits.confidence is Confidence.LOW


def test_torchaudio_s_floating_waveform_check_given_integers_is_an_integer_operand() -> None:
    explanation = cw.explain("TypeError: Expected floating point type for waveform tensor, but received torch.int16")
    assert explanation.kind is Kind.INTEGER_OPERAND and explanation.dtypes == ("int16",)
    assert "waveform" in explanation.cause


def test_a_continuous_random_fill_of_an_integer_tensor_is_a_missing_kernel() -> None:
    with pytest.raises(RuntimeError) as raised:
        torch.empty(3, dtype=torch.long).exponential_(2.0)
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("int64",) and "torch.randint" in explanation.fix


def test_merging_lora_into_a_model_loaded_in_8_bit_is_the_quantized_merge_refusal() -> None:
    explanation = cw.explain("ValueError: Cannot merge LORA layers when the model is loaded in 8-bit mode")
    assert explanation.kind is Kind.NO_KERNEL and "merge" in explanation.cause


def test_nvcc_without_atomic_add_for_half2_names_compute_capability_six() -> None:
    explanation = cw.explain("gridencoder.cu(327): error: no instance of overloaded function \"atomicAdd\" matches the "
                             "argument list\n            argument types are: (__half2 *, __half2)")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("f16",) and "6.0" in explanation.cause


def test_builds_kernels_and_checks_that_leave_a_dtype_out_are_missing_kernels() -> None:
    built = cw.explain("RuntimeError: Error: turbomind has not been built with fp32 support.")
    assert built.kind is Kind.NO_KERNEL and built.dtypes == ("f32",)
    decoding = cw.explain("[TM][FATAL] No decoding kernel found: decode_d256_f16_gs4")
    assert decoding.kind is Kind.NO_KERNEL and decoding.dtypes == ("f16",)
    asserted = cw.explain("features tensor is of type float16\nRuntimeError: points.scalar_type() == "
                          "at::ScalarType::Float INTERNAL ASSERT FAILED at sampling.cpp:83, Points must be a float")
    assert asserted.kind is Kind.NO_KERNEL and asserted.dtypes == ("f32", "f16")
    dispatch = cw.explain("NotImplementedError: No operator found for this attention: AttentionOpDispatch("
                          "dtype=torch.float32, device=device(type='cpu'), k=40, has_dropout=False)")
    assert dispatch.kind is Kind.NO_KERNEL and dispatch.dtypes == ("f32",)


def test_gloo_s_invalid_scalar_type_is_read_from_errors_and_quotes_not_from_code_strings() -> None:
    assert cw.explain("RuntimeError: Invalid scalar type").kind is Kind.NO_KERNEL
    assert cw.explain('I hit an "Invalid scalar type" issue with gloo').kind is Kind.NO_KERNEL
    assert cw.explain('    "help": "fix for DDP issues with LM bias/mask buffers - invalid scalar type"') is None


def test_outputs_of_exclamation_marks_said_in_a_title_are_nan_logits() -> None:
    said = cw.explain("Qwen2.5-VL Returning Series of !!! when dtype is float16")
    assert said.kind is Kind.NONFINITE and said.dtypes == ("f16",)
    chinese = cw.explain("为什么我推理输出的结果是一行感叹号？\ntorch_dtype=torch.float16")
    assert chinese.kind is Kind.NONFINITE and chinese.dtypes == ("f16",)


def test_a_failed_assert_on_isnan_and_a_chinese_zero_loss_are_non_finite() -> None:
    asserted = cw.explain("  File \"quantizer.py\", line 16, in search\n    assert torch.isnan(w).sum() == 0\n"
                          "AssertionError")
    assert asserted.kind is Kind.NONFINITE
    assert cw.explain("x = 1\nassert torch.isnan(w).sum() == 0") is None
    zero = cw.explain("设置fp16为True会出现一开始训练loss就为0的情况")
    assert zero.kind is Kind.NONFINITE and zero.dtypes == ("f16",)


def test_prose_of_a_linear_input_and_weights_in_two_dtypes_is_a_matmul_mismatch() -> None:
    explanation = cw.explain("I found the linear input become torch.float32 dtype, however, the weights and bias are "
                             "all  torch.float16.")
    assert explanation.kind is Kind.MATMUL and explanation.dtypes == ("f32", "f16")
    legacy = cw.explain("RuntimeError DoubleTensor FloatTensor")
    assert legacy.kind is Kind.SCALAR_TYPE and legacy.dtypes == ("f64", "f32")


def test_unscale_said_of_fp16_gradients_and_a_windows_linear_frame_are_read() -> None:
    unscale = cw.explain("Error when unscale_gradients called on FP16 gradients during training")
    assert unscale.kind is Kind.UNSCALE_FP16
    windows = cw.explain("B:\\python\\lib\\site-packages\\torch\\nn\\modules\\linear.py:103 in forward\n"
                         "102 │   def forward(self, input: Tensor) -> Tensor:\n"
                         "RuntimeError: expected scalar type Half but found Float")
    assert windows.kind is Kind.MATMUL


def test_a_numpy_error_cut_inside_its_dtype_name_completes_it_when_only_one_fits() -> None:
    explanation = cw.explain("TypeError: Got unsupported ScalarType BF")
    assert explanation.kind is Kind.NUMPY_DTYPE and explanation.dtypes == ("bf16",)


def test_resizing_an_unsigned_depth_map_is_integer_data_and_gather_s_gpu_wording_an_index() -> None:
    with pytest.raises((NotImplementedError, RuntimeError)) as raised:
        torch.nn.functional.interpolate(torch.zeros(1, 1, 4, 4, dtype=torch.uint16), scale_factor=2, mode="bilinear")
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.INTEGER_OPERAND and explanation.dtypes == ("uint16",)
    gathered = cw.explain("RuntimeError: gather_out_gpu(): expected dtype int64 for index")
    assert gathered.kind is Kind.INDEX_TENSOR


def test_a_complex_tensor_meeting_a_real_one_is_told_to_take_its_magnitude_or_parts() -> None:
    with pytest.raises(RuntimeError) as raised:
        torch.randn(4, 3) @ torch.randn(3, 2, dtype=torch.complex64)
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.MATMUL and "abs()" in explanation.fix and "view_as_real" in explanation.fix


def test_result_cast_beside_a_bce_named_in_prose_is_a_target_said_with_low_confidence() -> None:
    said = cw.explain("following exception originate from BCE loss function\n"
                      "RuntimeError: result type Float can't be cast to the desired output type Long")
    assert said.kind is Kind.TARGET and said.confidence is Confidence.LOW
    bare = cw.explain("RuntimeError: result type Float can't be cast to the desired output type Long")
    assert bare.kind is Kind.RESULT_CAST


def test_old_torch_s_invalid_combination_of_arguments_names_the_argument_that_differs() -> None:
    bce = cw.explain("TypeError: FloatBCECriterion_updateOutput received an invalid combination of arguments - got "
                     "(int, torch.FloatTensor, torch.LongTensor, torch.FloatTensor, bool, NoneType), but expected "
                     "(int state, torch.FloatTensor input, torch.FloatTensor target, torch.FloatTensor output, "
                     "bool sizeAverage, [torch.FloatTensor weights or None])")
    assert bce.kind is Kind.TARGET and bce.dtypes[0] == "int64" and "target.float()" in bce.fix
    nll = cw.explain("TypeError: FloatClassNLLCriterion_updateOutput received an invalid combination of arguments - "
                     "got (int, torch.FloatTensor, torch.DoubleTensor, torch.FloatTensor, bool, NoneType, "
                     "torch.FloatTensor), but expected (int state, torch.FloatTensor input, torch.LongTensor target, "
                     "torch.FloatTensor output, bool sizeAverage, [torch.FloatTensor weights or None], "
                     "torch.FloatTensor total_weight, int ignore_index)")
    assert nll.kind is Kind.TARGET and "f64" in nll.dtypes and ".long()" in nll.fix
    same_size = cw.explain("TypeError: is_same_size received an invalid combination of arguments - got "
                           "(torch.cuda.FloatTensor), but expected (torch.cuda.LongTensor other)")
    assert same_size.kind is Kind.TARGET and same_size.dtypes[0] == "int64"
    variable = cw.explain("RuntimeError: Expected object of type Variable[torch.LongTensor] but found type "
                          "Variable[torch.FloatTensor] for argument #1 'target'")
    assert variable.kind is Kind.TARGET and "f32" in variable.dtypes


def test_lengths_on_the_gpu_and_fp64_math_on_an_intel_gpu_are_device_problems() -> None:
    lengths = cw.explain("RuntimeError: 'lengths' argument should be a 1D CPU int64 tensor, but got 1D cuda:0 Long "
                         "tensor")
    assert lengths.kind is Kind.DEVICE_MISMATCH and "not a dtype problem" in lengths.cause
    arc = cw.explain("RuntimeError: Native API failed. Native API returns: -996 invalid_kernel(\"uses-fp64-math\")")
    assert arc.kind is Kind.NO_KERNEL and arc.dtypes == ("f64",) and arc.device == "xpu"


def test_nan_said_contained_or_in_a_cost_matrix_and_a_cut_conv_message_are_read() -> None:
    ema = cw.explain("WARNING Skipping Checkpoint save at epoch 12, EMA contains NaN/inf")
    assert ema.kind is Kind.NONFINITE
    assert cw.explain("the output contains no NaN") is None
    cost = cw.explain("ValueError: matrix contains invalid numeric entries")
    assert cost.kind is Kind.NONFINITE and "linear_sum_assignment" in cost.cause
    cut = cw.explain("RuntimeError: Input type (torch.cuda.FloatTensor) and weight type (torch")
    assert cut.kind is Kind.CONV_WEIGHT and cut.dtypes == ("f32",) and cut.confidence is Confidence.LOW
    constructed = cw.explain("RuntimeError: tried to construct a tensor from a nested float sequence, but found an "
                             "item of type numpy.float32 at index (0, 0)")
    assert constructed.kind is Kind.NUMPY_DTYPE and "from_numpy" in constructed.fix
    went = cw.explain("with fp16, the xent went to be nan and finally training crashed")
    assert went.kind is Kind.NONFINITE


def test_fsdp_s_older_and_fsdp2_s_uniform_dtype_checks_and_old_in_place_output_types() -> None:
    flat = cw.explain("ValueError: `FlatParameter` requires uniform dtype but got torch.float16 and torch.float32")
    assert flat.kind is Kind.OP_DTYPE and flat.dtypes == ("f16", "f32")
    scatter = cw.explain("AssertionError: FSDP reduce-scatter expects uniform gradient dtype but got "
                         "{torch.bfloat16, torch.float32}")
    assert scatter.kind is Kind.OP_DTYPE and scatter.dtypes == ("bf16", "f32")
    output = cw.explain("RuntimeError: output with type torch.cuda.HalfTensor doesn't match the desired type "
                        "torch.cuda.FloatTensor")
    assert output.kind is Kind.OP_DTYPE and output.dtypes == ("f16", "f32")


def test_nccl_without_bf16_and_compilers_without_the_bf16_type_are_missing_kernels() -> None:
    nccl = cw.explain("RuntimeError: Unconvertible NCCL type BFloat16")
    assert nccl.kind is Kind.NO_KERNEL and nccl.dtypes == ("bf16",) and "update torch" in nccl.fix
    undeclared = cw.explain("[AOTI] error: ‘bfloat16’ was not declared in this scope")
    assert undeclared.kind is Kind.NO_KERNEL and undeclared.dtypes == ("bf16",)
    neon = cw.explain("vec128_bfloat16_neon.h:83:37: error: cannot convert ‘__Uint16x8_t’ to ‘__Bfloat16x8_t’")
    assert neon.kind is Kind.NO_KERNEL
    black = cw.explain("fp16: True\n推理结果是黑屏")
    assert black.kind is Kind.NONFINITE and black.dtypes == ("f16",)


def test_compiled_libraries_and_graph_compilers_refusing_a_dtype_are_read() -> None:
    numba = cw.explain("TypeError: expected dtype object, got 'numpy.dtype[float64]'")
    assert numba.kind is Kind.NUMPY_DTYPE and numba.dtypes == ("f64",) and "numba" in numba.fix
    neuron = cw.explain("INFO:Neuron:Exception = Input 'y' of 'Pow' Op has type int32 that does not match type float32 "
                        "of argument 'x'.")
    assert neuron.kind is Kind.INTEGER_OPERAND and set(neuron.dtypes) == {"int32", "f32"}
    nvcc = cw.explain("fast_math.h(741): error: no suitable conversion function from \"__half\" to \"float\" exists")
    assert nvcc.kind is Kind.NO_KERNEL and "__half2float" in nvcc.fix


def test_ops_without_an_autocast_kernel_a_vmapped_dtype_view_and_real_of_a_real_tensor_are_missing_kernels() -> None:
    autocast = cw.explain("NotImplementedError: could not find kernel for HigherOrderOperator "
                          "triton_kernel_wrapper_mutation at dispatch key DispatchKey.AutocastXPU (resolved from "
                          "DispatchKey.AutocastXPU)")
    assert autocast.kind is Kind.NO_KERNEL and autocast.device == "xpu"
    vmapped = cw.explain("RuntimeError: Batching rule not implemented for aten::view.dtype; the fallback path doesn't "
                         "work on out= or view ops.")
    assert vmapped.kind is Kind.NO_KERNEL
    real = cw.explain("RuntimeError: real is not implemented for tensors with non-complex dtypes")
    assert real.kind is Kind.NO_KERNEL and "Tensor.real" in real.op


def test_a_textual_inversion_embedding_written_into_an_fp16_encoder_says_convert_it_or_run_fp32() -> None:
    explanation = cw.explain("Error using textual_inversion checkpoints\nIndex put requires the source and destination "
                             "dtypes match, got Half for the destination and Float for the source")
    assert explanation.kind is Kind.INDEXED_WRITE and "textual-inversion" in explanation.cause
    assert "fp32" in explanation.fix
    plain = cw.explain("Index put requires the source and destination dtypes match, got Half for the destination and "
                       "Float for the source")
    assert "textual" not in plain.cause


def test_an_embedding_file_named_beside_an_fp32_index_put_into_fp16_is_a_textual_inversion() -> None:
    explanation = cw.explain("after loading an embedding file I get\nIndex put requires the source and destination dtypes "
                             "match, got Half for the destination and Float for the source")
    assert explanation.kind is Kind.INDEXED_WRITE and "textual-inversion" in explanation.cause


def test_a_dtype_typed_with_one_colon_and_a_matmul_check_retyped_without_the_are_still_read() -> None:
    bias = cw.explain("RuntimeError: Input type (float) and bias type (struct c10:Half) should be the same")
    assert bias.kind is Kind.CONV_BIAS and bias.dtypes == ("f32", "f16")
    typed = cw.explain("I keep getting mat1 and mat2 must have same dtype but got half and float")
    assert typed.kind is Kind.MATMUL and typed.dtypes == ("f16", "f32")
    paraphrased = cw.explain("Error during finetuning: mat1 and mat2 should be of same dtype")
    assert paraphrased.kind is Kind.MATMUL


def test_a_comfyui_dtype_widget_set_to_a_value_the_node_does_not_offer_names_the_values_it_offers() -> None:
    explanation = cw.explain("Failed to validate prompt for output 136:\n* NunchakuFluxDiTLoader 189:\n"
                             "  - Value not in list: data_type: 'bfloat16' not in ['float16']")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("bf16",)
    assert "'float16'" in explanation.fix
    assert cw.explain("Value not in list: ckpt_name: 'model.safetensors' not in ['base.ckpt']") is None


def test_onnx_shape_inference_finding_a_norm_input_of_another_type_is_a_norm_parameter_mismatch() -> None:
    norm = cw.explain("onnx.onnx_cpp2py_export.shape_inference.InferenceError: [ShapeInferenceError] (op_type:"
                      "BatchNormalization, node name: BatchNormalization_0): scale has inconsistent type tensor(float)")
    assert norm.kind is Kind.NORM_PARAM and norm.dtypes == ("f32",) and "autocast" in norm.fix
    add = cw.explain("[ShapeInferenceError] (op_type:Add, node name: /Add): B has inconsistent type tensor(float16)")
    assert add.kind is Kind.SCALAR_TYPE and add.dtypes == ("f16",)


def test_onnx_s_dtype_table_missing_a_bfloat16_array_is_numpy_s_missing_bf16() -> None:
    explanation = cw.explain("    mapping._NP_TYPE_TO_TENSOR_TYPE[np_dtype],\nKeyError: dtype((numpy.uint16, "
                             "[('bfloat16', '<u2')]))")
    assert explanation.kind is Kind.NUMPY_DTYPE and explanation.dtypes == ("bf16",)
    assert "ml_dtypes" in explanation.fix


def test_printed_16_bit_tensors_full_of_nan_are_read_as_non_finite_values_in_that_dtype() -> None:
    explanation = cw.explain("FloatingPointError when training\n 'proj.bias': tensor([nan, nan, nan, nan, nan],\n"
                             "       device='cuda:0', dtype=torch.float16)}")
    assert explanation.kind is Kind.NONFINITE and explanation.dtypes == ("f16",)
    assert explanation.confidence is Confidence.LOW
    assert cw.explain("tensor([0.5000, nan, 1.0000])") is None


@pytest.mark.parametrize("paste", ["求助！推理出来时黑图", "Why does the output is black?",
                                   "I trying create pictures, but got black images. Output logs looks normal."])
def test_a_run_said_to_give_black_images_with_no_dtype_named_is_read_as_nan_outputs_with_low_confidence(
        paste: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.NONFINITE and explanation.dtypes == ()
    assert explanation.confidence is Confidence.LOW and "safety checker" in explanation.cause


def test_nan_named_in_a_report_s_title_is_read_as_non_finite_values_unless_the_title_denies_or_sets_it() -> None:
    titled = cw.explain("NaN in GPT NeoX model (generation)\n\nWhen I generate with the model I get garbage.")
    assert titled.kind is Kind.NONFINITE and titled.confidence is Confidence.LOW
    assert cw.explain("Training never goes NaN now\n\nthanks for the fix") is None
    assert cw.explain("I set the padding to NaN\n\nhow do I mask it?") is None


def test_expected_scalar_type_raised_in_prelu_is_its_slope_against_its_input() -> None:
    explanation = cw.explain("RuntimeError: expected scalar type Half but found Float\n\nTraceback (most recent call "
                             "last):\n  File \"/site-packages/torch/nn/modules/activation.py\", line 1240, in forward\n"
                             "    return F.prelu(input, self.weight)")
    assert explanation.kind is Kind.OP_DTYPE and explanation.op == "prelu"
    assert explanation.dtypes == ("f16", "f32")


def test_an_ml_dtypes_bfloat16_array_torch_cannot_read_is_a_numpy_dtype_problem() -> None:
    explanation = cw.explain("TypeError: can't convert np.ndarray of type bfloat16. The only supported types are: "
                             "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, and "
                             "bool.")
    assert explanation.kind is Kind.NUMPY_DTYPE and explanation.dtypes == ("bf16",)
    assert "np.uint16" in explanation.fix


def test_a_sampling_check_cut_after_inf_and_a_refused_dtype_argument_and_fused_adamw_s_group_check_are_read() -> None:
    cut = cw.explain("RuntimeError: probability tensor contains either `inf`, `n")
    assert cut.kind is Kind.NONFINITE
    refused = cw.explain("TypeError: __init__() got an unexpected keyword argument 'torch_dtype'")
    assert refused.kind is Kind.NO_KERNEL and refused.confidence is Confidence.LOW and "update" in refused.fix
    fused = cw.explain("RuntimeError: params, grads, exp_avgs, and exp_avg_sqs must have same dtype, device, and "
                       "layout")
    assert fused.kind is Kind.SCALAR_TYPE and "fused" in fused.cause


def test_an_mps_graph_whose_output_and_mean_types_differ_and_a_cut_onnx_type_parameter_error_are_read() -> None:
    mps = cw.explain("error: output type 'tensor<1x32x4x512x544xf16>' and mean type 'tensor<1x32x1x1x1xf32>' are not "
                     "broadcast compatible")
    assert mps.kind is Kind.NO_KERNEL and mps.dtypes == ("f16", "f32") and mps.device == "mps"
    cut = cw.explain("onnxruntime.capi.onnxruntime_pybind11_state.Fail: [ONNXRuntimeError] : 1 : FAIL : Type Error: "
                     "Type parameter (T)")
    assert cut.kind is Kind.SCALAR_TYPE and "cut" in cut.cause
    assert cw.explain("the first layer (T)") is None


def test_old_torch_s_outer_product_given_long_positions_and_float_frequencies_is_an_integer_operand() -> None:
    explanation = cw.explain("RuntimeError: Expected object of scalar type Long but got scalar type Float for argument "
                             "#2 'vec2' in call to _th_ger")
    assert explanation.kind is Kind.INTEGER_OPERAND and explanation.dtypes == ("int64", "f32")


def test_an_extension_kernel_that_failed_to_dispatch_fp32_is_told_to_take_fp16_or_bf16_inputs() -> None:
    explanation = cw.explain("RuntimeError: at::Tensor qk_int8_sv_f8_attn(at::Tensor, at::Tensor, int, float) failed to "
                             "dispatch data type Float")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("f32",)
    assert explanation.op == "qk_int8_sv_f8_attn" and "bf16" in explanation.fix


def test_old_torch_s_mat2_check_in_a_paste_that_names_nn_bilinear_is_the_bilinear_layer() -> None:
    explanation = cw.explain("Bilinear RuntimeError: Expected object of scalar type Half but got scalar type Float for "
                             "argument #2 'mat2'")
    assert explanation.kind is Kind.OP_DTYPE and explanation.op == "nn.Bilinear"
    plain = cw.explain("RuntimeError: Expected object of scalar type Half but got scalar type Float for argument #2 "
                       "'mat2'")
    assert plain.kind is Kind.MATMUL


def test_flash_attn_s_rotary_tables_in_another_dtype_are_an_op_dtype_mismatch() -> None:
    explanation = cw.explain("AssertionError: Input and cos/sin must have the same dtype, got torch.float32 and "
                             "torch.bfloat16")
    assert explanation.kind is Kind.OP_DTYPE and explanation.dtypes == ("f32", "bf16")
    assert "cos.to(q.dtype)" in explanation.fix


def test_older_torch_s_data_float_check_is_an_extension_s_only_when_its_cpp_frames_show_one() -> None:
    message = "RuntimeError: expected scalar type Float but found Half (data<float> at /torch/include/ATen/core/T.h:1)"
    extension = cw.explain(message + "\nframe #3: dcn_v2_cuda_forward(at::Tensor const&) + 0xbc0 (0x7f in "
                           "/src/lib/DCNv2/_ext.cpython-35m-x86_64-linux-gnu.so)")
    assert extension.kind is Kind.NO_KERNEL and extension.dtypes == ("f32", "f16")
    assert cw.explain(message).kind is Kind.SCALAR_TYPE


def test_old_wordings_of_a_byte_mask_check_and_of_tensors_on_two_gpus_are_read() -> None:
    mask = cw.explain("RuntimeError: masked_select: expected BoolTensor or ByteTensor for mask")
    assert mask.kind is Kind.MASK
    gpus = cw.explain("terminate called after throwing an instance of 'std::runtime_error'\n  what():  arguments are "
                      "located on different GPUs at /aten/src/THC/generic/THCTensorMathReduce.cu:208")
    assert gpus.kind is Kind.DEVICE_MISMATCH


@pytest.mark.parametrize("paste", ["inferencing in FP16 results in silence", "Completely Silent Audio Output",
                                   "CosyVoice1的fp16=True合成出来的音频有时间，但没声音"])
def test_audio_said_to_come_out_silent_in_16_bit_or_entirely_is_read_as_nan_samples(paste: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.NONFINITE and explanation.confidence is Confidence.LOW


@pytest.mark.parametrize("paste", ["The trace is silent about the error in bf16", "the output is silent"])
def test_silent_said_of_a_crash_or_of_an_output_with_no_16_bit_dtype_is_not_read(paste: str) -> None:
    assert cw.explain(paste) is None


def test_a_numpy_array_torch_does_not_take_as_one_is_a_numpy_abi_mismatch() -> None:
    explanation = cw.explain("TypeError: expected np.ndarray (got numpy.ndarray)")
    assert explanation.kind is Kind.NUMPY_DTYPE and "numpy<2" in explanation.fix


def test_narrow_given_a_float_tensor_start_is_an_index_dtype_problem() -> None:
    explanation = cw.explain("RuntimeError: start must be an 0-dim integral Tensor.")
    assert explanation.kind is Kind.INDEX_TENSOR and "int(start)" in explanation.fix


def _luma(crops: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    return torch.tensordot(crops, weights, dims=([1], [0]))


def test_a_live_tensordot_of_integer_data_and_float_weights_names_the_integer_operand_the_frame_held() -> None:
    with pytest.raises(RuntimeError) as raised:
        _luma(torch.zeros(2, 3, 4, dtype=torch.uint8), torch.ones(3))
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.INTEGER_OPERAND and explanation.dtypes == ("uint8", "f32")


def test_a_oneflow_graph_given_another_dtype_under_autocast_is_read_with_its_k_constants() -> None:
    explanation = cw.explain("RuntimeError: InferDataType Failed. Expected kFloat, but got kFloat16")
    assert explanation.kind is Kind.SCALAR_TYPE and explanation.dtypes == ("f32", "f16")
    assert "autocast" in explanation.fix


def test_deepspeeds_evoformer_kernel_without_a_build_for_the_gpu_is_a_missing_kernel() -> None:
    explanation = cw.explain("RuntimeError: Unsupported GPU and data type combination")
    assert explanation.kind is Kind.NO_KERNEL and "use_deepspeed_evo_attention=False" in explanation.fix
    assert explanation.confidence is Confidence.LOW


@pytest.mark.parametrize("line", ["AssertionError: q: torch.float16, k: torch.float32, v: torch.float16",
                                  "Inconsistent dtypes (AssertionError: r: torch.bfloat16, k: torch.float32, "
                                  "v: torch.bfloat16)"])
def test_an_attention_kernels_own_assert_on_q_k_v_dtypes_is_read(line: str) -> None:
    explanation = cw.explain(line)
    assert explanation.kind is Kind.SDPA and "f32" in explanation.dtypes
    assert "attention kernel" in explanation.cause


def test_an_attention_kernels_assert_naming_one_dtype_is_not_a_mismatch() -> None:
    assert cw.explain("AssertionError: q: torch.float16, k: torch.float16, v: torch.float16") is None


def test_triton_arithmetic_between_a_pointer_and_its_own_element_type_is_a_tensor_given_for_a_number() -> None:
    explanation = cw.explain("triton.language.semantic.IncompatibleTypeErrorImpl: invalid operands of type "
                             "pointer<fp32> and triton.language.float32")
    assert explanation.kind is Kind.SCALAR_TYPE and explanation.dtypes == ("f32",)
    assert ".item()" in explanation.fix


def test_a_decorator_in_prose_is_not_a_matrix_multiply() -> None:
    explanation = cw.explain("RuntimeError: expected scalar type Float but found Half\n\nwhen I use the "
                             "@torch.cuda.amp.autocast before forward, this error occurs")
    assert explanation.kind is Kind.SCALAR_TYPE


def test_a_pasted_convolution_check_naming_an_integer_second_is_an_integer_kernel() -> None:
    explanation = cw.explain('  File "slant.py", line 80, in estimate\n    gx = F.conv2d(line, sobel_x, padding=1)\n'
                             "RuntimeError: expected scalar type Float but found Long")
    assert explanation.kind is Kind.CONV_WEIGHT and explanation.dtypes == ("f32", "int64")


def test_a_pasted_convolution_given_integer_input_is_still_integer_data() -> None:
    explanation = cw.explain('  File "a.py", line 3, in f\n    y = F.conv2d(pixels, weight)\n'
                             "RuntimeError: expected scalar type Byte but found Float")
    assert explanation.kind is Kind.INTEGER_OPERAND


def test_nan_from_ctc_losss_backward_is_an_alignment_ctc_cannot_make() -> None:
    log_probs = torch.randn(8, 1, 5).log_softmax(2).requires_grad_()
    targets = torch.randint(1, 5, (1, 13))
    with torch.autograd.detect_anomaly(), pytest.raises(RuntimeError) as raised:
        loss = F.ctc_loss(log_probs, targets, torch.tensor([8]), torch.tensor([13]), reduction="sum")
        (loss * 0).backward()
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.NONFINITE and "zero_infinity=True" in explanation.fix


@pytest.mark.parametrize("line", ["RuntimeError: grad_scale is too small, exiting: 1.2924697071141057e-26",
                                  "AssertionError: Attempted unscale_ but _scale is None.  This may indicate your "
                                  "script did not use scaler.scale(loss or outputs) earlier in the iteration",
                                  "AssertionError: Attempted step but _scale is None."])
def test_a_collapsed_or_never_made_loss_scale_is_a_loss_scale_problem(line: str) -> None:
    assert cw.explain(line).kind is Kind.LOSS_SCALE


def test_a_scaler_asked_to_unscale_before_any_scaled_loss_points_to_backward_through_it() -> None:
    explanation = cw.explain("AssertionError: Attempted unscale_ but _scale is None.")
    assert "manual_backward" in explanation.fix and "fabric.backward" in explanation.fix


def test_a_step_with_no_inf_checks_names_an_optimizer_without_trainable_parameters() -> None:
    explanation = cw.explain("AssertionError: No inf checks were recorded for this optimizer.")
    assert explanation.kind is Kind.LOSS_SCALE and "trainable" in explanation.cause


def test_vllms_marlin_kernel_with_no_type_for_the_gpu_is_a_missing_kernel() -> None:
    explanation = cw.explain("Marlin does not support weight_bits = uint4b8. Only types = [] are supported (for "
                             "group_size = 128, min_capability = 75, zp = False)")
    assert explanation.kind is Kind.NO_KERNEL and "--quantization gptq" in explanation.fix


@pytest.mark.parametrize(("line", "kind", "dtypes"), [
    ("RuntimeError: Expected a.dtype=bfloat16 and w.dtype=float32 to be the same!", Kind.MATMUL, ("bf16", "f32")),
    ("TypeError: Expected `preds` and `target` to have the same data type. Got pred: torch.float32 and target: "
     "torch.float16.", Kind.OP_DTYPE, ("f32", "f16")),
])
def test_a_linear_check_of_a_and_w_and_a_metrics_check_of_preds_and_target_are_read(
        line: str, kind: Kind, dtypes: tuple[str, ...]) -> None:
    explanation = cw.explain(line)
    assert explanation.kind is kind and explanation.dtypes == dtypes


def test_fsdp_given_two_parameter_dtypes_names_lora_only_when_the_paste_trains_it() -> None:
    line = "FSDP expects uniform original parameter dtype but got {torch.bfloat16, torch.float32}"
    assert "LoRA" in cw.explain("FSDP2训练LoRA报错" + line).cause
    assert "LoRA" not in cw.explain(line).cause


def test_vs_codes_exception_header_puts_the_message_on_the_next_line() -> None:
    explanation = cw.explain("Exception has occurred: RuntimeError\nexpected scalar type Half but found Float")
    assert explanation.kind is Kind.SCALAR_TYPE and explanation.dtypes == ("f16", "f32")


def test_an_op_less_mismatch_in_a_paste_about_spconv_is_a_sparse_convolution() -> None:
    explanation = cw.explain("Exception has occurred: RuntimeError\nexpected scalar type Half but found Float\n"
                             "The input is a SparseConvTensor with features as a HalfTensor")
    assert explanation.kind is Kind.CONV_WEIGHT and explanation.confidence is Confidence.LOW


def test_a_conv_message_cut_before_input_type_is_still_read() -> None:
    explanation = cw.explain("Runtime Error - (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be "
                             "the same")
    assert explanation.kind is Kind.DEVICE_MISMATCH


@pytest.mark.parametrize(("line", "kind"), [("## Measurement/inference error (3): hidden_states", Kind.VALUE_OVERFLOW),
                                            ("## Measurement/inference error (2)", Kind.NONFINITE)])
def test_exllamav2s_measurement_errors_are_inf_and_nan_in_fp16_hidden_states(line: str, kind: Kind) -> None:
    explanation = cw.explain(line)
    assert explanation.kind is kind and explanation.dtypes == ("f16",)


@pytest.mark.parametrize("paste", ["Using Tesla V100 to load the GPTQ-Int4 model results in all output being "
                                   "exclamation marks.",
                                   "Model tends to generate unrelated outputs, such as `the !!!!!!!!!!!!!!!.....`"])
def test_outputs_of_only_exclamation_marks_with_no_dtype_named_are_nan_logits(paste: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.NONFINITE and explanation.dtypes == ()
    assert explanation.confidence is Confidence.LOW


@pytest.mark.parametrize("paste", ["the generated text was: 'Hello!!!!'",
                                   "the outputs are '!!!!!!!!' when I run it in fp32"])
def test_exclamation_marks_after_a_word_or_from_an_fp32_run_are_not_read(paste: str) -> None:
    assert cw.explain(paste) is None


def test_a_python_integer_past_int64_given_to_torch_is_an_overflow() -> None:
    with pytest.raises((OverflowError, ValueError, RuntimeError)) as raised:
        torch.tensor([2**63 + 5])
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.VALUE_OVERFLOW and "% num_buckets" in explanation.fix


@pytest.mark.parametrize(("paste", "dtypes"), [
    ('  File "/usr/lib/python3/site-packages/torch/nn/modules/_functions.py", line 35, in forward\n'
     "RuntimeError: expected scalar type Half but found Float", ("f16", "f32")),
    ("SyncBN doesn't support fp16 inputs with fp32 parameters\n\nRuntimeError: expected scalar type Half but found "
     "Float", ("f16", "f32")),
])
def test_syncbatchnorm_in_its_frame_or_named_in_the_paste_is_a_norm_parameter_mismatch(
        paste: str, dtypes: tuple[str, ...]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.NORM_PARAM and explanation.dtypes == dtypes


def test_mps_graphs_element_type_check_is_a_dtype_mismatch_under_autocast() -> None:
    explanation = cw.explain("failed assertion `Incompatible element type for parameter at index 1, mlir module "
                             "expected element type f32 but received bf16'")
    assert explanation.kind is Kind.SCALAR_TYPE and explanation.dtypes == ("f32", "bf16")
    assert "autocast" in explanation.cause


@pytest.mark.parametrize(("paste", "kind", "dtypes"), [
    ("[BUG] mean reduction doesn't work with torch.bfloat16 tensors\nNotImplementedError: reduce_mean is not "
     "available for non-floating tensors", Kind.NO_KERNEL, ("bf16",)),
    ("NotImplementedError: reduce_mean is not available for non-floating tensors", Kind.INTEGER_OPERAND, ()),
])
def test_einops_refusing_a_mean_is_an_old_einops_with_bf16_else_an_integer_tensor(
        paste: str, kind: Kind, dtypes: tuple[str, ...]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and explanation.dtypes == dtypes


def test_nccl_refusing_a_dtype_names_the_one_the_paste_used() -> None:
    explanation = cw.explain("tensor = torch.tensor([-1, 2], device=device, dtype=torch.int16)\nRuntimeError: "
                             "Unsupported data type for NCCL process group")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("int16",)


def test_glooss_invalid_scalar_type_in_a_title_in_parentheses_is_read() -> None:
    explanation = cw.explain("RuntimeError (Invalid Scalar Type) when training using `bf16-mixed` precision and DDP "
                             "(gloo backend)")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("bf16",)


def test_complex128_refused_by_a_backend_is_told_to_become_complex64() -> None:
    explanation = cw.explain("TypeError: Trying to convert ComplexDouble to the MPS backend but it does not have "
                             "support for that dtype.")
    assert explanation.kind is Kind.NO_KERNEL and "complex64" in explanation.fix


def test_code_that_converts_a_model_to_syncbatchnorm_does_not_name_the_op_that_raised() -> None:
    explanation = cw.explain("Error when using amp: expected scalar type float but found c10::Half\n\n"
                             "    model = torch.nn.SyncBatchNorm.convert_sync_batchnorm(model)\n"
                             "    with amp.autocast():\n        loss = model_func(model, batch)")
    assert explanation.kind is Kind.SCALAR_TYPE


@pytest.mark.parametrize(("paste", "kind"), [
    ('  File "torch/nn/quantized/functional.py", line 115, in conv2d\n    weight, bias, stride, padding)\n'
     "RuntimeError: expected scalar type QInt8 but found QUInt8 (data_ptr<c10::qint8> at TensorMethods.h:5748)",
     Kind.CONV_WEIGHT),
    ("RuntimeError: expected activation data type QUInt8 but got QInt8", Kind.SCALAR_TYPE),
])
def test_two_quantized_dtypes_are_activations_quint8_and_weights_qint8(paste: str, kind: Kind) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and set(explanation.dtypes) == {"qint8", "quint8"}
    assert "torch.qint8" in explanation.fix


@pytest.mark.parametrize("line", [
    "Torch(\"ScalarType is not supported in new_qtensor.\\nException raised from new_qtensor\")",
    "torch._dynamo.exc.Unsupported: Unsupported: quantized nyi in meta tensors with fake tensor propagation.",
    "NotImplementedError: could not find kernel for aten.quantize_per_tensor.tensor_qparams at dispatch key "
    "DispatchKey.Meta",
    "please report a bug to PyTorch. DispatchStub: missing CUDA kernel",
    "KeyError: 'bf16'",
])
def test_quantization_and_tracing_wordings_with_no_kernel_behind_them_are_missing_kernels(line: str) -> None:
    assert cw.explain(line).kind is Kind.NO_KERNEL


def test_a_missing_cuda_kernel_names_the_quantized_dtype_the_paste_used() -> None:
    explanation = cw.explain("qx = torch.quantize_per_tensor(x, 1.0, 0, dtype=torch.quint4x2).cuda()\n"
                             "RuntimeError: DispatchStub: missing CUDA kernel")
    assert explanation.dtypes == ("quint4x2",)


def test_a_tflite_input_of_another_dtype_is_a_dtype_mismatch() -> None:
    explanation = cw.explain("ValueError: Got value of type FLOAT32 but expected type UINT8 for input 0, name: "
                             "serving_default_input_1:0")
    assert explanation.kind is Kind.SCALAR_TYPE and explanation.dtypes == ("f32", "uint8")


@pytest.mark.parametrize("line", ["KeyError: 'foo'", "ValueError: 'bf16'"])
def test_a_string_key_that_names_no_dtype_or_another_error_is_not_a_dtype_table(line: str) -> None:
    assert cw.explain(line) is None


def test_onednns_lstm_primitive_it_could_not_build_is_a_recurrent_layer_of_two_dtypes() -> None:
    explanation = cw.explain("RuntimeError: could not create a primitive descriptor for the LSTM forward propagation "
                             "primitive. Run workload with environment variable ONEDNN_VERBOSE=all to get additional "
                             "diagnostic information.")
    assert explanation.kind is Kind.RNN and "dtype=x.dtype" in explanation.fix


def test_a_pandas_nullable_column_with_missing_values_is_a_numpy_conversion_problem() -> None:
    explanation = cw.explain("RuntimeError: Could not infer dtype of NAType")
    assert explanation.kind is Kind.NUMPY_DTYPE and "pd.NA" in explanation.culprit


def test_a_real_only_op_on_a_complex_spectrum_is_told_to_take_its_magnitude() -> None:
    with pytest.raises((NotImplementedError, RuntimeError)) as raised:
        torch.randn(4, dtype=torch.complex64).clamp(min=1e-8)
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.NO_KERNEL and ".abs()" in explanation.fix


def _valid_pixels(tile: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
    return torch.masked_select(tile, valid)


def test_a_live_masked_select_given_a_uint8_mask_names_the_dtype_its_frame_held() -> None:
    with pytest.raises(RuntimeError) as raised:
        _valid_pixels(torch.ones(4, 4), torch.ones(4, 4, dtype=torch.uint8))
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.MASK and explanation.dtypes == ("uint8",)


@pytest.mark.parametrize(("dtype", "advice"), [("int32", "int64"), ("int16", "int64"), ("int64", "float64")])
def test_an_integer_overflow_is_told_to_widen_the_dtype_before_clamping(dtype: str, advice: str) -> None:
    explanation = cw.explain(f"RuntimeError: value cannot be converted to type {dtype} without overflow")
    assert explanation.kind is Kind.VALUE_OVERFLOW and advice in explanation.fix.split(";")[0]


def test_black_blocks_on_a_gtx_16xx_are_nan_outputs_and_a_black_patch_mentioned_is_not() -> None:
    explanation = cw.explain("The portrait part shows black blocks\n\nGPU: NVIDIA GeForce GTX 1660 Ti")
    assert explanation.kind is Kind.NONFINITE and explanation.dtypes == ("f16",)
    assert cw.explain("a cat with a black patch on its ear") is None


@pytest.mark.parametrize(("title", "dtype"), [
    ("bf16 is very inaccurate on the LibTorch backend", "bf16"),
    ("[Bug]: The inference results of the FP16 model are incorrect", "f16"),
    ("bfloat16 llama logits are significantly different when the same input is in a batch", "bf16"),
])
def test_a_title_saying_values_come_out_wrong_in_16_bit_is_read_as_drift(title: str, dtype: str) -> None:
    explanation = cw.explain(f"{title}\n\n### System Info\ntorch 2.1")
    assert explanation.kind is Kind.NONFINITE and explanation.dtypes == (dtype,)
    assert "castwise doctor" in explanation.fix and explanation.confidence is Confidence.LOW


@pytest.mark.parametrize("text", [
    "[AMP] autocast generates incorrect output scalar type for fp16\n\nsee below",
    "ZeRO-3 incorrectly casts bf16 inputs to fp16\n\nsee below",
    "bf16 is very inaccurate on the LibTorch backend",
])
def test_a_title_about_a_wrong_dtype_or_a_bare_line_is_not_read_as_drift(text: str) -> None:
    assert cw.explain(text) is None


def test_an_error_logged_at_warning_level_is_said_with_low_confidence() -> None:
    logged = cw.explain("GPTNeo bfloat16 accuracy failed\n\nWARNING:common:current_device=xpu; error:value cannot be "
                        "converted to type float without overflow\nfail_accuracy")
    assert logged.kind is Kind.VALUE_OVERFLOW and logged.confidence is Confidence.LOW
    assert "warning level" in logged.culprit
    raised = cw.explain("RuntimeError: value cannot be converted to type float without overflow")
    assert raised.confidence is Confidence.HIGH


def test_errors_after_prose_that_ends_in_a_colon_are_error_lines_and_the_earliest_is_answered() -> None:
    explanation = cw.explain(
        "当使用offload_dtype=torch.float8_e4m3fn时，报错：NotImplementedError: \"mul_cuda\" not implemented for "
        "'Float8_e4m3fn'\n当使用offload_device=\"cpu\"时，报错：RuntimeError: Expected all tensors to be on the same "
        "device, but got index is on cuda:0, different from other tensors on cpu")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("float8_e4m3fn",)
    assert explanation.confidence is Confidence.LOW and "device_mismatch" in explanation.culprit


def test_loss_spikes_in_bf16_are_precision_not_a_loss_scale() -> None:
    explanation = cw.explain("Llama3-70B bf16 pre-training contains several loss spikes in the initial phase\n\nsee "
                             "the curves")
    assert explanation.kind is Kind.NONFINITE and explanation.dtypes == ("bf16",)
    assert "loses precision" in explanation.cause and "GradScaler" not in explanation.fix
    assert "GradScaler" in cw.explain("fp16 training: loss spikes after 2k steps\n\nlog below").fix


def test_apex_fp16_optimizers_old_overflow_log_is_a_skipped_step() -> None:
    explanation = cw.explain("Epoch 1/20\nGrad overflow on iteration 8\nUsing dynamic loss scale of 8192.0\n"
                             "Grad overflow on iteration 14\nUsing dynamic loss scale of 4096.0")
    assert explanation.kind is Kind.LOSS_SCALE and explanation.dtypes == ("f16",)


@pytest.mark.parametrize(("message", "names"), [
    ("Expected query, key, and value to have the same dtype, but got query.Type: struct c10::Half key.dtype: float "
     "and value.dtype: float instead.", ("f16", "f32")),
    ("Expected query, key, and value to have the same dtype, but got query.dtype: float key.dtype: c10::Half and "
     "value.dtype: c10::Half instead.", ("f32", "f16")),
    ("Query/Key/Value should all have the same dtype", ()),
])
def test_attention_dtype_checks_in_every_spelling_name_each_dtype_once(message: str, names: tuple[str, ...]) -> None:
    explanation = cw.explain(f"RuntimeError: {message}" if message.startswith("Expected") else f"ValueError: {message}")
    assert explanation.kind is Kind.SDPA and explanation.dtypes == names


def test_a_conv_message_retyped_without_its_dtypes_names_the_part_and_the_dtype_the_paste_says() -> None:
    explanation = cw.explain("Generating images w/ fp16: RuntimeError Input type and bias type should be the same\n\n"
                             "But when I generate an image I receive this error.")
    assert explanation.kind is Kind.CONV_BIAS and explanation.dtypes == ("f16",)
    assert explanation.confidence is Confidence.LOW


def test_torchtunes_parameter_dtype_check_names_the_parameter_and_its_dtype() -> None:
    explanation = cw.explain("ValueError: Parameter layers.0.attn.q_proj.weight has dtype torch.float8_e5m2fnuz")
    assert explanation.kind is Kind.OP_DTYPE and explanation.dtypes == ("float8_e5m2fnuz",)
    assert "layers.0.attn.q_proj.weight" in explanation.cause and "torchao" in explanation.fix


def test_a_kernel_that_requires_its_input_to_be_bf16_or_fp16_is_a_16_bit_only_kernel() -> None:
    explanation = cw.explain("AssertionError: Backwards requires embeddings to be bf16 or fp16")
    assert explanation.kind is Kind.NO_KERNEL and "only in fp16 and bf16" in explanation.cause


def test_an_ode_solvers_integer_initial_state_is_an_integer_operand() -> None:
    explanation = cw.explain("TypeError: `y0` must be a floating point Tensor but is a torch.LongTensor")
    assert explanation.kind is Kind.INTEGER_OPERAND and explanation.dtypes == ("int64",)
    assert "`y0`" in explanation.cause


def test_a_dtype_called_like_a_constructor_is_told_to_make_a_tensor_of_it() -> None:
    with pytest.raises(TypeError) as raised:
        torch.float(0.0)  # type: ignore[operator]
    explanation = cw.explain(raised.value)
    assert explanation.kind is Kind.SCALAR_TYPE and "torch.tensor(x, dtype=torch.float32)" in explanation.fix


def test_gradchecks_warning_about_float32_inputs_says_to_check_in_float64() -> None:
    explanation = cw.explain("Gradient check fails??\n\nUserWarning: Input #0 requires gradient and is not a double "
                             "precision floating point or complex. This check will likely fail if all the inputs are "
                             "not of double precision floating point or complex.")
    assert explanation.kind is Kind.NONFINITE and explanation.dtypes == ("f32",) and ".double()" in explanation.fix


def test_black_images_from_a_pipeline_naming_sdxl_are_told_to_upcast_the_vae() -> None:
    explanation = cw.explain("Black images after upgrade\n\nI tried to generate some images with SDXL. Everything "
                             "returned a black image with no errors in the console.")
    assert explanation.kind is Kind.NONFINITE and "upcast the VAE" in explanation.fix
    assert "VAE" not in cw.explain("Black images after upgrade\n\nEverything returns black images in fp16.").fix


def test_a_model_saved_in_fp32_after_a_merge_is_read_and_master_weights_saved_in_fp32_are_not() -> None:
    explanation = cw.explain("Merge lora adaptor leads to saving the model in FP32 though base model is of BF16\n\n"
                             "the merged model is twice the size")
    assert explanation.kind is Kind.SCALAR_TYPE and explanation.dtypes == ("f32", "bf16")
    assert "torch_dtype=torch.bfloat16" in explanation.fix
    assert cw.explain("Loading the checkpoint\n\nthe master_weight is saved in fp32, but becomes bf16 on load") is None


def test_a_dtype_comparison_inside_the_tracers_check_is_untraceable_code_not_the_users_allclose() -> None:
    compared = "Comparison exception: The values for attribute 'dtype' do not match: torch.float64 != torch.int64."
    traced = cw.explain("ERROR: Tensor-valued Constant nodes differed in value across invocations. This often "
                        f"indicates that the tracer has encountered untraceable code.\n{compared}")
    assert traced.kind is Kind.SCALAR_TYPE and "check_trace=False" in traced.fix
    assert cw.explain(f"AssertionError: {compared}").kind is Kind.INTEGER_OPERAND


@pytest.mark.parametrize(("paste", "kind", "names"), [
    ("model = ipex.optimize(model, dtype=torch.bfloat16)\n```RuntimeError: could not create a primitive descriptor for "
     "the inner product forward propagation primitive.", Kind.MATMUL, ("bf16",)),
    ("python run.py --dtype float16 --ipex\nRuntimeError: could not create a primitive descriptor for the inner "
     "product forward propagation primitive.", Kind.NO_KERNEL, ("f16",)),
])
def test_onednns_linear_primitive_is_two_dtypes_or_no_fp16_kernel_as_the_paste_runs(paste: str, kind: Kind,
                                                                                    names: tuple[str, ...]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and explanation.dtypes == names and explanation.confidence is Confidence.LOW


@pytest.mark.parametrize(("message", "names"), [
    ("KeyError: <DataType.bf16: 16>", ("bf16",)),
    ("RuntimeError: BatchPrefillWithPagedKVCache failed to dispatch with dtype Half", ("f16",)),
    ("RuntimeError: thnn_conv2d_forward is not_implemented for type torch.HalfTensor", ("f16",)),
    ("lltm_cuda_kernel.cu(123): error: identifier \"Half\" is undefined", ("f16",)),
    ("kernel.cu(9): error: identifier \"__nv_bfloat16\" is undefined", ("bf16",)),
])
def test_kernels_and_dtype_tables_without_a_16_bit_case_are_missing_kernels(message: str,
                                                                              names: tuple[str, ...]) -> None:
    explanation = cw.explain(message)
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == names


def test_an_op_implemented_only_for_float_and_double_names_the_16_bit_dtype_the_paste_runs() -> None:
    explanation = cw.explain("fp16 is no longer supported\nValueError: [KeOps] Error : only float and double dtypes "
                             "are implemented in new python engine for now")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("f16",)


def test_a_gaudi_node_the_graph_compiler_cannot_create_is_a_missing_kernel_on_the_hpu() -> None:
    explanation = cw.explain("RuntimeError: synNodeCreateWithId failed for node: spatial_convolution with synStatus 26 "
                             "[Generic failure].")
    assert explanation.kind is Kind.NO_KERNEL and "spatial_convolution" in explanation.cause
    assert "bf16" in explanation.fix


def test_a_scalar_type_message_retyped_without_found_is_still_two_dtypes() -> None:
    explanation = cw.explain("torch.cuda.amp on DCN gives the error \"RuntimeError:expect scalar type Float but Half\"\n"
                             "\n## Expected behavior")
    assert explanation.kind is Kind.SCALAR_TYPE and explanation.dtypes == ("f32", "f16")


def test_exclamation_marks_said_of_results_in_chinese_are_nan_logits() -> None:
    explanation = cw.explain("fp16推理结果出现“!!!!”\n\n环境信息")
    assert explanation.kind is Kind.NONFINITE and explanation.dtypes == ("f16",)


@pytest.mark.parametrize("card", ["2080ti", "Quadro RTX 8000"])
def test_a_kernel_not_built_for_a_pre_ampere_gpu_is_its_missing_bf16(card: str) -> None:
    explanation = cw.explain(f"{card} 运行报错 This kernel is not supported on your GPU\n\nlog")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("bf16",)
    assert card in explanation.cause and "torch.float16" in explanation.fix


@pytest.mark.parametrize("integer", ["Bool", "Int", "Byte", "Long"])
def test_integer_data_in_an_op_nothing_shows_is_said_with_low_confidence(integer: str) -> None:
    explanation = cw.explain(f"RuntimeError: expected scalar type Float but found {integer}")
    assert explanation.kind is Kind.INTEGER_OPERAND and explanation.confidence is Confidence.LOW


def test_an_index_put_message_with_a_space_before_its_comma_names_both_dtypes() -> None:
    explanation = cw.explain("RuntimeError : Index put requires the source and destination dtypes match ,got Half for "
                             "the destination and BFloat16 for the source.")
    assert explanation.kind is Kind.INDEXED_WRITE and explanation.dtypes == ("f16", "bf16")


def test_xlas_refusal_with_its_instruction_left_out_is_an_op_of_two_dtypes() -> None:
    explanation = cw.explain("Seen floating point types of different precisions (...) but mixed precision is "
                             "disallowed\n\nm = nn.Linear(5, 10).to(device=tpu, dtype=torch.bfloat16)")
    assert explanation.kind is Kind.OP_DTYPE and explanation.confidence is Confidence.LOW


def test_the_mxfp4_fallback_warning_says_which_kernels_are_missing() -> None:
    explanation = cw.explain("MXFP4 quantization requires `triton >= 3.4.0` and kernels installed, we will default to "
                             "dequantizing the model to bf16")
    assert explanation.kind is Kind.NO_KERNEL and "kernels" in explanation.fix


def test_a_wrapper_reporting_a_keyerror_on_an_fp8_dtype_name_is_a_dtype_table_without_it() -> None:
    explanation = cw.explain("RuntimeError: Worker failed with error ''float8_e8m0fnu''")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("float8_e8m0fnu",)


def test_bincounts_integral_input_check_is_float_labels_said_with_low_confidence() -> None:
    explanation = cw.explain("RuntimeError: bincount only supports 1-d non-negative integral inputs.")
    assert explanation.kind is Kind.INDEX_TENSOR and explanation.confidence is Confidence.LOW


def test_old_torchs_assigned_grad_of_another_type_is_a_gradient_dtype() -> None:
    assert cw.explain("RuntimeError: assigned grad has data of a different type").kind is Kind.LOSS_DTYPE


@pytest.mark.parametrize("paste", [
    "The perplexity metric requires the input dtype to be either fp32 or fp64, but this doesn't work with fp16",
    "Execution on CPU it's generating error by datatype half (float16) in model CLIP",
])
def test_16_bit_refused_on_the_cpu_or_by_a_float32_only_check_said_in_prose(paste: str) -> None:
    explanation = cw.explain(f"Bug\n\n{paste}")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("f16",)


@pytest.mark.parametrize(("message", "kind"), [
    ("NotImplementedError: Model data type and gradient accumulation data type must be equal to use ZeRO",
     Kind.OP_DTYPE),
    ("AssertionError: torch.autocast is enabled outside DeepSpeed, but not in the DeepSpeed config. Please enable "
     "torch.autocast through the DeepSpeed config", Kind.OP_DTYPE),
    ("ValueError: --tf32 requires Ampere or a newer GPU arch, cuda>=11 and torch>=1.7", Kind.NO_KERNEL),
    ("INFO 01-29 01:53:21 cuda.py:185] Cannot use FlashAttention-2 backend for FP8 KV cache.", Kind.NO_KERNEL),
    ("ValueError: FP8 quantized models is only supported on GPUs with compute capability >= 9.0 (e.g H100)",
     Kind.NO_KERNEL),
])
def test_framework_and_engine_precision_checks_are_read(message: str, kind: Kind) -> None:
    assert cw.explain(message).kind is kind


def test_accelerate_and_deepspeed_naming_two_16_bit_dtypes_are_told_to_agree() -> None:
    explanation = cw.explain("ValueError: `--mixed_precision` arg cannot be set to `bf16` when `fp16` is set in the "
                             "DeepSpeed config file.")
    assert explanation.kind is Kind.OP_DTYPE and explanation.dtypes == ("bf16", "f16") and "auto" in explanation.fix


def test_apex_amp_meeting_a_float64_tensor_is_told_to_make_it_float32() -> None:
    explanation = cw.explain("NotImplementedError: Do not know how to handle these types to promote: "
                             "{'DoubleTensor', 'FloatTensor'}")
    assert explanation.kind is Kind.OP_DTYPE and explanation.dtypes == ("f64", "f32") and ".float()" in explanation.fix


@pytest.mark.parametrize(("message", "names"), [
    ("AssertionError('initial value for `logits` is of type <[65536], bf16>, but the then block redefines it as "
     "<[65536], fp32>')", ("bf16", "f32")),
    ("AssertionError: Loop-carried variable acc has initial type fp32 but is re-assigned to bf16 in loop!",
     ("f32", "bf16")),
])
def test_a_triton_variable_changing_dtype_through_control_flow_names_both(message: str, names: tuple[str, ...]) -> None:
    explanation = cw.explain(message)
    assert explanation.kind is Kind.SCALAR_TYPE and explanation.dtypes == names and ".to(tl." in explanation.fix


def test_a_triton_variable_keeping_its_dtype_is_not_read_as_a_change() -> None:
    assert cw.explain("AssertionError('initial value for `x` is of type fp32, but the then block redefines it as "
                      "fp32')") is None


@pytest.mark.parametrize(("extension", "names"), [
    ("slstm_HS128BS8NH4NS4DBfDRbDWbDGbDSbDAfNG4SA1GRCV0GRC0d0FCV0FC0d0", ("bf16",)),
    ("slstm_HS64BS8NH4NS4DBfDRhDWhDGhDShDAfNG4SA1GRCV0GRC0d0FCV0FC0d0", ("f16",)),
])
def test_xlstms_extension_name_says_its_16_bit_kernels(extension: str, names: tuple[str, ...]) -> None:
    explanation = cw.explain(f"RuntimeError: Error building extension '{extension}'")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == names


def test_an_all_fp32_xlstm_extension_failing_to_build_is_not_read_as_a_dtype_problem() -> None:
    assert cw.explain("RuntimeError: Error building extension "
                      "'slstm_HS128BS8NH4NS4DBfDRfDWfDGfDSfDAfNG4SA1GRCV0GRC0d0FCV0FC0d0'") is None


@pytest.mark.parametrize(("paste", "name"), [
    ("Catastrophic gradient explosion (NaN) in RLHF with BF16", "bf16"),
    ("gradient explosion with fp16 training", "f16"),
    ("bf16训练梯度爆炸", "bf16"),
    ("grad norm too large with fp16", "f16"),
])
def test_a_gradient_explosion_said_near_a_16_bit_dtype_is_divergence(paste: str, name: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.NONFINITE and explanation.dtypes == (name,)


@pytest.mark.parametrize("title", [
    "Whole-model PCC collapses: bf16 tile storage quantizes the phase accumulation, causing catastrophic cancellation",
    "Loss of precision in fp16 attention scores",
    "bf16 precision loss in the rotary embedding",
])
def test_a_title_saying_precision_is_lost_in_16_bit_is_drift(title: str) -> None:
    explanation = cw.explain(f"{title}\n\nDescribe the bug")
    assert explanation.kind is Kind.NONFINITE and explanation.dtypes[0] in {"bf16", "f16"}


def test_transformers_logged_flash_attention_warning_gives_way_to_a_nan_title() -> None:
    warning = ("Flash Attention 2.0 only supports torch.float16 and torch.bfloat16 dtypes, but the current dype in "
               "BitnetModel is torch.float32. You should run training or inference using Automatic Mixed-Precision")
    assert cw.explain(f"BitNET training , nan\n\n{warning}\nstep 1").kind is Kind.NONFINITE
    assert cw.explain(f"Training is slow\n\n{warning}\nstep 1").kind is Kind.NO_KERNEL


@pytest.mark.parametrize("message", [
    "RuntimeError: Input type (torch.cuda.ByteTensor) and weight",
    "RuntimeError: Input type (torch.cuda.ByteTensor) and weight type",
])
def test_an_integer_conv_input_is_read_from_a_message_cut_at_the_weight(message: str) -> None:
    explanation = cw.explain(message)
    assert explanation.kind is Kind.INTEGER_OPERAND and explanation.dtypes == ("uint8",)


@pytest.mark.parametrize(("message", "word"), [
    ("NotImplementedError: AffineQuantizedTensor dispatch: attempting to run unimplemented operator/function: "
     "aten.permute.default", "aten.permute.default"),
    ("ValueError: 4-bit quantization data type int4 is not implemented.", "nf4"),
    ("ValueError: Using `fp8` precision requires `transformer_engine` or `MS-AMP` to be installed.",
     "transformer_engine"),
    ("AssertionError: Tensor dimensions are not compatible for FP8 execution: (2048 % 8 != 0, 767 % 16 != 0)", "16"),
])
def test_quantization_and_fp8_library_refusals_are_missing_kernels(message: str, word: str) -> None:
    explanation = cw.explain(message)
    assert explanation.kind is Kind.NO_KERNEL and word in f"{explanation.cause} {explanation.fix}"


def test_a_floating_conv_input_cut_at_the_weight_says_too_little() -> None:
    assert cw.explain("RuntimeError: Input type (torch.cuda.HalfTensor) and weight") is None


def test_a_missing_kernel_names_the_torch_function_that_called_it() -> None:
    paste = ('Traceback (most recent call last):\n  File "repro.py", line 9, in <module>\n'
             '    output = F.affine_grid(theta, size)\n'
             '  File "/usr/lib/python3.6/site-packages/torch/nn/functional.py", line 2785, in affine_grid\n'
             '    return torch.affine_grid_generator(theta, size, align_corners)\n'
             'RuntimeError: "linspace_cuda" not implemented for \'Half\'')
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.NO_KERNEL and "`F.affine_grid`" in explanation.cause


@pytest.mark.parametrize("line", ["# RuntimeError: Double did not match Float", "## RuntimeError: Double did not match Float"])
def test_an_error_written_as_a_code_comment_or_heading_is_read(line: str) -> None:
    explanation = cw.explain(f"d.cdf(torch.tensor(0.5, dtype=torch.float64))\n{line}\nThe same happens the other way")
    assert explanation.kind is Kind.OP_DTYPE and explanation.dtypes == ("f64", "f32")
    assert "default dtype" in explanation.cause


def test_a_gaussian_process_cholesky_failure_is_told_to_fit_in_double() -> None:
    explanation = cw.explain("NotPSDError: Matrix not positive definite after repeatedly adding jitter up to 1.0e-06.")
    assert explanation.kind is Kind.NONFINITE and ".double()" in explanation.fix


@pytest.mark.parametrize("op", ["coalesce", "to_dense", "unique_consecutive"])
def test_a_sparse_or_unique_op_without_a_bool_kernel_is_a_missing_kernel(op: str) -> None:
    explanation = cw.explain(f"RuntimeError: \"{op}\" not implemented for 'Bool'")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("bool",)


def test_nan_gradients_from_an_exponential_that_gave_inf_are_said_to_overflow() -> None:
    explanation = cw.explain("Sigmoid Surrogate calculating NaNs on backward pass\n\nsome gradients are NaN.\n"
                             "with an input of -5, exp(125) is calculated, which is sound, but for torch this is `inf`.")
    assert explanation.kind is Kind.NONFINITE and "overflows" in explanation.cause


@pytest.mark.parametrize(("scalar", "name"), [("bool_", "bool"), ("float_", "f64"), ("float32", "f32")])
def test_a_numpy_scalar_passed_where_torch_takes_a_tensor_is_told_to_convert_it(scalar: str, name: str) -> None:
    explanation = cw.explain(f"TypeError: div(): argument 'other' (position 1) must be Tensor, not numpy.{scalar}")
    assert explanation.kind is Kind.NUMPY_DTYPE and explanation.dtypes == (name,) and "float(" in explanation.fix


def test_tritons_packing_of_bf16_as_i16_is_a_missing_bf16_lowering() -> None:
    explanation = cw.explain("error: invalid element type in packLLEElements. Expected 'i16' but got 'bf16'")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("bf16",)


def test_a_bool_prediction_given_to_a_score_metric_is_told_to_pass_scores() -> None:
    explanation = cw.explain("ValueError: Expected argument `preds` to be an floating tensor with probability/logit "
                             "scores, but got tensor with dtype torch.bool")
    assert explanation.kind is Kind.INTEGER_OPERAND and explanation.dtypes == ("bool",) and "scores" in explanation.fix


@pytest.mark.parametrize(("message", "names"), [
    ("[TypeInferenceError] Mismatched tensor element type: source=9 target=2", ("bool", "uint8")),
    ("[TypeInferenceError] Mismatched tensor element type: source=10 target=1", ("f16", "f32")),
])
def test_onnx_element_type_codes_are_read_as_dtypes(message: str, names: tuple[str, ...]) -> None:
    explanation = cw.explain(message)
    assert explanation.kind is Kind.SCALAR_TYPE and explanation.dtypes == names


def test_an_onnx_string_element_type_is_not_read_as_a_dtype() -> None:
    assert cw.explain("[TypeInferenceError] Mismatched tensor element type: source=8 target=1") is None


def test_numpys_overflow_warning_is_an_fp16_overflow_only_when_fp16_is_named() -> None:
    explanation = cw.explain("python convert.py -t fp16\nRuntimeWarning: overflow encountered in multiply")
    assert explanation.kind is Kind.VALUE_OVERFLOW and explanation.dtypes == ("f16",)
    assert cw.explain("RuntimeWarning: overflow encountered in multiply") is None


def test_nan_in_a_title_is_read_after_chinese_text() -> None:
    explanation = cw.explain("GLM4v-9b lora微调，fp16一直grad_norm显示nan\n\n训练日志如下")
    assert explanation.kind is Kind.NONFINITE and explanation.dtypes == ("f16",)


def test_a_comparison_of_runs_in_different_precisions_is_not_a_mismatch() -> None:
    explanation = cw.explain("Running MoE inference leads to NaN activation\n\nHere is a screenshot created by the same "
                             "script with different precision. On the left given FP32 and on the right given FP16.")
    assert explanation.kind is Kind.NONFINITE


def test_a_kv_cache_backend_given_a_cache_dtype_it_lacks_is_a_missing_kernel() -> None:
    explanation = cw.explain("ValueError: Unknown TurboQuant cache dtype: 'auto'.")
    assert explanation.kind is Kind.NO_KERNEL and "'auto'" in explanation.cause


def test_patch_extraction_of_uint16_pixels_is_integer_data_in_float_math() -> None:
    explanation = cw.explain("NotImplementedError: \"im2col_out_cpu\" not implemented for 'UInt16'")
    assert explanation.kind is Kind.INTEGER_OPERAND and explanation.dtypes == ("uint16",)


def test_ptxas_refusing_fp16_arithmetic_on_an_old_gpu_says_to_run_in_float32() -> None:
    explanation = cw.explain("Feature 'f16 arithemetic and compare instructions' requires .target sm_53 or higher")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("f16",) and "float32" in explanation.fix


def test_nan_values_received_as_predictions_are_read() -> None:
    explanation = cw.explain("Converting to TensorRT\n\nwith the fp16 engine I just receive NaN values for the prediction.")
    assert explanation.kind is Kind.NONFINITE and explanation.dtypes == ("f16",)


@pytest.mark.parametrize("paste", [
    "FP16 engine does not detect object\n\nWith the fp32 engine it works.",
    "Detector on Xavier\n\nrunning at FP16 reduces computation time but there is no detection at all.",
    "Fp16 models return no detections\n\nall fp16 models return 0 detects",
])
def test_a_detector_finding_nothing_in_16_bit_is_a_broken_output(paste: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.NONFINITE and explanation.dtypes == ("f16",)


def test_a_detector_finding_nothing_without_a_16_bit_dtype_is_not_read() -> None:
    assert cw.explain("My model does not detect objects\n\nafter training for 10 epochs") is None


def test_a_loss_said_to_be_infinity_is_non_finite() -> None:
    assert cw.explain("A problem about the kl loss\n\nthe kl_loss is always infinity.").kind is Kind.NONFINITE


def test_a_pasted_subscript_write_with_no_traceback_is_an_indexed_write() -> None:
    paste = ("crash in _mask_tokens\n\n```python\nrandom_words = torch.randint(10, labels.shape, dtype=torch.long)\n"
             "inputs[indices_random] = random_words[indices_random]\n```\n"
             "The error was this:\nRuntimeError: expected dtype Float but got dtype Long")
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.INDEXED_WRITE and explanation.dtypes == ("f32", "int64")


def test_transformer_engines_fused_adam_given_a_parameter_of_another_dtype() -> None:
    explanation = cw.explain("RuntimeError: adam.cu:881 in function multi_tensor_adam_capturable_cuda: Assertion "
                             "failed. Param tensor 0 has dtype=Float32, but expected dtype=BFloat16")
    assert explanation.kind is Kind.OP_DTYPE and explanation.dtypes == ("f32", "bf16")


def test_cutlass_without_an_fp8_tensor_core_instruction_is_a_missing_kernel() -> None:
    explanation = cw.explain("void cutlass::arch::Mma<cutlass::gemm::GemmShape<16, 8, 32>, 32, cutlass::float_e4m3_t, "
                             "cutlass::layout::RowMajor, float>::operator()(...) const not implemented")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("float8_e4m3fn",)


def test_a_plug_in_backends_tensor_type_names_a_device_not_a_dtype() -> None:
    explanation = cw.explain("RuntimeError: Input type (torch.FloatTensor) and weight type (PrivateUse1FloatType) "
                             "should be the same or input should be a MKLDNN tensor and weight is a dense tensor")
    assert explanation.kind is Kind.DEVICE_MISMATCH and set(explanation.dtypes) == {"f32"}
    assert "privateuse1" in explanation.cause and "not a dtype problem" in explanation.cause


def test_int8_codes_beside_fp32_in_a_matmul_are_integer_data_even_when_quantization_is_said() -> None:
    paste = ("RuntimeError: expected m1 and m2 to have the same dtype, but got: float != unsigned char\n"
             "The strategy is cpu fp32i8, so the weights are int8 quantized.")
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.INTEGER_OPERAND and explanation.dtypes == ("f32", "uint8")


def test_uint8_codes_beside_bf16_in_a_matmul_stay_a_quantized_weight() -> None:
    explanation = cw.explain("RuntimeError: expected m1 and m2 to have the same dtype, but got: c10::BFloat16 != "
                             "unsigned char")
    assert explanation.kind is Kind.MATMUL and explanation.dtypes == ("bf16", "uint8")


def test_a_reduction_on_integers_is_read_when_its_name_was_cut_off() -> None:
    explanation = cw.explain("Input dtype must be either a floating point or complex dtype. Got: Long")
    assert explanation.kind is Kind.INTEGER_OPERAND and explanation.dtypes == ("int64",)


def test_an_sdks_upper_case_dtype_enums_are_read_as_dtypes() -> None:
    explanation = cw.explain("[2023-08-08 17:18:14.069] [mmdeploy] [error] [tensor.cpp:137] mismatched data type "
                             "FLOAT vs HALF")
    assert explanation.kind is Kind.SCALAR_TYPE and explanation.dtypes == ("f32", "f16")


@pytest.mark.parametrize(("got", "kind", "names"), [
    ("tensor[1,int32]", Kind.INTEGER_OPERAND, ("int32",)),
    ("tensor[1,3,fp16]", Kind.NO_KERNEL, ("f16",)),
])
def test_core_mls_type_domain_check(got: str, kind: Kind, names: tuple[str, ...]) -> None:
    domain = "['fp32']" if "fp16" in got else "['fp16', 'fp32']"
    explanation = cw.explain(f'ValueError: Op "1309" (op_type: inverse) Input x="1308" expects tensor or scalar of '
                             f"dtype from type domain {domain} but got {got}")
    assert explanation.kind is kind and explanation.dtypes == names


def test_core_mls_type_domain_check_is_declined_for_a_listed_dtype() -> None:
    assert cw.explain('ValueError: Op "7" (op_type: add) Input x="6" expects tensor or scalar of dtype from type '
                      "domain ['fp16', 'fp32'] but got tensor[1,fp32]") is None


def test_the_onnx_exporter_refusing_a_complex_tensor_is_a_missing_kernel() -> None:
    explanation = cw.explain("RuntimeError: ScalarType ComplexDouble is an unexpected tensor scalar type")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("complex128",)
    assert "view_as_real" in explanation.fix


@pytest.mark.parametrize(("paste", "op"), [
    ("Unexpected keyword argument 'bf16'\n\nTraceback (most recent call last):\n  File \"train.py\", line 3", "bf16="),
    ("Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n"
     "    accelerator = Accelerator(fp16=True)\nTypeError: __init__() got an unexpected keyword argument 'fp16'",
     "Accelerator(fp16=...)"),
])
def test_a_refused_precision_keyword_names_accelerate_only_when_the_paste_does(paste: str, op: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.NO_KERNEL and explanation.op == op


def test_bool_and_uint8_masks_offer_both_common_dtypes() -> None:
    explanation = cw.explain("RuntimeError: Expected object of scalar type unsigned char but got scalar type bool for "
                             "argument 'other'")
    assert explanation.kind is Kind.MASK and ".byte()" in explanation.fix and ".bool()" in explanation.fix


@pytest.mark.parametrize("paste", [
    "cosine_similarity gives 0 for fp16 inputs\n\n`F.cosine_similarity(a.half(), b.half())` outputs 0, fp32 is fine",
    "Cosine above one with HalfTensor\n\nnn.CosineSimilarity on these vectors gives a result larger than 1",
])
def test_cosine_similarity_said_to_go_wrong_in_fp16_is_an_overflow(paste: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.VALUE_OVERFLOW and explanation.dtypes == ("f16",)


def test_cosine_similarity_named_as_a_consequence_of_nan_is_not_its_overflow() -> None:
    explanation = cw.explain("Silent all-NaN embeddings from the fp16 model\n\nEvery component is NaN, so cosine "
                             "similarity becomes NaN downstream.")
    assert explanation is None or explanation.kind is not Kind.VALUE_OVERFLOW


@pytest.mark.parametrize("paste", [
    "Scores create spurious ties in fp16\n\nIn float16 distinct scores collapse into identical values.",
    "accuracy dropped after export\n\nthe fp16 TensorRT engine runs, but the accuracy of pose estimation has "
    "deteriorated",
])
def test_precision_lost_in_16_bit_said_in_words_is_drift(paste: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.NONFINITE and explanation.dtypes == ("f16",)


def test_values_said_to_be_cast_silently_to_float32_lose_precision() -> None:
    explanation = cw.explain("convert() silently truncates positions to float32, ignoring the requested float64")
    assert explanation.kind is Kind.NONFINITE and explanation.dtypes == ("f32",)
    assert "as_tensor" in explanation.fix


def test_generations_of_only_unknown_tokens_in_fp16_are_broken_outputs() -> None:
    explanation = cw.explain("Output broken with float16\n\n$ python t5.py --dtype float16\n"
                             "<unk><unk><unk><unk><unk><unk>")
    assert explanation.kind is Kind.NONFINITE and explanation.dtypes == ("f16",)


def test_an_optimizers_own_bf16_only_assertion_is_a_missing_kernel() -> None:
    paste = ("Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n    optimizer.step()\n"
             "  File \"adamw_bf16.py\", line 40, in step\n    assert p.dtype == torch.bfloat16, \"only bfloat 16 is "
             "supported.\"\nAssertionError: only bfloat 16 is supported.")
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("bf16",)
    assert explanation.op == "optimizer.step" and "model.to(torch.bfloat16)" in explanation.fix


def test_black_images_said_to_be_produced_in_chinese_are_a_broken_output() -> None:
    explanation = cw.explain("[Bug]: sdxl 生产图片黑屏\n\n### What happened?\n\nsdxl 生产图片黑屏")
    assert explanation.kind is Kind.NONFINITE and "VAE" in explanation.fix


def test_a_one_dtype_limit_said_in_prose_is_not_read_as_the_failure() -> None:
    explanation = cw.explain("AWQ and bf16\n\na user got an error indicating that only float16 is supported with AWQ.")
    assert explanation is None or "its own assertion" not in explanation.cause


@pytest.mark.parametrize(("message", "names"), [
    ("dgl.utils.internal.InconsistentDtypeException: DGL now requires the input tensor to have the same dtype as the "
     "graph index's dtype(which you can get by g.idype). Index data specified as int64, but got: int32",
     ("int32", "int64")),
    ('dgl._ffi.base.DGLError: Expect argument "v" to have data type torch.int32 and device context cpu. But got '
     "torch.int64 and cpu.", ("int64", "int32")),
])
def test_dgl_ids_of_another_width_than_the_graph(message: str, names: tuple[str, ...]) -> None:
    explanation = cw.explain(message)
    assert explanation.kind is Kind.INDEX_TENSOR and explanation.dtypes == names


def test_a_floating_pyg_edge_index_is_most_often_features_in_its_place() -> None:
    explanation = cw.explain("ValueError: Expected 'edge_index' to be of type 'torch.long' (got 'torch.float32')")
    assert explanation.kind is Kind.INDEX_TENSOR and explanation.dtypes == ("int64", "f32")
    assert "order of the arguments" in explanation.fix


@pytest.mark.parametrize(("message", "names"), [
    ("ValueError: indices dtype must be torch.int64, got torch.int32", ("int64", "int32")),
    ("TypeError: expected Int but got Long for argument 'indptr'", ("int32", "int64")),
    ("ValueError: Index dtype mismatch: expected int64, found int32", ("int64", "int32")),
])
def test_two_index_widths_in_an_unknown_check_are_ids_of_the_wrong_width(message: str, names: tuple[str, ...]) -> None:
    explanation = cw.explain(message)
    assert explanation.kind is Kind.INDEX_TENSOR and explanation.dtypes == names
    assert explanation.confidence is Confidence.LOW and f".to(torch.{names[0]})" in explanation.fix


def test_a_list_of_accepted_index_widths_is_no_mismatch() -> None:
    explanation = cw.explain("RuntimeError: Expected tensor for argument #1 'indices' to have one of the following "
                             "scalar types: Long,Int but got toech.cuda.floatTensor in stead")
    assert explanation is None or explanation.dtypes != ("int64", "int32")


def test_two_index_widths_beside_a_criterion_call_are_a_class_target() -> None:
    explanation = cw.explain("Long type expected, Int provided\n\nAt trainer.py, line 384\n"
                             "`loss = criterion(torch.log(output), proj_labels)`")
    assert explanation.kind is Kind.TARGET and "int32" in explanation.dtypes and ".long()" in explanation.fix


def test_an_index_said_to_be_long_but_given_floats_is_an_index_built_as_floats() -> None:
    explanation = cw.explain("AssertionError: expected edge index of dtype torch.long but got torch.float32")
    assert explanation.kind is Kind.INDEX_TENSOR and explanation.dtypes == ("int64", "f32")
    assert explanation.confidence is Confidence.LOW


def test_image_widths_named_in_prose_are_not_read_as_index_widths() -> None:
    explanation = cw.explain("torchvision expects int16 to set 'I;16' and does not support a uint16 ndarray")
    assert explanation is None or explanation.kind is not Kind.INDEX_TENSOR


@pytest.mark.parametrize("message", [
    "ValueError: Invalid T5 text encoder model, fp8 scaled is not supported by this node",
    "!!! Exception during processing !!! Invalid T5 text encoder model, fp8 scaled is not supported by this node",
])
def test_a_loader_refusing_a_scaled_fp8_checkpoint_wants_another_file(message: str) -> None:
    explanation = cw.explain(message)
    assert explanation.kind is Kind.NO_KERNEL and "scaled" in explanation.cause and "loader" in explanation.fix


def test_an_fp8_matmul_that_fell_back_to_dequantization_is_a_slow_path_said_with_low_confidence() -> None:
    explanation = cw.explain("- **Exception Message:** FP8 _scaled_mm failed, falling back to dequantization: 'tuple' "
                             "object has no attribute 'dtype'")
    assert explanation.kind is Kind.NO_KERNEL and explanation.confidence is Confidence.LOW
    assert "dequantiz" in explanation.cause and "update" in explanation.fix


def test_fp8_said_to_need_a_newer_rocm_is_torchs_rocm_build_with_low_confidence() -> None:
    explanation = cw.explain("FP8 not running claiming I need ROCm 6.5 or higher, but I believe I am running 7.x\n\n"
                             "It errors out when hitting the KSampler node.")
    assert explanation.kind is Kind.NO_KERNEL and "ROCm 6.5 or newer" in explanation.fix
    assert explanation.confidence is Confidence.LOW


def test_deepspeeds_overflow_in_capitals_is_a_falling_loss_scale_but_the_word_in_prose_is_not() -> None:
    said = cw.explain("DeepSpeed finetune第二阶段报OVERFLOW，然后自动退出\n[INFO] [config.py:737:print] loss_scale ... 0")
    assert said.kind is Kind.LOSS_SCALE
    prose = cw.explain("FP16 overflow with GPT-Neo when using sequence lengths of 2048 and deepspeed")
    assert prose is None or prose.kind is not Kind.LOSS_SCALE


@pytest.mark.parametrize("title", ["Training CodeLLaMa-7b with FSDP in bf16 causes loss 0 error",
                                   "训练没多久loss 就 0了 with bf16"])
def test_a_loss_said_to_go_to_zero_in_16_bit_is_a_broken_training_step(title: str) -> None:
    explanation = cw.explain(f"{title}\n\nmore text")
    assert explanation.kind is Kind.NONFINITE and explanation.dtypes == ("bf16",)


def test_an_fsdp_uniform_dtype_check_quoted_without_its_dtypes_is_still_fsdps() -> None:
    explanation = cw.explain('"Inconsistent compute device" and "requires uniform dtype"\n\nTraceback (most recent '
                             "call last):\n  File \"ppo.py\", line 182, in <module>\n    model = FSDP(model)")
    assert explanation.kind is Kind.OP_DTYPE and "MixedPrecision" in explanation.fix


def test_deepspeeds_fp16_engine_refusing_fp32_lora_weights_says_to_cast_the_adapters() -> None:
    explanation = cw.explain("ValueError: fp16 is enabled but the following parameters have dtype that is not fp16: "
                             "base_model.model.gpt_neox.layers.0.attention.query_key_value.lora_A.weight")
    assert explanation.kind is Kind.OP_DTYPE and explanation.dtypes[0] == "f16"
    assert "get_peft_model" in explanation.fix


def test_onnxruntimes_inserted_precision_casts_are_fp16_on_its_cpu_provider() -> None:
    explanation = cw.explain("[E:onnxruntime:onnxruntime-genai, sequential_executor.cc:572 ExecuteKernel] Non-zero "
                             "status code returned while running Cast node. Name:'InsertedPrecisionFreeCast_/model/"
                             "layers.1/attn/v_proj/Reshape_4/output_0'")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("f16",) and explanation.device == "cpu"


def test_a_config_error_below_a_title_saying_the_loss_went_to_zero_is_said_with_low_confidence() -> None:
    explanation = cw.explain("训练没多久loss 就 0了\n\n设置fp16 True\nValueError: `--mixed_precision` arg cannot be set "
                             "to `fp16` when `bf16` is set in the DeepSpeed config file.")
    assert explanation.kind is Kind.OP_DTYPE and explanation.confidence is Confidence.LOW
    assert "title" in explanation.culprit


def test_a_library_log_offering_amp_false_leads_the_fix_for_a_broken_output() -> None:
    explanation = cw.explain("fp16 models return no detections\n\nAMP: checks skipped. Setting 'amp=True'. If you "
                             "experience zero-mAP or NaN losses you can disable AMP with amp=False.")
    assert explanation.kind is Kind.NONFINITE and explanation.fix.startswith("first train with AMP off")


def test_a_check_listing_the_dtypes_it_takes_and_refusing_float16_is_a_missing_16_bit_path() -> None:
    explanation = cw.explain("Data type must be one of [float32, float64, int16, int32], not float16\n\n"
                             "got the subject line error at the melbandroformer node")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("f16",) and "float32" in explanation.fix


@pytest.mark.parametrize(("text", "names"), [
    ("[inductor] Compiling torch.nan_to_num on complex128 raises RuntimeError: Complex dtype is not supported for "
     "isneginf, got dtype torch.complex128", ("complex128",)),
    ("[Inductor][CUDA] Complex tensor constant causes KeyError: 'complex64' during Triton codegen", ("complex64",)),
    ("[inductor] `float64` KeyError\n\nwith torch.compile", ("f64",)),
    ("[torch.compile] Failing on some complex operations with torch._inductor.exc.InductorError: AttributeError: "
     "'complex' object has no attribute 'get_name'", ("complex64",)),
])
def test_what_inductor_cannot_generate_code_for_is_kept_out_of_the_compiled_graph(
        text: str, names: tuple[str, ...]) -> None:
    explanation = cw.explain(text)
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == names
    assert "torch.compiler.disable" in explanation.fix


def test_a_dtype_keyerror_without_torch_compile_in_view_is_not_read_as_inductors() -> None:
    assert cw.explain("KeyError: 'float64'") is None


def test_tritons_verifier_refusing_two_element_types_in_a_scan_is_one_dtype_for_its_operands() -> None:
    explanation = cw.explain("error: 'tt.scan' op requires the same element type for all operands and results")
    assert explanation.kind is Kind.OP_DTYPE and "tl.float32" in explanation.fix


def test_a_bf16_conversion_llvm_cannot_lower_says_to_cast_inside_the_kernel() -> None:
    explanation = cw.explain("calling `tl.exp` with a bfloat16 input crashes:\nerror: cannot be converted to LLVM IR: "
                             "missing `LLVMTranslationDialectInterface` registration for dialect for op: "
                             "builtin.unrealized_conversion_cast")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("bf16",)
    assert "x.to(tl.float32)" in explanation.fix


def test_torch_tensorrt_refusing_an_fp8_input_wants_float_inputs_and_fp8_inside() -> None:
    explanation = cw.explain("TypeError: Provided an unsupported data type as an input data type (support: bool, "
                             "int32, long, half, float), got: torch.float8_e4m3fn")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("float8_e4m3fn",)


def test_autocast_refusing_mps_in_an_older_torch_says_to_update_or_convert() -> None:
    explanation = cw.explain("RuntimeError: User specified an unsupported autocast device_type 'mps'")
    assert explanation.kind is Kind.NO_KERNEL and "MPS: torch 2.5" in explanation.fix


def test_fp8_said_to_be_unsupported_on_a_device_is_a_missing_fp8_path_there() -> None:
    explanation = cw.explain("xpu does not support fp8 model as input due to triton\n\nthe xpu env has its own triton")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("float8_e4m3fn",)
    assert explanation.device == "xpu" and explanation.confidence is Confidence.LOW


@pytest.mark.parametrize("text", ["On training it creates a mismatch between `half` and `float`. Is amp applied?",
                                  "there is a mismatch between fp16 and fp32 tensors"])
def test_a_mismatch_said_between_two_dtypes_is_two_floats_in_one_op(text: str) -> None:
    explanation = cw.explain(text)
    assert explanation.kind is Kind.SCALAR_TYPE and explanation.dtypes == ("f16", "f32")
    assert explanation.confidence is Confidence.LOW


def test_the_dtype_a_report_says_works_is_not_the_one_it_blames() -> None:
    explanation = cw.explain("Gemma 3 is broken with fp16\n\nGemma 3 works fine with bfloat16 but the output is empty "
                             "with float16.")
    assert explanation.kind is Kind.NONFINITE and explanation.dtypes == ("f16",)


def test_complex_scores_given_to_softmax_or_a_classification_loss_want_real_scores() -> None:
    explanation = cw.explain("RuntimeError: \"log_softmax_lastdim_kernel_impl\" not implemented for 'ComplexFloat'")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("complex64",) and "z.abs()" in explanation.fix


def test_complex_gradients_in_a_grad_scaler_are_not_fp16_ones() -> None:
    explanation = cw.explain("RuntimeError: \"_amp_foreach_non_finite_check_and_unscale_cuda\" not implemented for "
                             "'ComplexFloat'")
    assert explanation.kind is Kind.UNSCALE_FP16 and explanation.dtypes == ("complex64",)
    assert "without a GradScaler" in explanation.fix


def test_bitsandbytes_saying_the_gpu_has_no_int8_matmul_offers_4_bit_or_fp16() -> None:
    explanation = cw.explain("ERROR: Your GPU does not support Int8 Matmul!")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("int8",) and "load_in_4bit" in explanation.fix


def test_an_fp8_moe_layer_refusing_per_channel_scales_wants_per_tensor_ones() -> None:
    explanation = cw.explain("ValueError: For FP8 Fused MoE layers, only per-tensor scales for weights and activations "
                             "are supported. Found num_bits=8 type='float' strategy='channel'")
    assert explanation.kind is Kind.NO_KERNEL and "per tensor" in explanation.fix


def test_a_kernels_int8_check_quoted_in_a_title_is_still_read() -> None:
    explanation = cw.explain('[Bug] FP8 Model Loading Fails with "Expected torch::kInt8" (H100, cutlass_scaled_mm)')
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("int8",)


def test_a_missing_bf16_path_on_a_gpu_suggests_fp16_as_the_other_16_bit_dtype() -> None:
    explanation = cw.explain("UserWarning: NVIDIA GeForce RTX 2060 does not support bfloat16 compilation natively, "
                             "skipping")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("bf16",)
    assert "fp16, float16, instead of bf16" in explanation.fix


def test_an_old_torch_refusing_an_infinite_fill_value_says_to_update() -> None:
    explanation = cw.explain("RuntimeError: value cannot be converted to type float without overflow: -inf")
    assert explanation.kind is Kind.VALUE_OVERFLOW and explanation.dtypes == ("f32",)
    assert explanation.fix.startswith("update torch")


def test_a_library_check_saying_one_input_has_one_type_but_another_input_another_is_a_mismatch() -> None:
    explanation = cw.explain("RuntimeError: first input has type Half but second input has type Float")
    assert explanation.kind is Kind.SCALAR_TYPE and explanation.dtypes == ("f16", "f32")


def test_a_lerp_call_in_the_frame_makes_the_bare_expected_dtype_check_lerps_not_a_losss() -> None:
    explanation = cw.explain("~/mixup.py in hook_mixup(self, module, input, output)\n"
                             "--> 142             output = torch.lerp(output[self.shuffle], output, weight=lam)\n\n"
                             "RuntimeError: expected dtype Float but got dtype Half")
    assert explanation.kind is Kind.LERP and explanation.dtypes == ("f32", "f16")


def test_a_reduction_made_complex_through_dtype_is_torchs_op_not_a_custom_backward() -> None:
    explanation = cw.explain("x = torch.rand(3, 3, dtype=torch.float64, requires_grad=True)\n"
                             "res = torch.prod(x, dtype=torch.complex64)\nres.backward()\n"
                             "RuntimeError: Expected isFloatingType(grad.scalar_type()) || (input_is_complex == "
                             "grad_is_complex) to be true, but got false.")
    assert explanation.kind is Kind.OP_DTYPE and "x.to(torch.complex64)" in explanation.fix


def test_a_backward_gradient_of_the_same_dtype_on_another_device_is_a_device_mismatch() -> None:
    explanation = cw.explain("RuntimeError: Function AddBackward0 returned an invalid gradient at index 1 - expected "
                             "type torch.FloatTensor but got torch.cuda.FloatTensor")
    assert explanation.kind is Kind.DEVICE_MISMATCH and "not a dtype problem" in explanation.cause


def test_torch_zero_backends_missing_a_tensor_type_say_to_update_torch() -> None:
    stateless = cw.explain("RuntimeError: Type HalfTensor doesn't implement stateless methods")
    assert stateless.kind is Kind.NO_KERNEL and stateless.dtypes == ("f16",) and stateless.fix.startswith("update")
    thnn = cw.explain("    return self._backends[type(tensor)]\nKeyError: <class 'torch.cuda.DoubleTensor'>")
    assert thnn.kind is Kind.NO_KERNEL and thnn.dtypes == ("f64",) and thnn.device == "cuda"
    assert cw.explain("<class 'torch.cuda.DoubleTensor'>") is None


def test_a_converter_refusing_a_dtype_under_a_logger_prefix_is_its_missing_table_entry() -> None:
    explanation = cw.explain("[2023-10-03 02:28:57,269] torch._dynamo.convert_frame: [WARNING] TypeError: "
                             "torch.int64 is not a supported dtype")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("int64",)


def test_a_quantization_config_for_another_format_names_the_right_config() -> None:
    explanation = cw.explain("ValueError: ModelOptFp8Config only supports static FP8 quantization in SGLang. For FP4 "
                             "quantization, use ModelOptFp4Config. Check the quantization config.")
    assert explanation.kind is Kind.NO_KERNEL and "`ModelOptFp4Config`" in explanation.fix


def test_a_kernels_assertion_of_one_sixteen_bit_dtype_is_a_kernel_for_that_dtype_only() -> None:
    explanation = cw.explain('assertion error " assert qkv.dtype == torch.float16"')
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("f16",)
    assert "x.to(torch.float16)" in explanation.fix


def test_prose_giving_a_norms_input_weight_and_bias_dtypes_is_a_norm_parameter_mismatch() -> None:
    explanation = cw.explain("outputs = F.layer_norm(input, input.shape[-1:], weight, bias)\n"
                             "The data types of input, weight, and bias are fp32, fp16, and fp16 respectively, but "
                             "torch.compile does not support this dtype combination.\n\naccuracy failed")
    assert explanation.kind is Kind.NORM_PARAM and explanation.dtypes == ("f32", "f16")


def test_a_bare_expected_scalar_type_beside_quoted_matmul_code_is_a_matmul_mismatch() -> None:
    explanation = cw.explain("RuntimeError: expected scalar type Float but found BFloat16\n"
                             "Looking at the function on which it errors:\n"
                             "    scores = scores.to(dtype=torch.float32)\n"
                             "    hidden_states = torch.matmul(value, scores)")
    assert explanation.kind is Kind.MATMUL and explanation.dtypes == ("f32", "bf16")


def test_gradients_said_to_show_up_as_nan_in_fp16_are_non_finite() -> None:
    explanation = cw.explain("Use of FP16 in backward with create_graph = True?\n\n"
                             "many other gradients show up as nan's. All seems OK when I use FP32.")
    assert explanation.kind is Kind.NONFINITE and explanation.dtypes == ("f16",)


def test_chinese_does_not_support_beside_an_fp8_cache_dtype_is_a_missing_kernel() -> None:
    explanation = cw.explain("[Bug]: Triton 不支持 --kv-cache-dtype fp8_ds_mla")
    assert explanation.kind is Kind.NO_KERNEL and explanation.confidence is Confidence.LOW
    spelled = cw.explain("RTX 2080 Ti 显存 不支持 Bfloat16，能不能让 vllm 启动时配置 float16")
    assert spelled.dtypes == ("bf16",)


def test_recomputation_said_to_see_other_dtypes_is_checkpointings_recompute_check() -> None:
    explanation = cw.explain("with torch.autocast('cuda', dtype=torch.bfloat16):\n"
                             "the autocast context is lost, so inputs have different dtypes during the recomputation "
                             "compared to the original forward pass")
    assert explanation.kind is Kind.SCALAR_TYPE and "recompute" in explanation.cause


def test_a_mismatch_of_a_norms_gamma_and_beta_said_in_chinese_is_a_norm_parameter_mismatch() -> None:
    explanation = cw.explain("layernorm支持混合精度\n\n调用 F.layer_norm：当inputs和gamma、beta的类型不一致时会出错")
    assert explanation.kind is Kind.NORM_PARAM and explanation.confidence is Confidence.LOW


def test_matmuls_newer_wordings_name_both_dtypes() -> None:
    anded = cw.explain("RuntimeError: expected mat1 and mat2 to have the same dtype, but got Float and BFloat16")
    assert anded.kind is Kind.MATMUL and anded.dtypes == ("f32", "bf16")
    colon = cw.explain("RuntimeError: expected m1 and m2 to have the same dtype: Float8_e4m3fn != BFloat16")
    assert colon.kind is Kind.MATMUL and colon.dtypes == ("float8_e4m3fn", "bf16")


def test_a_nan_loss_in_a_true_16_bit_run_leads_with_mixed_precision() -> None:
    explanation = cw.explain("loss became nan after first optimizer step\n\nAnd I am using 16-true.\n"
                             "iter 8 step 1: loss nan")
    assert explanation.kind is Kind.NONFINITE and explanation.fix.startswith("train with mixed precision")
    assert "`16-mixed`" in explanation.fix


def test_gpt_neox_giving_up_after_overflowed_iterations_is_a_loss_scale_floor() -> None:
    explanation = cw.explain("Exception: Skipped 50 iterations in a row due to Overflow - Exiting training.")
    assert explanation.kind is Kind.LOSS_SCALE and explanation.dtypes == ("f16",)


def test_gradient_overflow_beside_a_log_of_a_softmax_leads_with_log_softmax() -> None:
    explanation = cw.explain("we use softmax->log->nll_loss. When training with fp16_optimizer, we found sudden "
                             "gradient overflows and skip all steps")
    assert explanation.kind is Kind.LOSS_SCALE and explanation.fix.startswith("compute log-probabilities")
    plain = cw.explain("When training with fp16_optimizer, we found sudden gradient overflows and skip all steps")
    assert plain.kind is Kind.LOSS_SCALE and "log_softmax" not in plain.fix


def test_quantizing_an_embedding_with_an_int8_qconfig_names_the_weight_only_one() -> None:
    explanation = cw.explain("AssertionError: Embedding quantization is only supported with "
                             "float_qparams_weight_only_qconfig.")
    assert explanation.kind is Kind.NO_KERNEL and "float_qparams_weight_only_qconfig" in explanation.fix


def test_an_integer_dtype_said_to_overflow_is_a_wrap_around_fixed_by_a_wider_integer() -> None:
    explanation = cw.explain("int32 overflow in compute_approx_vram_consumption\n\nthe batch size came out negative")
    assert explanation.kind is Kind.VALUE_OVERFLOW and explanation.dtypes == ("int32", "int64")
    assert "`.long()`" in explanation.fix
    int8 = cw.explain("INT8 overflow on matmul\n\ngives wrong result on INT8 input")
    assert int8.dtypes == ("int8", "int32")


def test_old_sparse_tensor_types_are_read_as_their_dtypes() -> None:
    explanation = cw.explain("TypeError: _sparse_mask received an invalid combination of arguments - got "
                             "(torch.sparse.LongTensor), but expected (torch.sparse.IntTensor mask)")
    assert explanation.kind is Kind.SCALAR_TYPE and set(explanation.dtypes) == {"int32", "int64"}
    assert ".to(torch.int32)" in explanation.fix


def test_a_sparse_csr_dtype_conversion_that_torch_cannot_copy_is_rebuilt_from_its_parts() -> None:
    explanation = cw.explain("t = torch.sparse_csr_tensor(crow, col, values, dtype=torch.double)\n"
                             "t.to(dtype=torch.float)\nRuntimeError: copy_sparse_csr_: only tensors with the same "
                             "number of specified elements are supported.")
    assert explanation.kind is Kind.NO_KERNEL and "t.values().to(dtype)" in explanation.fix
    assert cw.explain("RuntimeError: copy_sparse_csr_: only tensors with the same number of specified elements are "
                      "supported.") is None


def test_pytests_failed_dtype_assertion_of_an_integer_and_a_float_is_an_integer_operand() -> None:
    explanation = cw.explain("    assert result.dtype == img.dtype\nAssertionError: torch.int32 == torch.float32")
    assert explanation.kind is Kind.INTEGER_OPERAND and explanation.dtypes == ("int32", "f32")
    assert cw.explain("AssertionError: torch.float16 == torch.float32") is None


def test_compile_said_to_change_the_outputs_in_half_precision_is_a_compiled_rounding_difference() -> None:
    explanation = cw.explain("torch compile changes model output in half precision\n\nSystem Info")
    assert explanation.kind is Kind.NONFINITE and explanation.op == "torch.compile"


def test_a_model_said_to_diverge_with_fp16_is_a_training_blow_up() -> None:
    explanation = cw.explain("Model diverges if FP16 is enabled\n\nThe loss decreases at first, then increases.")
    assert explanation.kind is Kind.NONFINITE and explanation.dtypes == ("f16",)


def test_a_chinese_retelling_of_the_conv_input_and_weight_mismatch_is_a_conv_weight_mismatch() -> None:
    explanation = cw.explain("paligemma 评估时输入类型和权重类型不匹配的错误")
    assert explanation.kind is Kind.CONV_WEIGHT and explanation.confidence is Confidence.LOW


def test_a_result_said_to_be_totally_incorrect_in_fp16_is_a_precision_drift() -> None:
    explanation = cw.explain("I convert the model in fp32 fine. However when doing `fp16` conversion, the result is "
                             "totally incorrect.")
    assert explanation.kind is Kind.NONFINITE and explanation.dtypes == ("f16",)


def test_deepspeeds_fp32_engine_refusing_bf16_parameters_says_to_enable_bf16() -> None:
    explanation = cw.explain("ValueError: torch.float32 is enabled but the following parameters have dtype that is "
                             "not torch.float32: [('module.model.weight', torch.bfloat16)]")
    assert explanation.kind is Kind.OP_DTYPE and explanation.dtypes == ("f32", "bf16")
    assert '"bf16": {"enabled": true}' in explanation.fix


def test_a_kernel_line_cut_before_its_dtype_takes_the_16_bit_dtype_the_report_names() -> None:
    explanation = cw.explain("LiLT can not make inference with the Half (float16) dtype on CPU\n\n"
                             "RuntimeError: \"LayerNormKernelImpl\" not imple")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("f16",)
    assert cw.explain("RuntimeError: \"LayerNormKernelImpl\" not imple") is None


def test_torch_tensorrt_refusing_precisions_under_explicit_typing_says_to_drop_them() -> None:
    explanation = cw.explain("AssertionError: use_explicit_typing was set to True, however found that "
                             "enabled_precisions was also specified (saw: {torch.float16}, expected: dtype.f32)")
    assert explanation.kind is Kind.OP_DTYPE and explanation.dtypes == ("f16", "f32")
    assert explanation.fix.startswith("drop `enabled_precisions`")


def test_a_converter_not_knowing_numpys_float32_says_to_update_it() -> None:
    explanation = cw.explain("TypeError: Unsupported numpy type: float32")
    assert explanation.kind is Kind.NUMPY_DTYPE and explanation.dtypes == ("f32",) and "coremltools" in explanation.fix


def test_pytorch_androids_java_tensor_refusing_a_dtype_says_to_dequantize_the_output() -> None:
    explanation = cw.explain("java.lang.IllegalArgumentException: at::Tensor scalar type is not supported on java side")
    assert explanation.kind is Kind.SCALAR_TYPE and "DeQuantStub" in explanation.fix


def test_an_op_without_a_quantized_kernel_says_to_dequantize_before_it() -> None:
    explanation = cw.explain("empty not implemented for TensorTypeSet(VariableTensorId, QuantizedCPUTensorId)")
    assert explanation.kind is Kind.NO_KERNEL and "x.dequantize()" in explanation.fix


def test_fp16_results_said_to_be_rather_odd_are_a_precision_drift() -> None:
    explanation = cw.explain("results in FP16 were still rather odd and always conflicted with the FP32 case")
    assert explanation.kind is Kind.NONFINITE and explanation.dtypes == ("f16",)


def test_one_hots_refusal_names_the_long_dtype_it_wants() -> None:
    explanation = cw.explain("RuntimeError: one_hot is only applicable to index tensor of type LongTensor.")
    assert explanation.kind is Kind.INDEX_TENSOR and explanation.dtypes == ("int64",)


def test_a_dtype_passed_to_to_as_a_string_is_read_as_a_device() -> None:
    explanation = cw.explain("RuntimeError: Invalid device string: 'torch.float16'")
    assert explanation.kind is Kind.OP_DTYPE and explanation.dtypes == ("f16",)
    assert "x.to(torch.float16)" in explanation.fix
    assert cw.explain("RuntimeError: Invalid device string: 'cuda:x'") is None


def test_a_mismatch_said_between_c10_half_and_float_names_both() -> None:
    explanation = cw.explain("The crash has to do with type mismatch between types c10::Half and float:")
    assert explanation.kind is Kind.SCALAR_TYPE and explanation.dtypes == ("f16", "f32")


def test_a_dtype_mismatch_said_with_no_dtype_named_is_a_low_confidence_guess_tried_last() -> None:
    explanation = cw.explain("Dtype mismatch in ResNet50_Backbone_with_FPN_V2")
    assert explanation.kind is Kind.SCALAR_TYPE and explanation.dtypes == ()
    assert explanation.confidence is Confidence.LOW and "without naming them" in explanation.cause
    assert cw.explain("[Bug] dtype error when inference") is None
    assert cw.explain("dtype mismatch in my int64 labels") is None
    assert cw.explain("LayerNorm: dtype mismatch between input and weight").kind is Kind.NORM_PARAM


def test_a_pytest_summary_line_gives_its_test_as_the_frame_that_names_the_op() -> None:
    explanation = cw.explain("FAILED tests/ops/test_batch_norm.py::test_batch_norm_tests[dtype=bf16, n=2] - "
                             "RuntimeError: expected scalar type BFloat16 but found Float")
    assert explanation.kind is Kind.NORM_PARAM and explanation.dtypes == ("bf16", "f32")


@pytest.mark.parametrize(("paste", "dtype"), [
    ("TypeError: couldn't find storage object Float8_e4m3fnStorage", "float8_e4m3fn"),
    ("x = torch.rand([1, 1], dtype=torch.complex32)\nx.storage()\n# RuntimeError: unsupported Storage type", "complex32"),
])
def test_a_dtype_without_a_typed_storage_class_says_to_load_another_way(paste: str, dtype: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == (dtype,)
    assert "safetensors" in explanation.fix and "untyped_storage()" in explanation.fix


def test_a_tokenizer_output_moved_with_a_dtype_says_to_cast_only_its_float_tensors() -> None:
    explanation = cw.explain("TypeError: BatchEncoding.to() got an unexpected keyword argument 'dtype'")
    assert explanation.kind is Kind.NO_KERNEL and "`.to(device)` alone" in explanation.fix


def test_an_operand_dtype_that_should_be_one_of_a_few_names_them_and_the_one_given() -> None:
    explanation = cw.explain("TypeError: a_dtype should be float16 or float8\nthe model runs in torch.bfloat16")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("bf16", "f16", "float8_e4m3fn")
    assert "got bf16" in explanation.cause and explanation.confidence is Confidence.LOW


def test_nan_said_to_be_generated_in_chinese_beside_an_overflow_is_the_nan() -> None:
    explanation = cw.explain("转为fp16 trt模型后，推理容易出现数值溢出，总是生成Nan的梅尔谱")
    assert explanation.kind is Kind.NONFINITE


def test_fp16_audio_that_comes_out_as_the_sound_of_silence_is_a_symptom() -> None:
    explanation = cw.explain("change to the fp16\nhalf time compare to the fp32, but get the sound of silence")
    assert explanation.kind is Kind.NONFINITE and explanation.dtypes == ("f16",)


def test_nan_in_a_title_called_a_regression_says_to_pin_the_last_release_that_worked() -> None:
    explanation = cw.explain("[Regression] MoE kernel emits NaNs in v0.6.17 (v0.6.16rc4 passes)")
    assert explanation.kind is Kind.NONFINITE and "pin the last version that worked" in explanation.fix
    assert "pin" not in cw.explain("fp16 gives nan for the regression head").fix


def test_a_uint16_image_in_a_convolution_is_integer_data_not_a_missing_kernel() -> None:
    explanation = cw.explain("RuntimeError: \"slow_conv2d_cpu\" not implemented for 'UInt16'")
    assert explanation.kind is Kind.INTEGER_OPERAND and explanation.dtypes == ("uint16",)


def test_a_numpy_long_double_array_says_torch_has_nothing_wider_than_float64() -> None:
    explanation = cw.explain("TypeError: can't convert np.ndarray of type numpy.longdouble. The only supported types "
                             "are: float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, "
                             "and bool.")
    assert explanation.kind is Kind.NUMPY_DTYPE and "astype(np.float64)" in explanation.fix


def test_lightnings_native_amp_asked_for_on_the_cpu_says_to_give_the_trainer_its_gpus() -> None:
    explanation = cw.explain("pytorch_lightning.utilities.exceptions.MisconfigurationException: You have asked for "
                             "native AMP on CPU, but AMP is only available on GPU.")
    assert explanation.kind is Kind.NO_KERNEL and "Trainer(gpus=1, precision=16)" in explanation.fix


def test_a_gradient_hooks_type_change_between_devices_is_a_device_mismatch() -> None:
    explanation = cw.explain("RuntimeError: hook 'deeplift_grad' has changed the type of value (was "
                             "torch.cuda.FloatTensor got torch.FloatTensor)")
    assert explanation.kind is Kind.DEVICE_MISMATCH and "not a dtype problem" in explanation.cause


def test_numpy_linalg_refusing_float16_says_to_convert_before_numpy() -> None:
    explanation = cw.explain("TypeError: array type float16 is unsupported in linalg")
    assert explanation.kind is Kind.NUMPY_DTYPE and explanation.dtypes == ("f16",)


def test_a_numpy_array_passed_to_a_torch_op_says_to_convert_it() -> None:
    explanation = cw.explain("TypeError: mul(): argument 'other' (position 1) must be Tensor, not numpy.ndarray")
    assert explanation.kind is Kind.NUMPY_DTYPE and "torch.from_numpy(arr)" in explanation.fix


def test_lerps_check_in_the_compile_wording_is_lerps() -> None:
    explanation = cw.explain("expected dtype torch.bfloat16 for weight, but got torch.float32")
    assert explanation.kind is Kind.LERP and explanation.dtypes == ("bf16", "f32")


def test_a_result_cast_typed_without_its_apostrophe_is_read() -> None:
    explanation = cw.explain("RuntimeError: result type Float cant be cast to the desired output type Byte")
    assert explanation.kind is Kind.RESULT_CAST and explanation.dtypes == ("f32", "uint8")


def test_numpy_2_refusing_an_out_of_bounds_python_integer_is_an_overflow() -> None:
    explanation = cw.explain("OverflowError: Python integer -1 out of bounds for uint8")
    assert explanation.kind is Kind.VALUE_OVERFLOW and explanation.dtypes == ("uint8",)
    assert "numpy<2" in explanation.fix


@pytest.mark.parametrize(("paste", "dtypes"), [
    ("raster.cu(206): error: no instance of constructor \"__half2::__half2\" matches the argument list", ("f16",)),
    ("AttributeError: module 'transformer_inference' has no attribute 'layer_norm_fp16'", ()),
    ("RuntimeError: Unsupported TypeMeta in ATen:  (please report this error)", ()),
    ("[TRT] ModelImporter.cpp:135: Unsupported ONNX data type: UINT8 (2)", ("uint8",)),
])
def test_builds_and_runtimes_without_a_dtypes_kernels_are_missing_kernels(paste: str, dtypes: tuple[str, ...]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == dtypes


def test_an_integer_tensor_asked_for_gradients_takes_the_dtype_the_prose_gives_it() -> None:
    explanation = cw.explain("RuntimeError: only Tensors of floating point dtype can require gradients\n"
                             "X_categorical is of type long and looks up my embeddings")
    assert explanation.kind is Kind.INTEGER_OPERAND and explanation.dtypes == ("int64",)


@pytest.mark.parametrize("paste", [
    'I saved a uint8 numpy image with SummaryWriter.add_image, and the result was a "overflowed" image.',
    "diff of the resized images should be on floats. Otherwise, you're getting over/underflows of uint8.",
])
def test_uint8_pixels_said_to_overflow_say_to_compute_on_a_float_copy(paste: str) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.VALUE_OVERFLOW and "uint8" in explanation.dtypes
    assert "`img.float()`" in explanation.fix


@pytest.mark.parametrize(("paste", "kind", "dtypes"), [
    ("RuntimeError: could not create a primitive descriptor for an inner product forward propagation primitive\n"
     "model = ipex.optimize(model, dtype=torch.bfloat16)", Kind.MATMUL, ("bf16",)),
    ("{'message': {'role': 'assistant', 'content': '!!!!!!!!!!!!!!!!'}} after FP8 quantization", Kind.NONFINITE,
     ("float8_e4m3fn",)),
    ("UserWarning: The {}th input requires gradient and is not a double precision floating point or complex.",
     Kind.NONFINITE, ("f32",)),
    ("Assertion failed: inv_freq.scalar_type() == query.scalar_type(), file rope.cpp, line 100\nwith fp16 inputs",
     Kind.OP_DTYPE, ("f16",)),
    ("RuntimeError: Int8 not supported for this architecture", Kind.NO_KERNEL, ("int8",)),
    ("RuntimeError: Batching rule not implemented for aten::real; the fallback path doesn't work on out= or view ops.",
     Kind.NO_KERNEL, ()),
])
def test_round_126_wordings(paste: str, kind: Kind, dtypes: tuple[str, ...]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and explanation.dtypes == dtypes


def test_older_torchs_data_float_check_beside_an_extensions_cuda_function_is_the_extensions_missing_kernel() -> None:
    explanation = cw.explain("The function `rcca.ca_forward_cuda` does not support mixed-precision training:\n"
                             "RuntimeError: expected scalar type Float but found Half (data<float> at "
                             "/torch/include/ATen/core/TensorMethods.h:1821)")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("f32", "f16")
    bare = cw.explain("RuntimeError: expected scalar type Float but found Half (data<float> at TensorMethods.h:1821)")
    assert bare.kind is not Kind.NO_KERNEL


def test_an_integer_attn_mask_says_to_build_the_causal_mask_as_bool_not_to_invert_a_padding_mask() -> None:
    explanation = cw.explain("AssertionError: only bool and floating types of attn_mask are supported")
    assert explanation.kind is Kind.MASK and "dtype=torch.bool" in explanation.fix
    assert "attention_mask == 0" not in explanation.fix
    padding = cw.explain("AssertionError: only bool and floating types of key_padding_mask are supported")
    assert padding.kind is Kind.MASK


def test_a_library_release_named_in_the_title_is_offered_as_one_to_change() -> None:
    explanation = cw.explain("Error for Qwen2.5-VL when using transformers 4.49.0: Input and cos/sin must have the "
                             "same dtype, got torch.float32 and torch.bfloat16")
    assert "ties the failure to transformers 4.49.0" in explanation.fix
    assert "ties the failure" not in cw.explain("Qwen2.5 fails: expected mat1 and mat2 to have the same dtype, but "
                                                "got: float != c10::BFloat16").fix


@pytest.mark.parametrize(("paste", "kind", "dtypes"), [
    ("ValueError: Requested int8_float16 compute type, but the target device or backend do not support efficient "
     "int8_float16 computation.", Kind.NO_KERNEL, ("int8", "f16")),
    ("RuntimeError: expected storage to be of type float16, but is of type bfloat16", Kind.SCALAR_TYPE, ("f16", "bf16")),
    ('GGML_ASSERT: ggml.c:6273: src0->type == GGML_TYPE_F16 failed', Kind.NO_KERNEL, ("f16", "f32")),
])
def test_ctranslate2_and_ggml_wordings(paste: str, kind: Kind, dtypes: tuple[str, ...]) -> None:
    explanation = cw.explain(paste)
    assert explanation.kind is kind and explanation.dtypes == dtypes


def test_old_torchs_unknown_quantized_type_id_says_to_dequantize() -> None:
    explanation = cw.explain("RuntimeError: false INTERNAL ASSERT FAILED at ../c10/core/TensorOptions.h:586, please "
                             "report a bug to PyTorch. Unknown TensorTypeId: QuantizedCPUTensorId")
    assert explanation.kind is Kind.NO_KERNEL and "x.dequantize()" in explanation.fix


def test_torch_tensorrts_long_and_double_subgraph_inputs_say_to_truncate_them() -> None:
    explanation = cw.explain("RuntimeError: [Error thrown at core/partitioning/shape_analysis.cpp:116] Unable to process "
                             "subgraph input type of at::kLong/at::kDouble, try to compile model with "
                             "truncate_long_and_double enabled")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("int64", "f64")


def test_a_data_type_that_must_be_one_of_a_few_quoted_as_an_error_call_is_read() -> None:
    explanation = cw.explain("Typical error: `TypeError('PreMulSum Data type must be half, float, or double')`")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("f16", "f32", "f64")
    assert cw.explain("the data type must be half, float, or double for this model") is None


def test_torch_finfo_asked_about_an_integer_dtype_says_to_use_iinfo() -> None:
    explanation = cw.explain("TypeError: torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                             "'torch.finfo'")
    assert explanation.kind is Kind.INTEGER_OPERAND and "torch.iinfo(t.dtype)" in explanation.fix


def test_nvfusers_missing_scalar_type_assert_says_to_turn_the_fuser_off() -> None:
    explanation = cw.explain("tensor_type->scalarType().has_value() INTERNAL ASSERT FAILED at \"/opt/pytorch/torch/csrc/"
                             "jit/codegen/cuda/type_promotion.cpp\":111, please report a bug to PyTorch. Missing Scalar "
                             "Type information")
    assert explanation.kind is Kind.SCALAR_TYPE and explanation.confidence is Confidence.LOW
    assert "_jit_set_nvfuser_enabled(False)" in explanation.fix


def test_a_failed_tolerance_assert_in_a_bf16_paste_is_drift_and_needs_an_assertion() -> None:
    paste = ("the failing cases are the bfloat16 ones\n"
             "FAILED tests/unit/test_attention.py::test_attention[dtype1] - AssertionError: db eps: 0.109375")
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.NONFINITE and explanation.dtypes == ("bf16",)
    assert "db eps: 0.109375" in explanation.cause
    assert cw.explain("the bfloat16 run\nValueError: max diff: 0.3") is None
    assert cw.explain("FAILED tests/unit/test_attention.py::test_attention - AssertionError: db eps: 0.1") is None


def test_a_float_index_says_a_true_division_makes_floats() -> None:
    explanation = cw.explain("RuntimeError: expected scalar type Long but found Float")
    assert explanation.kind is Kind.INDEX_TENSOR and "`//`" in explanation.fix


def test_a_frameless_report_linking_a_librarys_source_line_says_to_update_it() -> None:
    paste = ("PPO Bool Multiply Float\n"
             "https://github.com/ray-project/ray/blob/3fc162f/rllib/agents/ppo/ppo_torch_policy.py#L118 makes the mask "
             "bool\n```\nexpected device cuda:0 and dtype Float but got device cuda:0 and dtype Bool\n```")
    assert "update ray (such bugs" in cw.explain(paste).fix
    framed = paste.replace("```\nexpected", '```\n  File "/home/me/train.py", line 3, in <module>\n'
                                            "RuntimeError: expected")
    assert "update ray" not in cw.explain(framed).fix


def test_numpy_refusing_to_cast_dates_says_to_turn_them_into_numbers() -> None:
    explanation = cw.explain("TypeError: Cannot cast array data from dtype('<M8[ns]') to dtype('float64') according "
                             "to the rule 'safe'")
    assert explanation.kind is Kind.NUMPY_DTYPE and explanation.dtypes == ("f64",)
    assert "np.timedelta64(1, 'D')" in explanation.fix
    counts = cw.explain("TypeError: Cannot cast array data from dtype('float64') to dtype('int64') according to the "
                        "rule 'safe'")
    assert counts.dtypes == ("f64", "int64") and "arr.astype(np.int64)" in counts.fix
    swapped = cw.explain("TypeError: Cannot cast array data from dtype('float64') to dtype('>i8') according to the "
                         "rule 'safe'")
    assert "arr.astype(np.int64)" in swapped.fix


def test_numpy_type_strings_name_their_size_in_bytes() -> None:
    assert (short_dtype("<f8"), short_dtype("|u1"), short_dtype("<i8"), short_dtype("i8")) == (
        "f64", "uint8", "int64", "int8")


def test_faiss_given_a_torch_tensor_says_to_pass_numpy_or_load_its_torch_utils() -> None:
    paste = ('  File "/envs/x/lib/python3.7/site-packages/faiss/swigfaiss.py", line 6016, in swig_ptr\n'
             "    return _swigfaiss.swig_ptr(a)\nValueError: input not a numpy array")
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.NUMPY_DTYPE and "faiss.contrib.torch_utils" in explanation.fix
    assert cw.explain("ValueError: input not a numpy array") is None


def test_clangs_undeclared_half_conversion_is_a_build_without_that_intrinsic() -> None:
    explanation = cw.explain("error: use of undeclared identifier '__double2half'; did you mean '__double2hiint'?")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("f16",)
    assert explanation.confidence is Confidence.LOW


def test_a_block_sparse_tensors_dtype_conversion_says_to_rebuild_it() -> None:
    paste = ("x = bsr.to(torch.half)\nRuntimeError: \"empty_sparse_compressed\" expected sparse compressed (non-block) "
             "tensor layout but got SparseBsc")
    explanation = cw.explain(paste)
    assert explanation.kind is Kind.NO_KERNEL and "torch.sparse_bsc_tensor(t.ccol_indices()" in explanation.fix
    assert explanation.dtypes == ("f16",)
    assert cw.explain(paste.splitlines()[1]) is None


def test_cusparselt_refusing_an_operation_says_to_use_a_16_bit_dtype() -> None:
    explanation = cw.explain("RuntimeError: CUDA error: operation not supported when calling "
                             "`cusparseLtStructuredDescriptorInit( &handle, &sparse_input_descriptor, m, k, k, 16, "
                             "input_type, CUSPARSE_ORDER_ROW, CUSPARSELT_SPARSITY_50_PERCENT)`")
    assert explanation.kind is Kind.NO_KERNEL and "float16 or bfloat16" in explanation.fix


def test_a_backend_without_a_type_says_so_in_either_wording() -> None:
    for ending in ("dtype", "type."):
        explanation = cw.explain("TypeError: Trying to convert Float8_e4m3fn to the MPS backend but it does not have "
                                 f"support for that {ending}")
        assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("float8_e4m3fn",)


def test_fused_attentions_sm80_check_says_to_pick_another_kernel() -> None:
    explanation = cw.explain("RuntimeError: Expected is_sm80 || is_sm90 to be true, but got false.")
    assert explanation.kind is Kind.NO_KERNEL and "enable_flash_sdp(False)" in explanation.fix


def test_words_in_triple_backticks_inside_a_line_are_read() -> None:
    explanation = cw.explain("When training with half-precision, normalization can give ```NaN``` values.")
    assert explanation.kind is Kind.NONFINITE and explanation.dtypes == ("f16",)


def test_anomaly_modes_nan_in_a_bf16_run_says_no_scaler_skips_it() -> None:
    error = "RuntimeError: Function 'ScaledDotProductFlashAttentionBackward0' returned nan values in its 1th output."
    assert "autocast" in cw.explain(f"finetuning in bf16_mode fails\n{error}").fix
    assert "set_detect_anomaly" in cw.explain(f"finetuning in fp16 fails\n{error}").fix


def test_audio_said_to_have_no_sound_in_an_fp16_run_is_nan_output() -> None:
    explanation = cw.explain("Audio output file has no sound (it's silent)\nthe pipeline runs in torch.float16")
    assert explanation.kind is Kind.NONFINITE and explanation.dtypes == ("f16",)


def test_a_dtype_given_rather_than_another_in_prose_is_read_by_the_tensors_name() -> None:
    target = cw.explain("the loss raised: \"target_smooth's dtype is float rather than Long.\"")
    assert target.kind is Kind.TARGET and target.confidence is Confidence.LOW
    assert cw.explain("the index dtype is float instead of long").kind is Kind.INDEX_TENSOR
    assert cw.explain("the input dtype is float instead of half") is None


def test_a_thread_asking_whether_the_gpu_lacks_bf16_is_not_read_as_a_check() -> None:
    paste = ("error: expected scalar type Half but found BFloat16\n\nI keep getting this error.\n\n"
             "If the thing is not about node, do you use some GPU which does not support bfloat16 ?")
    assert cw.explain(paste).kind is Kind.SCALAR_TYPE
    assert cw.explain("ValueError: Your GPU does not support bfloat16").kind is Kind.NO_KERNEL


def test_a_writer_that_lists_the_dtypes_it_takes_is_read_with_the_runs_16_bit_dtype() -> None:
    explanation = cw.explain("python train.py --precision=fp16\nRuntimeError: Input tensor has to be one of float32, "
                             "int32, int16 or uint8 type.")
    assert explanation.kind is Kind.NO_KERNEL and explanation.dtypes == ("f16",)


def test_the_loss_scalers_overflow_quoted_without_its_scale_is_a_skipped_step() -> None:
    explanation = cw.explain("训练一直提示'OVERFLOW! Skipping step. Attempted loss scale'")
    assert explanation.kind is Kind.LOSS_SCALE and "turn AMP off" in explanation.fix
