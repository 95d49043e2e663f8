// NPU (PrivateUse1) kernels of torch.ops.ascend_quant_ops.dynamic_quant / qlinear_matmul / quant_matmul. Their C++
// signatures follow the schemas of torch_ops.py:
//   dynamic_quant(Tensor x, Tensor? smooth_scales=None, *, ScalarType? dst_type=None) -> (Tensor, Tensor)
//   dynamic_quant_asymmetric(Tensor x, Tensor? smooth_scales=None, *, ScalarType? dst_type=None)
//     -> (Tensor, Tensor, Tensor)
//   qlinear_matmul(Tensor a, Tensor a_scale, ..., Tensor y_zero_point) -> Tensor
//   quant_matmul(Tensor a, Tensor a_scale, Tensor? a_zero_point, Tensor b, Tensor b_scale, Tensor? b_zero_point,
//                Tensor? bias, *, ScalarType? out_dtype) -> Tensor
//
// The op schemas are defined in Python (ascend_quant_ops/torch_ops.py, torch.library.custom_op); this library
// only adds the PrivateUse1 implementation to them, so loading it (npu.load_extension()) is all it takes for
// NPU tensors to reach the custom operators. Each kernel validates what the aclnn API cannot report clearly,
// preallocates the outputs on the input's device and calls the operator's generated aclnn API through
// op-plugin's EXEC_NPU_CMD, which looks the symbols up in libcust_opapi.so (found through
// ASCEND_CUSTOM_OPP_PATH or $ASCEND_OPP_PATH/vendors/config.ini) and enqueues on the current NPU stream.
//
// Argument order of the aclnn calls = the operator description cmake/cann/ops.json (the one source the OpDefs
// in op_host/ are checked against): inputs, then attributes, then outputs, as op_build generates
// aclnn<OpType>GetWorkspaceSize(inputs..., attrs..., outputs..., workspaceSize, executor). Each call below is
// preceded by an "aclnn order" line that tests/torch/test_npu_extension.py compares with ops.json.
// Both ops call the one device operator AqoDynamicQuant: its attribute asymmetric selects the mode and its
// optional output offset is given in the asymmetric mode only (float32, or the uint8 zero points of dst uint8).
// Its scales are float32 on the device: float16 / bfloat16 scales are upcast (exact), as the golden does.
//
// Compile flags: CURRENT_VERSION must name the torch release (V2R13 for torch 2.13) because op-plugin's headers
// select their declarations with it; npu_ext/build.py computes it for both the JIT build and the type-check.

#include <torch/library.h>
#include <ATen/ATen.h>
#include <ATen/ExpandUtils.h>
#include <c10/core/DeviceGuard.h>

#include <tuple>
#include <vector>

#include "op_plugin/utils/op_api_common.h"

namespace aqo_npu {
namespace {

// The op's ScalarType? dst_type -> the operator's dst_type attribute, ATB's outTensorType code, which is also
// aclDataType's code (acl_base_rt.h); the torch dtype of y carries it (hifloat8: uint8 bit patterns).
int64_t DynamicQuantDstCode(const c10::optional<at::ScalarType>& dst_type) {
  const at::ScalarType t = dst_type.has_value() ? *dst_type : at::kChar;  // None = int8, as in torch_npu
  switch (t) {
    case at::kChar:
      return ACL_INT8;
    case at::kByte:  // torch has no hifloat8: its bit patterns travel as uint8
      return ACL_HIFLOAT8;
    case at::kQUInt8:  // the asymmetric uint8 mode (torch.quint8 names it; y and offset are plain uint8)
      return ACL_UINT8;
    case at::ScalarType::Float8_e5m2:
      return ACL_FLOAT8_E5M2;
    case at::ScalarType::Float8_e4m3fn:
      return ACL_FLOAT8_E4M3FN;
    default:
      TORCH_CHECK(false, "dynamic_quant: argument 'dst_type': unsupported ", t,
                  "; expected torch.int8, torch.uint8 (hifloat8 bits), torch.float8_e5m2 or torch.float8_e4m3fn");
  }
  return ACL_INT8;  // not reached
}

void CheckOnNpu(const char* op, const char* name, const at::Tensor& t, const at::Device& device) {
  TORCH_CHECK(t.device() == device, op, ": argument '", name, "' must be on ", device, ", got ", t.device());
}

// Both modes: (y, scale, offset); offset is undefined when symmetric.
std::tuple<at::Tensor, at::Tensor, at::Tensor> DynamicQuantBoth(const at::Tensor& x,
                                                                const c10::optional<at::Tensor>& smooth_scales,
                                                                c10::optional<at::ScalarType> dst_type_arg,
                                                                bool asymmetric) {
  const int64_t dst_type = DynamicQuantDstCode(dst_type_arg);
  TORCH_CHECK(asymmetric || dst_type != ACL_UINT8,
              "dynamic_quant: argument 'dst_type': uint8 is an output of the asymmetric mode only");
  TORCH_CHECK(x.dim() >= 2, "dynamic_quant: argument 'x': rank must be at least 2, got ", x.dim());
  TORCH_CHECK(x.scalar_type() == at::kHalf || x.scalar_type() == at::kBFloat16,
              "dynamic_quant: argument 'x': dtype must be float16 or bfloat16, got ", x.scalar_type());
  const c10::DeviceGuard guard(x.device());
  const at::Tensor xc = x.contiguous();
  c10::optional<at::Tensor> smooth;
  if (smooth_scales.has_value() && smooth_scales->defined()) {
    CheckOnNpu("dynamic_quant", "smooth_scales", *smooth_scales, x.device());
    TORCH_CHECK(smooth_scales->dim() == 1 && smooth_scales->size(0) == x.size(-1),
                "dynamic_quant: argument 'smooth_scales': shape must be [", x.size(-1), "], got ",
                smooth_scales->sizes());
    TORCH_CHECK(smooth_scales->scalar_type() == x.scalar_type(),
                "dynamic_quant: argument 'smooth_scales': dtype must be x's (", x.scalar_type(), "), got ",
                smooth_scales->scalar_type());
    smooth = smooth_scales->contiguous();
  }

  at::ScalarType carrier = dst_type_arg.has_value() ? *dst_type_arg : at::kChar;
  if (carrier == at::kQUInt8) {
    carrier = at::kByte;
  }
  const at::IntArrayRef rows = x.sizes().slice(0, x.dim() - 1);
  at::Tensor y = at::empty(x.sizes(), x.options().dtype(carrier));
  at::Tensor scale = at::empty(rows, x.options().dtype(at::kFloat));
  c10::optional<at::Tensor> offset;
  if (asymmetric) {
    offset = at::empty(rows, x.options().dtype(dst_type == ACL_UINT8 ? at::kByte : at::kFloat));
  }
  if (x.numel() == 0) {
    // No kernel launch for empty tensors: rows without elements are zero rows (scale 0, offset 0).
    scale.zero_();
    if (offset.has_value()) {
      offset->zero_();
    }
    return std::make_tuple(y, scale, offset.has_value() ? *offset : at::Tensor());
  }
  // y's aclDataType is the requested one (the uint8 carrier of hifloat8 becomes ACL_HIFLOAT8).
  TensorWrapper y_typed{y, static_cast<aclDataType>(dst_type)};
  // aclnn order AqoDynamicQuant: x smooth_scales | dst_type asymmetric | y scale offset
  EXEC_NPU_CMD(aclnnAqoDynamicQuant, xc, smooth, dst_type, asymmetric, y_typed, scale, offset);
  return std::make_tuple(y, scale, offset.has_value() ? *offset : at::Tensor());
}

std::tuple<at::Tensor, at::Tensor> DynamicQuantNpu(const at::Tensor& x,
                                                   const c10::optional<at::Tensor>& smooth_scales,
                                                   c10::optional<at::ScalarType> dst_type_arg) {
  auto out = DynamicQuantBoth(x, smooth_scales, dst_type_arg, false);
  return std::make_tuple(std::get<0>(out), std::get<1>(out));
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> DynamicQuantAsymmetricNpu(
    const at::Tensor& x, const c10::optional<at::Tensor>& smooth_scales,
    c10::optional<at::ScalarType> dst_type_arg) {
  return DynamicQuantBoth(x, smooth_scales, dst_type_arg, true);
}

std::vector<int64_t> MatmulShape(const at::Tensor& a, const at::Tensor& b) {
  TORCH_CHECK(a.dim() >= 1 && b.dim() >= 1, "qlinear_matmul: arguments 'a' and 'b' need at least one dimension");
  const int64_t k_a = a.size(-1);
  const int64_t k_b = b.dim() == 1 ? b.size(0) : b.size(-2);
  TORCH_CHECK(k_a == k_b, "qlinear_matmul: argument 'b': the reduction dimension K must be ", k_a, ", got ", k_b);
  const at::IntArrayRef a_batch = a.dim() > 2 ? a.sizes().slice(0, a.dim() - 2) : at::IntArrayRef();
  const at::IntArrayRef b_batch = b.dim() > 2 ? b.sizes().slice(0, b.dim() - 2) : at::IntArrayRef();
  std::vector<int64_t> out = at::infer_size(a_batch, b_batch);
  if (a.dim() > 1) {
    out.push_back(a.size(-2));
  }
  if (b.dim() > 1) {
    out.push_back(b.size(-1));
  }
  return out;
}

bool IsNpuQuantType(at::ScalarType t) {
  return t == at::kChar || t == at::kByte || t == at::ScalarType::Float8_e4m3fn ||
         t == at::ScalarType::Float8_e5m2;
}

at::Tensor QLinearMatMulNpu(const at::Tensor& a, const at::Tensor& a_scale, const at::Tensor& a_zero_point,
                            const at::Tensor& b, const at::Tensor& b_scale, const at::Tensor& b_zero_point,
                            const at::Tensor& y_scale, const at::Tensor& y_zero_point) {
  const char* op = "qlinear_matmul";
  const std::pair<const char*, const at::Tensor*> all[] = {
      {"a_scale", &a_scale}, {"a_zero_point", &a_zero_point}, {"b", &b},
      {"b_scale", &b_scale}, {"b_zero_point", &b_zero_point}, {"y_scale", &y_scale},
      {"y_zero_point", &y_zero_point}};
  for (const auto& named : all) {
    CheckOnNpu(op, named.first, *named.second, a.device());
  }
  // The NPUs have no fnuz float8 formats (docs/references.md#soc-facts): those stay on the CPU backend.
  TORCH_CHECK(IsNpuQuantType(a.scalar_type()) && IsNpuQuantType(b.scalar_type()) &&
                  IsNpuQuantType(y_zero_point.scalar_type()),
              "qlinear_matmul: on the NPU a, b and y_zero_point must be int8, uint8, float8_e4m3fn or "
              "float8_e5m2; got ", a.scalar_type(), ", ", b.scalar_type(), ", ", y_zero_point.scalar_type());
  TORCH_CHECK(a_zero_point.scalar_type() == a.scalar_type() && b_zero_point.scalar_type() == b.scalar_type(),
              "qlinear_matmul: zero points must have their operand's dtype");
  const c10::DeviceGuard guard(a.device());
  // The cube must not be given NaN (the AscendC Mmad page: an execution error may result), as the Python API checks:
  // read from the bytes (sign cleared), e4m3fn's NaN is 0x7F, e5m2's 0x7D..0x7F.
  for (const auto& named : {std::make_pair("a", &a), std::make_pair("b", &b)}) {
    const at::Tensor& t = *named.second;
    const bool e4m3 = t.scalar_type() == at::ScalarType::Float8_e4m3fn;
    if (e4m3 || t.scalar_type() == at::ScalarType::Float8_e5m2) {
      const at::Tensor magnitude = at::bitwise_and(t.contiguous().view(at::kByte), 0x7F);
      const at::Tensor nan = e4m3 ? magnitude.eq(0x7F) : magnitude.gt(0x7C);
      TORCH_CHECK(!nan.any().item<bool>(), "qlinear_matmul: argument '", named.first,
                  "': float8 operands of the NPU kernel without NaN (the cube may fault on a NaN input: the AscendC "
                  "Mmad page); compute on the CPU backend");
    }
  }
  const std::vector<int64_t> shape = MatmulShape(a, b);
  at::Tensor y = at::empty(shape, a.options().dtype(y_zero_point.scalar_type()));
  if (y.numel() == 0) {
    return y;
  }
  if (a.size(-1) == 0) {
    // K = 0: every accumulator is 0, so y is the output zero point, broadcast (copy_ broadcasts its source).
    y.copy_(y_zero_point);
    return y;
  }
  const at::Tensor ac = a.contiguous();
  // b as stored: a transposed view of a contiguous [..., N, K] int8 / uint8 weight goes as that storage, read
  // transposed; float8 b (the plan has no transposed float8 b) and other strided views are copied.
  const bool b_int = b.scalar_type() == at::kChar || b.scalar_type() == at::kByte;
  const bool b_trans =
      b_int && b.dim() >= 2 && !b.is_contiguous() && b.transpose(-1, -2).is_contiguous();
  const at::Tensor bc = b_trans ? b.transpose(-1, -2) : b.contiguous();
  const at::Tensor a_s = a_scale.to(at::kFloat).contiguous();
  const at::Tensor a_zp = a_zero_point.contiguous();
  const at::Tensor b_s = b_scale.to(at::kFloat).contiguous();
  const at::Tensor b_zp = b_zero_point.contiguous();
  const at::Tensor y_s = y_scale.to(at::kFloat).contiguous();
  const at::Tensor y_zp = y_zero_point.contiguous();
  // aclnn order AqoQLinearMatMul: a a_scale a_zero_point b b_scale b_zero_point y_scale y_zero_point | b_trans | y
  EXEC_NPU_CMD(aclnnAqoQLinearMatMul, ac, a_s, a_zp, bc, b_s, b_zp, y_s, y_zp, b_trans, y);
  return y;
}

// quant_matmul's out_dtype -> the operator's out_dtype attribute (the aclDataType / ge::DataType code of y).
int64_t QuantMatMulOutCode(at::ScalarType t) {
  switch (t) {
    case at::kFloat:
      return ACL_FLOAT;
    case at::kHalf:
      return ACL_FLOAT16;
    case at::kBFloat16:
      return ACL_BF16;
    default:
      TORCH_CHECK(false, "quant_matmul: argument 'out_dtype': unsupported ", t,
                  "; expected torch.float32, torch.float16 or torch.bfloat16");
  }
  return ACL_FLOAT;  // not reached
}

// A per-row (a) / per-column (b, bias) parameter in the layout the kernel reads: one value, or the vector expanded to
// `full` (contiguous): [a batch..., M, 1] for a's (given as [M], [..., M] = a.shape[:-1] or [..., M, 1]), [b batch...,
// 1, N] for b's and [y batch..., 1, N] for the bias (given as [N] or [..., 1, N]). m: M for a's parameters (a
// [..., M, 1] form ends in M, 1; any other form gets its trailing 1, which also covers a.shape[:-1] when M is 1).
at::Tensor KernelLayout(const at::Tensor& p, at::IntArrayRef full, bool rows, int64_t m = 0) {
  if (p.numel() == 1) {
    return p.reshape({1}).contiguous();
  }
  const bool row_column = p.dim() >= 2 && p.size(-1) == 1 && p.size(-2) == m;
  const at::Tensor q = rows && !row_column ? p.unsqueeze(-1) : p;
  return q.expand(full).contiguous();
}

at::Tensor QuantMatMulNpu(const at::Tensor& a, const at::Tensor& a_scale, const c10::optional<at::Tensor>& a_zero_point,
                          const at::Tensor& b, const at::Tensor& b_scale,
                          const c10::optional<at::Tensor>& b_zero_point, const c10::optional<at::Tensor>& bias,
                          c10::optional<at::ScalarType> out_dtype) {
  const char* op = "quant_matmul";
  const at::ScalarType out_type = out_dtype.has_value() ? *out_dtype : at::kFloat;
  const int64_t out_code = QuantMatMulOutCode(out_type);
  CheckOnNpu(op, "a_scale", a_scale, a.device());
  CheckOnNpu(op, "b", b, a.device());
  CheckOnNpu(op, "b_scale", b_scale, a.device());
  TORCH_CHECK((a.scalar_type() == at::kChar || a.scalar_type() == at::kByte) &&
                  (b.scalar_type() == at::kChar || b.scalar_type() == at::kByte),
              "quant_matmul: on the NPU a and b must be int8 or uint8; got ", a.scalar_type(), ", ", b.scalar_type());
  const c10::DeviceGuard guard(a.device());
  const std::vector<int64_t> shape = MatmulShape(a, b);
  at::Tensor y = at::empty(shape, a.options().dtype(out_type));
  if (y.numel() == 0) {
    return y;
  }
  // The product's view: a [..., M, K], b [..., K, N] (1-D operands promoted as numpy.matmul does).
  const at::Tensor a2 = a.dim() == 1 ? a.unsqueeze(0) : a;
  const at::Tensor b2 = b.dim() == 1 ? b.unsqueeze(1) : b;
  const int64_t m = a2.size(-2), n = b2.size(-1);
  std::vector<int64_t> a_rows(a2.sizes().begin(), a2.sizes().end() - 1);
  a_rows.push_back(1);  // [a batch..., M, 1]
  std::vector<int64_t> b_cols(b2.sizes().begin(), b2.sizes().end() - 2);
  b_cols.push_back(1);
  b_cols.push_back(n);  // [b batch..., 1, N]
  // [y batch..., 1, N]: y's batch dims from the promoted operands (y itself drops a 1-D operand's dimension)
  std::vector<int64_t> y_cols = at::infer_size(at::IntArrayRef(a2.sizes().data(), a2.dim() - 2),
                                               at::IntArrayRef(b2.sizes().data(), b2.dim() - 2));
  y_cols.push_back(1);
  y_cols.push_back(n);
  const at::Tensor a_s = KernelLayout(a_scale.to(at::kFloat), a_rows, true, m);
  const at::Tensor b_s = KernelLayout(b_scale.to(at::kFloat), b_cols, false);
  c10::optional<at::Tensor> a_zp, b_zp, bias_f;
  if (a_zero_point.has_value() && a_zero_point->defined()) {
    CheckOnNpu(op, "a_zero_point", *a_zero_point, a.device());
    a_zp = KernelLayout(*a_zero_point, a_rows, true, m);
  }
  if (b_zero_point.has_value() && b_zero_point->defined()) {
    CheckOnNpu(op, "b_zero_point", *b_zero_point, a.device());
    b_zp = KernelLayout(*b_zero_point, b_cols, false);
  }
  if (bias.has_value() && bias->defined()) {
    CheckOnNpu(op, "bias", *bias, a.device());
    bias_f = KernelLayout(bias->to(at::kFloat), y_cols, false);
  }
  const at::Tensor ac = a2.contiguous();
  // b as stored: a transposed view of a contiguous [..., N, K] weight goes as that storage, read transposed.
  const bool b_trans = b2.dim() >= 2 && !b2.is_contiguous() && b2.transpose(-1, -2).is_contiguous();
  const at::Tensor bc = b_trans ? b2.transpose(-1, -2) : b2.contiguous();
  // aclnn order AqoQuantMatMul: a a_scale a_zero_point b b_scale b_zero_point bias | out_dtype b_trans | y
  EXEC_NPU_CMD(aclnnAqoQuantMatMul, ac, a_s, a_zp, bc, b_s, b_zp, bias_f, out_code, b_trans, y);
  return y;
}

}  // namespace
}  // namespace aqo_npu

TORCH_LIBRARY_IMPL(ascend_quant_ops, PrivateUse1, m) {
  m.impl("dynamic_quant", &aqo_npu::DynamicQuantNpu);
  m.impl("dynamic_quant_asymmetric", &aqo_npu::DynamicQuantAsymmetricNpu);
  m.impl("qlinear_matmul", &aqo_npu::QLinearMatMulNpu);
  m.impl("quant_matmul", &aqo_npu::QuantMatMulNpu);
}
