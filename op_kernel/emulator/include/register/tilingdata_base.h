// register/tilingdata_base.h of the AscendC CPU emulator: the tiling-data macros of CANN's op_host headers,
// producing a plain struct, so that op_host/aqo_<op>_tiling.h compiles in the emulator unchanged and one and
// the same type is filled by the runner (set_<field>) and read by the kernel (GET_TILING_DATA, then
// `tiling.<field>`).
//
//   BEGIN_TILING_DATA_DEF(AqoDynamicQuantTilingData)
//   TILING_DATA_FIELD_DEF(uint32_t, rows);              -> uint32_t rows; set_rows(v); get_rows()
//   TILING_DATA_FIELD_DEF_ARR(uint32_t, 8, counts);     -> uint32_t counts[8]; set_counts(const uint32_t*);
//                                                          get_counts() -> pointer
//   TILING_DATA_FIELD_DEF_STRUCT(OtherTiling, sub);     -> OtherTiling sub; get_sub() -> reference
//   END_TILING_DATA_DEF;
//   REGISTER_TILING_DATA_CLASS(AqoDynamicQuant, AqoDynamicQuantTilingData)   -> nothing to register here
//
// The bytes handed to the launcher are the struct itself (SaveToBuffer / GetDataSize as on the host).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#define BEGIN_TILING_DATA_DEF(class_name)                                                  \
    struct class_name {                                                                    \
        using AqoEmuSelf = class_name;                                                     \
        void SaveToBuffer(void* buf, size_t capacity) const                                \
        {                                                                                  \
            if (capacity >= sizeof(*this)) std::memcpy(buf, this, sizeof(*this));          \
        }                                                                                  \
        size_t GetDataSize() const { return sizeof(*this); }                               \
        void InitData() { std::memset(static_cast<void*>(this), 0, sizeof(*this)); }

#define TILING_DATA_FIELD_DEF(data_type, field_name)                                       \
    data_type field_name = data_type();                                                    \
    void set_##field_name(data_type v) { field_name = v; }                                 \
    data_type get_##field_name() const { return field_name; }

#define TILING_DATA_FIELD_DEF_ARR(arr_type, arr_size, field_name)                          \
    arr_type field_name[arr_size] = {};                                                    \
    void set_##field_name(const arr_type* v)                                               \
    {                                                                                      \
        std::memcpy(field_name, v, sizeof(arr_type) * (arr_size));                        \
    }                                                                                      \
    arr_type* get_##field_name() { return field_name; }                                    \
    const arr_type* get_##field_name() const { return field_name; }

#define TILING_DATA_FIELD_DEF_STRUCT(struct_type, field_name)                              \
    struct_type field_name;                                                                \
    struct_type& get_##field_name() { return field_name; }                                 \
    const struct_type& get_##field_name() const { return field_name; }

#define END_TILING_DATA_DEF }

#define REGISTER_TILING_DATA_CLASS(op_type, class_name)                                    \
    static_assert(std::is_trivially_copyable<class_name>::value,                           \
                  "tiling data must be a plain struct to be passed as bytes");
