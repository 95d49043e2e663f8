#include "dtype_table.h"

#include <cstring>

namespace aqo {
namespace {

// dmax values: ATB DynamicQuant's documentation, docs/references.md#atb-dynamicquant ("int8 127, hifloat8 32768, float8_e4m3fn 448, float8_e5m2 57344").
// ATB outTensorType codes: the same documentation (2 int8, 34 hifloat8, 35 float8_e5m2, 36 float8_e4m3fn).
// finite_max: IEEE 754 binary16 / binary32, bfloat16, the OCP / fnuz float8 formats (as ml_dtypes), HiF8 (2^15, as
// en_dtypes); int_min / int_max: two's complement / unsigned ranges; nan_code (8-bit float types): the bit pattern
// ml_dtypes / en_dtypes give a float32 NaN (0x7F e4m3fn, 0x7E e5m2 (the quiet NaN), 0x80 the fnuz types and hifloat8
// (docs/references.md#hifloat8)), which the kernels write themselves rather than convert a NaN (what the 950's
// conversion makes of NaN depends on its saturation control bits). tests/tiling checks them against numpy.
const DTypeInfo kTable[] = {
    {DType::FLOAT16, "float16", 2, true, true, 0.0, -1, 65504.0, 0, 0, 0},
    {DType::BFLOAT16, "bfloat16", 2, true, true, 0.0, -1, 3.3895313892515355e38, 0, 0, 0},
    {DType::FLOAT32, "float32", 4, true, true, 0.0, -1, 3.4028234663852886e38, 0, 0, 0},
    {DType::INT8, "int8", 1, false, true, 127.0, 2, 0.0, -128, 127, 0},
    {DType::UINT8, "uint8", 1, false, false, 0.0, -1, 0.0, 0, 255, 0},
    {DType::INT32, "int32", 4, false, true, 0.0, -1, 0.0, -2147483648LL, 2147483647LL, 0},
    {DType::HIFLOAT8, "hifloat8", 1, true, true, 32768.0, 34, 32768.0, 0, 0, 0x80},
    {DType::FLOAT8_E4M3FN, "float8_e4m3fn", 1, true, true, 448.0, 36, 448.0, 0, 0, 0x7F},
    {DType::FLOAT8_E5M2, "float8_e5m2", 1, true, true, 57344.0, 35, 57344.0, 0, 0, 0x7E},
    {DType::FLOAT8_E4M3FNUZ, "float8_e4m3fnuz", 1, true, true, 0.0, -1, 240.0, 0, 0, 0x80},
    {DType::FLOAT8_E5M2FNUZ, "float8_e5m2fnuz", 1, true, true, 0.0, -1, 57344.0, 0, 0, 0x80},
};
static_assert(sizeof(kTable) / sizeof(kTable[0]) == static_cast<size_t>(DType::COUNT),
              "one DTypeInfo per DType, in enum order");

}  // namespace

const DTypeInfo* DTypeTable(size_t* count)
{
    if (count != nullptr) {
        *count = sizeof(kTable) / sizeof(kTable[0]);
    }
    return kTable;
}

const DTypeInfo& GetDTypeInfo(DType t) { return kTable[static_cast<int>(t)]; }

bool DTypeFromName(const char* name, DType* out)
{
    for (const DTypeInfo& info : kTable) {
        if (std::strcmp(info.name, name) == 0) {
            *out = info.id;
            return true;
        }
    }
    return false;
}

}  // namespace aqo
