// What the timeline bindings share: a LaunchTimeline as a Python dict, and the parameter factors of a call.
#pragma once
#include <nanobind/nanobind.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "emulator/emu_trace.h"
#include "emulator/timeline.h"

namespace aqo_bind {

// {soc, clock_mhz, cycles, time_us, slowest, gm_bytes, gm_bytes_per_cycle, causes, cores: [{core, is_cube,
// absorbed, end, pipes: {name: {busy, stalled, instructions, stalls: {cause: cycles}}}}], detail: {index, instrs:
// [(pipe, start, busy_end, end, class, site)], stalls: [(pipe, start, end, cause index)]}} (detail for core
// `detail_core`, -1 = the slowest, none for -2).
nanobind::dict TimelineToDict(const aqo_emu::LaunchTimeline& t, int64_t detail_core);

std::vector<std::pair<std::string, double>> ScaleFromDict(const nanobind::dict& scale);

}  // namespace aqo_bind
