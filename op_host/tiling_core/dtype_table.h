// The one table of data types the package knows: names, storage size, the quantization maximum (dmax) used by
// DynamicQuant, and each type's own range (largest finite float, integer min / max). C++ tiling, the kernels' tiling data, and Python (through the _native binding) all
// read this table; nothing else may restate these numbers.
//
// This header is C++11 so that the CANN op_host adapters (compiled as C++11 by the CANN templates) can include it.
#ifndef AQO_TILING_CORE_DTYPE_TABLE_H
#define AQO_TILING_CORE_DTYPE_TABLE_H

#include <cstddef>
#include <cstdint>

namespace aqo {

enum class DType : int32_t {
    FLOAT16 = 0,
    BFLOAT16,
    FLOAT32,
    INT8,
    UINT8,
    INT32,
    HIFLOAT8,
    FLOAT8_E4M3FN,
    FLOAT8_E5M2,
    FLOAT8_E4M3FNUZ,
    FLOAT8_E5M2FNUZ,
    COUNT
};

struct DTypeInfo {
    DType id;
    const char* name;      // canonical name, as numpy / ml_dtypes spell it ("hifloat8" as en_dtypes does)
    int32_t bytes;         // storage size of one element
    bool is_float;         // floating-point encoding (float8 / hifloat8 included)
    bool is_signed;
    double quant_max;      // dmax of ATB DynamicQuant (docs/references.md#atb-dynamicquant) when this type is a DynamicQuant output; 0 when it is not one
    int32_t atb_code;      // ATB outTensorType code (same source), -1 when ATB has none
    double finite_max;     // floating-point types: the largest finite value (float16 65504, ...); 0 for integers
    int64_t int_min;       // integer types: the representable range [int_min, int_max]; 0 / 0 for floats
    int64_t int_max;
    uint32_t nan_code;     // 8-bit float types: the bit pattern of a positive NaN as the golden writes it; 0 otherwise
};

// All entries, indexed by static_cast<int>(DType).
const DTypeInfo* DTypeTable(size_t* count);
const DTypeInfo& GetDTypeInfo(DType t);
// Looks a canonical name up; returns false when the name is unknown.
bool DTypeFromName(const char* name, DType* out);

inline int32_t DTypeBytes(DType t) { return GetDTypeInfo(t).bytes; }
inline const char* DTypeName(DType t) { return GetDTypeInfo(t).name; }

}  // namespace aqo

#endif  // AQO_TILING_CORE_DTYPE_TABLE_H
