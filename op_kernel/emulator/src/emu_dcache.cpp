// The scalar unit's data cache: GlobalTensor::GetValue / SetValue reach GM through a per-core cache of 64-byte lines
// that is not coherent with the DMA, the cube or other cores (the AscendC documentation of DataCacheCleanAndInvalid:
// data written by another core or by this core's DMA needs the call before a scalar read, a scalar write reaches GM
// only after it; SINGLE_CACHE_LINE acts on the line of the address, ENTIRE_DATA_CACHE on all). The emulator writes
// GM at once and checks that no kernel could observe the difference (emu_context.h, kDcacheLine).
#include <algorithm>
#include <cstring>
#include <string>

#include "emulator/emu_context.h"
#include "emulator/emu_order.h"

namespace aqo_emu {
namespace {

uint64_t Key(int region, uint64_t line) { return (static_cast<uint64_t>(region) << 48) | line; }

std::string Where(const GmRegion& r, uint64_t line)
{
    return "the 64-byte line [" + std::to_string(line * kDcacheLine) + ", " +
           std::to_string((line + 1) * kDcacheLine) + ") of GM buffer '" + r.name + "'";
}

uint64_t Mask(uint64_t line, uint64_t offset, uint64_t end)
{
    const uint64_t lb = line * kDcacheLine;
    const uint64_t b = offset > lb ? offset - lb : 0;
    const uint64_t e = end < lb + kDcacheLine ? end - lb : kDcacheLine;
    if (e <= b) return 0;
    return (e - b == 64 ? ~0ull : ((1ull << (e - b)) - 1)) << b;
}

// A line fill reads the whole line from GM (its bytes at that moment): for the ordering checks a scalar read of every
// byte of the line, so a fill racing a DMA of this core or another core's write into the line is a race.
void LoadLine(CoreContext& c, const GmRegion& r, int region, uint64_t line, const char* file, int ln)
{
    CoreContext::CachedLine& cl = c.dcache[Key(region, line)];
    const uint64_t b = line * kDcacheLine;
    const uint64_t n = std::min<uint64_t>(kDcacheLine, r.bytes - b);
    std::memset(cl.bytes, 0, sizeof(cl.bytes));
    std::memcpy(cl.bytes, r.base + b, n);
    cl.file = file;
    cl.line = ln;
    GmOrderOnly(c, region, b, n, false, nullptr);
}

}  // namespace

void DcacheScalarRead(CoreContext& c, int region, uint64_t offset, uint64_t nbytes, const char* file, int line,
                      const char* api)
{
    GmRegion& r = (*c.gm)[region];
    if (r.access == GmAccess::kReadOnly || nbytes == 0) return;
    for (uint64_t ln = offset / kDcacheLine; ln * kDcacheLine < offset + nbytes; ++ln) {
        auto d = r.dirty.find(ln);
        if (d != r.dirty.end() && d->second.core != c.block_idx &&
            (d->second.mask & Mask(ln, offset, offset + nbytes)) != 0) {
            Fail(file, line,
                 std::string(api) + " on core " + std::to_string(c.block_idx) + " reads bytes of " + Where(r, ln) +
                     " that core " + std::to_string(d->second.core) + " wrote with SetValue at " + d->second.file +
                     ":" + std::to_string(d->second.line) + " and has not cleaned: they are still in that core's "
                     "data cache (it must call DataCacheCleanAndInvalid after writing, and the two cores must be "
                     "ordered, e.g. by SyncAll)");
        }
        auto it = c.dcache.find(Key(region, ln));
        if (it == c.dcache.end()) {
            LoadLine(c, r, region, ln, file, line);
            continue;
        }
        const uint64_t lb = ln * kDcacheLine;
        const uint64_t b = std::max(offset, lb), e = std::min(offset + nbytes, lb + kDcacheLine);
        if (std::memcmp(it->second.bytes + (b - lb), r.base + b, e - b) != 0) {
            Fail(file, line,
                 std::string(api) + " reads a stale copy: " + Where(r, ln) + " has been in this core's data cache "
                     "since " + it->second.file + ":" + std::to_string(it->second.line) + ", and GM changed since "
                     "(a DMA, the cube or another core wrote it): the scalar unit reads the cached line; call "
                     "DataCacheCleanAndInvalid (SINGLE_CACHE_LINE on this address, or ENTIRE_DATA_CACHE) before the "
                     "read");
        }
    }
}

void DcacheScalarWrite(CoreContext& c, int region, uint64_t offset, uint64_t nbytes, const uint8_t* value,
                       const char* file, int line, const char* api)
{
    GmRegion& r = (*c.gm)[region];
    if (r.access == GmAccess::kReadOnly || nbytes == 0) return;
    for (uint64_t ln = offset / kDcacheLine; ln * kDcacheLine < offset + nbytes; ++ln) {
        auto d = r.dirty.find(ln);
        if (d != r.dirty.end() && d->second.core != c.block_idx) {
            Fail(file, line,
                 std::string(api) + " on core " + std::to_string(c.block_idx) + " writes into " + Where(r, ln) +
                     ", which core " + std::to_string(d->second.core) + " holds dirty in its data cache (SetValue at " +
                     d->second.file + ":" + std::to_string(d->second.line) + ", not cleaned yet): if a clean writes "
                     "back the whole line, one core's write-back overwrites the other's bytes; give each core's "
                     "scalar-written data lines of its own, or clean before the other core writes");
        }
        auto it = c.dcache.find(Key(region, ln));
        if (it == c.dcache.end()) {
            LoadLine(c, r, region, ln, file, line);  // write-allocate
            it = c.dcache.find(Key(region, ln));
        }
        const uint64_t lb = ln * kDcacheLine;
        const uint64_t b = std::max(offset, lb), e = std::min(offset + nbytes, lb + kDcacheLine);
        std::memcpy(it->second.bytes + (b - lb), value + (b - offset), e - b);
        GmRegion::DirtyLine& dl = r.dirty[ln];
        dl.core = c.block_idx;
        dl.mask |= Mask(ln, offset, offset + nbytes);
        dl.file = file;
        dl.line = line;
    }
}

void DcacheOtherAccess(CoreContext& c, int region, uint64_t offset, uint64_t nbytes, bool write, const char* file,
                       int line, const char* api)
{
    GmRegion& r = (*c.gm)[region];
    if (r.dirty.empty() || nbytes == 0) return;
    if (file == nullptr || file[0] == '\0') {
        file = c.order.current_file;
        line = c.order.current_line;
    }
    if (api == nullptr || api[0] == '\0') api = c.order.current_api;
    const std::string what = (api != nullptr && api[0] != '\0') ? std::string(api) : std::string("a GM access");
    for (auto d = r.dirty.lower_bound(offset / kDcacheLine);
         d != r.dirty.end() && d->first * kDcacheLine < offset + nbytes; ++d) {
        const uint64_t m = Mask(d->first, offset, offset + nbytes);
        const std::string owner = d->second.core == c.block_idx ? "this core" : "core " + std::to_string(d->second.core);
        if (write) {
            Fail(file, line,
                 what + " writes into " + Where(r, d->first) + ", which " + owner +
                     " holds dirty in its scalar data cache (SetValue at " + d->second.file + ":" +
                     std::to_string(d->second.line) + ", not cleaned): the clean, if it writes back the whole line, "
                     "overwrites these bytes; call DataCacheCleanAndInvalid after the scalar writes and before this "
                     "write (ordered after the clean)");
        }
        if ((d->second.mask & m) != 0) {
            Fail(file, line,
                 what + " reads bytes of " + Where(r, d->first) + " that " + owner + " wrote with SetValue at " +
                     d->second.file + ":" + std::to_string(d->second.line) + ": they are still in the scalar data "
                     "cache, GM holds the old bytes; call DataCacheCleanAndInvalid after the scalar writes (and order "
                     "the read after it)");
        }
    }
}

void DcacheCleanInvalidate(CoreContext& c, int region, uint64_t offset, bool entire, const char* file, int line)
{
    (void)file;
    (void)line;
    // A dirty line is written back whole (the documentation does not say the write-back is masked to the bytes the
    // scalar unit wrote): for the ordering checks the write-back writes every byte of the line, so another core's
    // unordered write into it is a race. (Its other bytes are still the fill's: any other write into a dirty line is
    // refused before, DcacheOtherAccess.)
    auto drop = [&](int rg, uint64_t ln) {
        GmRegion& r = (*c.gm)[rg];
        auto d = r.dirty.find(ln);
        if (d != r.dirty.end() && d->second.core == c.block_idx) {
            const uint64_t b = ln * kDcacheLine;
            GmOrderOnly(c, rg, b, std::min<uint64_t>(kDcacheLine, r.bytes - b), true, r.base + b);
            r.dirty.erase(d);
        }
        c.dcache.erase(Key(rg, ln));
    };
    if (!entire) {
        drop(region, offset / kDcacheLine);
        return;
    }
    while (!c.dcache.empty()) {
        const uint64_t k = c.dcache.begin()->first;
        drop(static_cast<int>(k >> 48), k & ((1ull << 48) - 1));
    }
}

void DcacheEndCore(CoreContext& c)
{
    for (const auto& kv : c.dcache) {
        const int rg = static_cast<int>(kv.first >> 48);
        const uint64_t ln = kv.first & ((1ull << 48) - 1);
        const GmRegion& r = (*c.gm)[rg];
        auto d = r.dirty.find(ln);
        if (d != r.dirty.end() && d->second.core == c.block_idx) {
            Fail(d->second.file, d->second.line,
                 "GlobalTensor::SetValue: " + Where(r, ln) + " is still dirty in this core's data cache at the end "
                     "of the kernel (no DataCacheCleanAndInvalid after the scalar writes): whether the device writes "
                     "the cache back when a kernel ends is not documented; clean it");
        }
    }
}

}  // namespace aqo_emu
