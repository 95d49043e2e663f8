// The expansions of the per-op tiling field lists (<op>_tiling_fields.h) that the tiling core uses: the plain
// struct's members and the copy into a tiling-data class with CANN's generated setters. The CANN tiling-data
// classes (op_host/aqo_<op>_tiling.h) and the Python bindings have their own expansions next to their use.
//
// C++11, no includes: the CANN op_host adapters include it through the plan headers.
#ifndef AQO_TILING_CORE_TILING_FIELDS_H
#define AQO_TILING_CORE_TILING_FIELDS_H

// Members of the tiling core's plain struct, zero-initialised.
#define AQO_TILING_STRUCT_FIELD(type, name) type name = type();
#define AQO_TILING_STRUCT_ARRAY(type, count, name) type name[count] = {};

// Inside Fill<Op>TilingData(const <Op>Tiling& t, TilingData* td): one set_<field> call per field. CANN's array
// setters take a non-const pointer but only copy from it.
#define AQO_TILING_FILL_FIELD(type, name) td->set_##name(t.name);
#define AQO_TILING_FILL_ARRAY(type, count, name) td->set_##name(const_cast<type*>(t.name));

#endif  // AQO_TILING_CORE_TILING_FIELDS_H
