// Stand-in for op-plugin's op_api_common.h, used ONLY by scripts/check_npu_extension.py --schema to build the NPU
// extension against CPU-only torch and load it, so that the dispatcher compares the C++ kernel signatures with the
// op schemas defined in Python (torch_ops.py). It provides just the names the extension uses; EXEC_NPU_CMD does
// nothing here. The real header (from the torch_npu wheel) is what the type-check and the device build use.
#pragma once

#include <ATen/ATen.h>

enum aclDataType {  // the codes of CANN's acl_base_rt.h that the extension names
  ACL_FLOAT = 0,
  ACL_FLOAT16 = 1,
  ACL_INT8 = 2,
  ACL_UINT8 = 4,
  ACL_BF16 = 27,
  ACL_HIFLOAT8 = 34,
  ACL_FLOAT8_E5M2 = 35,
  ACL_FLOAT8_E4M3FN = 36,
};

typedef struct {
  const at::Tensor& tensor_;
  aclDataType dtype;
} TensorWrapper;

namespace aqo_schema_stub {
template <typename... Args>
inline void Consume(const Args&...) {}
}  // namespace aqo_schema_stub

#define EXEC_NPU_CMD(aclnn_api, ...) aqo_schema_stub::Consume(__VA_ARGS__)
