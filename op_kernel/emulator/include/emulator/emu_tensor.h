// Tensors and memory management of the emulated AscendC API: LocalTensor (UB), GlobalTensor (GM), TPipe, TQue,
// TBuf, and the enums kernels name (TPosition, HardEvent, RoundMode, CMPMODE, SELMODE, pipe_t).
//
// Every API function takes the caller's file and line as defaulted arguments (__builtin_FILE/LINE), so a fault
// is reported at the kernel's line, not at the emulator's.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <map>
#include <string>
#include <type_traits>

#include "emulator/emu_context.h"
#include "emulator/emu_order.h"
#include "emulator/emu_types.h"

namespace aqo_emu {
// The caller's file as the API's hidden defaulted argument: a type of its own with an explicit constructor, so that an
// extra argument a kernel passes by mistake (a literal 0, a string) does not compile as the file name, as it would not
// against the headers (ReduceMax(d, s, w, 64, 1, 0) is another overload there). It reads as the name it holds.
struct CallerFile {
    explicit CallerFile(const char* f) : name(f) {}
    operator const char*() const { return name; }
    const char* name;
};
}  // namespace aqo_emu

#define AQO_EMU_SRC \
    aqo_emu::CallerFile aqo_file = aqo_emu::CallerFile(__builtin_FILE()), int aqo_line = __builtin_LINE()

// The hardware pipes (a compiler enum in bisheng).
enum pipe_t : int { PIPE_S = 0, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL, PIPE_MTE4, PIPE_MTE5,
                    PIPE_V2, PIPE_FIX };
enum event_t : int { EVENT_ID0 = 0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7 };

namespace AscendC {

enum class TPosition : uint8_t {
    GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, LCM = VECCALC, SPM, SHM = SPM, TSCM, C2PIPE2GM,
    C2PIPE2LOCAL, MAX,
};
using QuePosition = TPosition;

enum class HardEvent : uint8_t {
    MTE2_MTE1, MTE1_MTE2, MTE1_M, M_MTE1, MTE2_V, V_MTE2, MTE3_V, V_MTE3, M_V, V_M, V_V, MTE3_MTE1, MTE1_MTE3,
    MTE1_V, MTE2_M, M_MTE2, V_MTE1, M_FIX, FIX_M, MTE3_MTE2, MTE2_MTE3, S_V, V_S, S_MTE2, MTE2_S, S_MTE3, MTE3_S,
    MTE2_FIX, FIX_MTE2, FIX_S, M_S, FIX_MTE3, MTE1_FIX, FIX_MTE1, FIX_FIX, MAX,
};

enum class RoundMode : uint8_t { CAST_NONE = 0, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD };
enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };
enum class SELMODE : uint8_t { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };

template <typename T> class LocalTensor;
template <typename T> class GlobalTensor;

// A view of UB memory owned by a queue buffer or a TBuf.
template <typename T> class LocalTensor {
public:
    using PrimType = T;
    LocalTensor() = default;

    // Element `offset` onwards, as a tensor (the AscendC way to address a slice).
    LocalTensor operator[](uint32_t offset) const
    {
        LocalTensor t = *this;
        t.byte_ += static_cast<uint64_t>(offset) * sizeof(T);
        t.size_ = offset <= size_ ? size_ - offset : 0;
        return t;
    }

    T GetValue(uint32_t index, AQO_EMU_SRC) const
    {
        aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
        const uint64_t at = byte_ + static_cast<uint64_t>(index) * sizeof(T);
        aqo_emu::CheckRecord(c, record_, aqo_file, aqo_line, "LocalTensor::GetValue", "tensor");
        aqo_emu::CheckUbRange(c, record_, at, sizeof(T), aqo_file, aqo_line, "LocalTensor::GetValue", "tensor");
        if (!aqo_emu::UbDefined(c, at, sizeof(T))) {
            aqo_emu::Fail(aqo_file, aqo_line,
                          "LocalTensor::GetValue(" + std::to_string(index) +
                              ") reads UB bytes that were never written (uninitialised)");
        }
        aqo_emu::Issue(c, aqo_emu::Pipe::kS, false, aqo_emu::InstrClass::kScalarUb, sizeof(T), 1, 0, aqo_file,
                       aqo_line, "LocalTensor::GetValue");
        aqo_emu::UbRead(c, at, sizeof(T), "the tensor");
        T v;
        std::memcpy(&v, c.ub.data() + at, sizeof(T));
        return v;
    }

    template <typename V> void SetValue(uint32_t index, V value, AQO_EMU_SRC) const
    {
        aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
        const uint64_t at = byte_ + static_cast<uint64_t>(index) * sizeof(T);
        aqo_emu::CheckRecord(c, record_, aqo_file, aqo_line, "LocalTensor::SetValue", "tensor");
        aqo_emu::CheckUbRange(c, record_, at, sizeof(T), aqo_file, aqo_line, "LocalTensor::SetValue", "tensor");
        aqo_emu::Issue(c, aqo_emu::Pipe::kS, true, aqo_emu::InstrClass::kScalarUb, sizeof(T), 1, 0, aqo_file,
                       aqo_line, "LocalTensor::SetValue");
        aqo_emu::UbWrite(c, at, sizeof(T), "the tensor");
        const T v = static_cast<T>(value);
        std::memcpy(c.ub.data() + at, &v, sizeof(T));
        aqo_emu::SetUbDefined(c, at, sizeof(T), true);
    }

    uint32_t GetSize() const { return size_; }
    uint32_t GetLength() const { return size_ * static_cast<uint32_t>(sizeof(T)); }
    void SetSize(uint32_t size) { size_ = size; }

    template <typename U> LocalTensor<U> ReinterpretCast() const
    {
        LocalTensor<U> t;
        t.record_ = record_;
        t.byte_ = byte_;
        t.size_ = static_cast<uint32_t>(static_cast<uint64_t>(size_) * sizeof(T) / sizeof(U));
        return t;
    }

    // The UB address as the kernel sees it (bytes from the start of UB); a pointer into the emulated UB for
    // code that passes addresses around.
    T* GetPhyAddr() const
    {
        aqo_emu::CoreContext* c = aqo_emu::CurrentCore();
        if (c == nullptr) return nullptr;
        const aqo_emu::Mem m =
            record_ >= 0 && record_ < static_cast<int>(c->records.size()) ? c->records[record_].mem : aqo_emu::Mem::kUb;
        return reinterpret_cast<T*>((m != aqo_emu::Mem::kUb ? c->Local(m).bytes.data() : c->ub.data()) + byte_);
    }
    T* GetPhyAddr(uint32_t offset) const { return GetPhyAddr() + offset; }

    // Emulator internals (public so that the free API functions can reach them).
    int record_ = -1;      // allocation record, -1 = never allocated
    uint64_t byte_ = 0;    // UB byte address of element 0
    uint32_t size_ = 0;    // elements
};

// A view of a GM buffer the launcher registered.
template <typename T> class GlobalTensor {
public:
    using PrimType = T;
    GlobalTensor() = default;

    void SetGlobalBuffer(T* buffer, uint64_t bufferSize, AQO_EMU_SRC)
    {
        SetBuffer(buffer, bufferSize, true, aqo_file, aqo_line);
    }
    void SetGlobalBuffer(T* buffer, AQO_EMU_SRC) { SetBuffer(buffer, 0, false, aqo_file, aqo_line); }

    GlobalTensor operator[](uint64_t offset) const
    {
        GlobalTensor t = *this;
        t.ptr_ = ptr_ + offset;  // pointer arithmetic only; every access is range-checked
        return t;
    }

    T GetValue(uint64_t index, AQO_EMU_SRC) const
    {
        aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
        const uint8_t* at = reinterpret_cast<const uint8_t*>(ptr_ + index);
        const int region = Region(c, aqo_file, aqo_line, "GlobalTensor::GetValue");
        aqo_emu::CheckGmBounds(c, region, begin_, end_, at, sizeof(T), false, aqo_file, aqo_line,
                               "GlobalTensor::GetValue");
        aqo_emu::CheckGmElementAligned(c, region, at, sizeof(T), aqo_file, aqo_line, "GlobalTensor::GetValue");
        aqo_emu::CheckGmReadWritten(c, region, static_cast<uint64_t>(at - (*c.gm)[region].base), sizeof(T), aqo_file,
                                    aqo_line, "GlobalTensor::GetValue");
        aqo_emu::Issue(c, aqo_emu::Pipe::kS, false, aqo_emu::InstrClass::kScalarGm, sizeof(T), 1, 0, aqo_file,
                       aqo_line, "GlobalTensor::GetValue");
        const uint64_t offset = static_cast<uint64_t>(at - (*c.gm)[region].base);
        aqo_emu::DcacheScalarRead(c, region, offset, sizeof(T), aqo_file, aqo_line, "GlobalTensor::GetValue");
        c.scalar_gm_access = true;
        aqo_emu::GmRead(c, region, offset, sizeof(T));
        c.scalar_gm_access = false;
        c.stats->gm_scalar_reads++;
        T v;
        std::memcpy(&v, at, sizeof(T));
        return v;
    }

    // As the 8.1 headers declare it (interface/kernel_tensor.h): not const, the value a T (implicit conversions
    // only).
    void SetValue(uint64_t index, T value, AQO_EMU_SRC)
    {
        aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
        uint8_t* at = reinterpret_cast<uint8_t*>(ptr_ + index);
        const int region = Region(c, aqo_file, aqo_line, "GlobalTensor::SetValue");
        aqo_emu::CheckGmBounds(c, region, begin_, end_, at, sizeof(T), true, aqo_file, aqo_line,
                               "GlobalTensor::SetValue");
        aqo_emu::CheckGmElementAligned(c, region, at, sizeof(T), aqo_file, aqo_line, "GlobalTensor::SetValue");
        const T v = value;
        aqo_emu::Issue(c, aqo_emu::Pipe::kS, true, aqo_emu::InstrClass::kScalarGm, sizeof(T), 1, 0, aqo_file,
                       aqo_line, "GlobalTensor::SetValue");
        const uint64_t offset = static_cast<uint64_t>(at - (*c.gm)[region].base);
        aqo_emu::DcacheScalarWrite(c, region, offset, sizeof(T), reinterpret_cast<const uint8_t*>(&v), aqo_file,
                                   aqo_line, "GlobalTensor::SetValue");
        c.scalar_gm_access = true;
        aqo_emu::GmWrite(c, region, offset, sizeof(T), reinterpret_cast<const uint8_t*>(&v), "GlobalTensor::SetValue");
        c.scalar_gm_access = false;
        c.stats->gm_scalar_writes++;
        std::memcpy(at, &v, sizeof(T));
    }

    T* GetPhyAddr() const { return ptr_; }
    T* GetPhyAddr(uint64_t offset) const { return ptr_ + offset; }
    uint64_t GetSize() const
    {
        return end_ > reinterpret_cast<const uint8_t*>(ptr_)
                   ? static_cast<uint64_t>(end_ - reinterpret_cast<const uint8_t*>(ptr_)) / sizeof(T)
                   : 0;
    }
    template <typename... A> void SetL2CacheHint(A...) {}

    // Emulator internals.
    int Region(aqo_emu::CoreContext& c, const char* file, int line, const char* api) const
    {
        if (region_ < 0) {
            aqo_emu::Fail(file, line, std::string(api) +
                                          ": GlobalTensor has no buffer (SetGlobalBuffer was not called, or was "
                                          "given a null pointer)");
        }
        (void)c;
        return region_;
    }
    T* ptr_ = nullptr;
    const uint8_t* begin_ = nullptr;  // the extent given to SetGlobalBuffer
    const uint8_t* end_ = nullptr;
    int region_ = -1;

private:
    void SetBuffer(T* buffer, uint64_t elements, bool sized, const char* file, int line)
    {
        aqo_emu::CoreContext& c = aqo_emu::Ctx(file, line);
        ptr_ = buffer;
        region_ = -1;
        begin_ = end_ = nullptr;
        if (buffer == nullptr) {
            return;  // an absent optional input; any access fails
        }
        region_ = aqo_emu::FindGmRegion(c, buffer, file, line, "SetGlobalBuffer");
        const aqo_emu::GmRegion& r = (*c.gm)[region_];
        begin_ = reinterpret_cast<const uint8_t*>(buffer);
        if (sized) {
            end_ = begin_ + elements * sizeof(T);
            if (end_ > r.base + r.bytes) {
                aqo_emu::Fail(file, line,
                              "SetGlobalBuffer: " + std::to_string(elements) + " elements of " +
                                  std::to_string(sizeof(T)) + " bytes from byte " +
                                  std::to_string(begin_ - r.base) + " exceed GM buffer '" + r.name + "' (" +
                                  std::to_string(r.bytes) + " bytes)");
            }
        } else {
            end_ = r.base + r.bytes;
        }
    }
};

class TPipe;

// Shared machinery of TQue and TQueBind.
template <int kDepth> class TQueImpl {
public:
    template <typename T> LocalTensor<T> AllocTensor(AQO_EMU_SRC)
    {
        aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
        aqo_emu::QueueState& q = State(c, aqo_file, aqo_line, "AllocTensor");
        int slot = -1;
        for (int i = 0; i < q.num; ++i) {
            const int s = (q.next_slot + i) % q.num;
            if (q.slot_record[s] < 0) {
                slot = s;
                break;
            }
        }
        if (slot < 0) {
            std::string holders;
            for (int s = 0; s < q.num; ++s) {
                const aqo_emu::AllocRecord& r = c.records[q.slot_record[s]];
                holders += (s ? ", " : "") + std::string(r.file) + ":" + std::to_string(r.line);
            }
            aqo_emu::Fail(aqo_file, aqo_line,
                          "AllocTensor: all " + std::to_string(q.num) +
                              " buffers of this queue are in use (allocated at " + holders +
                              " and not freed); on the device this waits forever");
        }
        q.next_slot = (slot + 1) % q.num;
        if (q.slot_free_id[slot] >= 0) {
            // The buffer's last user freed it with a flag (FreeTensor); its next user waits for it.
            aqo_emu::OrderWaitFlag(c, q.free_event, q.slot_free_id[slot], aqo_file, aqo_line, "AllocTensor",
                                   aqo_emu::FlagOwner::kQueue);
            aqo_emu::OrderReleaseEventId(c, q.free_event, q.slot_free_id[slot]);
            q.slot_free_id[slot] = -1;
        }
        aqo_emu::AllocRecord r;
        r.kind = aqo_emu::AllocKind::kQueue;
        r.queue = id_;
        r.slot = slot;
        r.live = true;
        r.begin = q.slot_offset[slot];
        r.end = r.begin + q.slot_bytes;
        r.file = aqo_file;
        r.line = aqo_line;
        c.records.push_back(r);
        q.slot_record[slot] = static_cast<int>(c.records.size()) - 1;
        // A fresh buffer holds whatever the previous user left: treat it as uninitialised.
        aqo_emu::SetUbDefined(c, r.begin, q.slot_bytes, false);
        LocalTensor<T> t;
        t.record_ = q.slot_record[slot];
        t.byte_ = r.begin;
        t.size_ = static_cast<uint32_t>(q.slot_bytes / sizeof(T));
        return t;
    }

    template <typename T> bool EnQue(const LocalTensor<T>& tensor, AQO_EMU_SRC)
    {
        aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
        aqo_emu::QueueState& q = State(c, aqo_file, aqo_line, "EnQue");
        aqo_emu::AllocRecord& r = Owned(c, tensor.record_, aqo_file, aqo_line, "EnQue");
        if (r.enqueued) {
            aqo_emu::Fail(aqo_file, aqo_line, "EnQue: the tensor is already in the queue (EnQue twice)");
        }
        if (static_cast<int>(q.fifo.size()) >= q.depth) {
            aqo_emu::Fail(aqo_file, aqo_line,
                          "EnQue: queue depth " + std::to_string(q.depth) + " exceeded (" +
                              std::to_string(q.fifo.size()) + " tensors already queued, none DeQue'd)");
        }
        r.enqueued = true;
        r.enque_id = aqo_emu::OrderAllocEventId(c, q.enque_event, aqo_file, aqo_line, aqo_emu::FlagOwner::kQueue,
                                                "EnQue");
        aqo_emu::OrderSetFlag(c, q.enque_event, r.enque_id, aqo_file, aqo_line, "EnQue", aqo_emu::FlagOwner::kQueue);
        q.fifo.push_back(tensor.record_);
        return true;
    }

    template <typename T> LocalTensor<T> DeQue(AQO_EMU_SRC)
    {
        aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
        aqo_emu::QueueState& q = State(c, aqo_file, aqo_line, "DeQue");
        if (q.fifo.empty()) {
            aqo_emu::Fail(aqo_file, aqo_line,
                          "DeQue on an empty queue (no EnQue before it); on the device this waits forever");
        }
        const int rec = q.fifo.front();
        q.fifo.erase(q.fifo.begin());
        aqo_emu::AllocRecord& r = c.records[rec];
        r.enqueued = false;
        aqo_emu::OrderWaitFlag(c, q.enque_event, r.enque_id, aqo_file, aqo_line, "DeQue", aqo_emu::FlagOwner::kQueue);
        aqo_emu::OrderReleaseEventId(c, q.enque_event, r.enque_id);
        r.enque_id = -1;
        LocalTensor<T> t;
        t.record_ = rec;
        t.byte_ = r.begin;
        t.size_ = static_cast<uint32_t>((r.end - r.begin) / sizeof(T));
        return t;
    }

    template <typename T> void FreeTensor(LocalTensor<T>& tensor, AQO_EMU_SRC)
    {
        aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
        aqo_emu::QueueState& q = State(c, aqo_file, aqo_line, "FreeTensor");
        if (tensor.record_ < 0 || tensor.record_ >= static_cast<int>(c.records.size())) {
            aqo_emu::Fail(aqo_file, aqo_line, "FreeTensor of a tensor that was never allocated");
        }
        aqo_emu::AllocRecord& r = c.records[tensor.record_];
        if (r.kind != aqo_emu::AllocKind::kQueue || r.queue != id_) {
            aqo_emu::Fail(aqo_file, aqo_line,
                          "FreeTensor of a foreign tensor (allocated at " + std::string(r.file) + ":" +
                              std::to_string(r.line) + " from another queue or buffer)");
        }
        if (!r.live) {
            aqo_emu::Fail(aqo_file, aqo_line,
                          "FreeTensor twice: the tensor allocated at " + std::string(r.file) + ":" +
                              std::to_string(r.line) + " was already freed");
        }
        if (r.enqueued) {
            aqo_emu::Fail(aqo_file, aqo_line, "FreeTensor of a tensor that is still in the queue (EnQue'd, not DeQue'd)");
        }
        r.live = false;
        q.slot_record[r.slot] = -1;
        const int id = aqo_emu::OrderAllocEventId(c, q.free_event, aqo_file, aqo_line, aqo_emu::FlagOwner::kQueue,
                                                  "FreeTensor");
        aqo_emu::OrderSetFlag(c, q.free_event, id, aqo_file, aqo_line, "FreeTensor", aqo_emu::FlagOwner::kQueue);
        q.slot_free_id[r.slot] = id;
    }

    // Emulator internals.
    void EmuInit(aqo_emu::CoreContext& c, int num, uint32_t slot_bytes, uint32_t first_offset, const char* file,
                 int line)
    {
        aqo_emu::QueueState q;
        q.enque_event = enque_event_;
        q.free_event = free_event_;
        q.depth = kDepth;
        q.num = num;
        q.slot_bytes = slot_bytes;
        for (int i = 0; i < num; ++i) {
            q.slot_offset.push_back(first_offset + static_cast<uint32_t>(i) * slot_bytes);
            q.slot_record.push_back(-1);
            q.slot_free_id.push_back(-1);
        }
        q.file = file;
        q.line = line;
        c.queues.push_back(q);
        id_ = static_cast<int>(c.queues.size()) - 1;
    }
    int id_ = -1;
    int enque_event_ = -1;  // set by TQue / TQueBind from their positions
    int free_event_ = -1;

private:
    aqo_emu::QueueState& State(aqo_emu::CoreContext& c, const char* file, int line, const char* api)
    {
        if (id_ < 0 || id_ >= static_cast<int>(c.queues.size())) {
            aqo_emu::Fail(file, line, std::string(api) + " on a queue that TPipe::InitBuffer never initialised");
        }
        return c.queues[id_];
    }
    aqo_emu::AllocRecord& Owned(aqo_emu::CoreContext& c, int record, const char* file, int line, const char* api)
    {
        if (record < 0 || record >= static_cast<int>(c.records.size())) {
            aqo_emu::Fail(file, line, std::string(api) + " of a tensor that was never allocated");
        }
        aqo_emu::AllocRecord& r = c.records[record];
        if (r.kind != aqo_emu::AllocKind::kQueue || r.queue != id_) {
            aqo_emu::Fail(file, line,
                          std::string(api) + " of a foreign tensor (allocated at " + r.file + ":" +
                              std::to_string(r.line) + " from another queue or buffer)");
        }
        if (!r.live) {
            aqo_emu::Fail(file, line, std::string(api) + " of a freed tensor");
        }
        return r;
    }
};

// The flags a queue between two positions inserts (CANN 8.1 basic_api/impl/kernel_event.h GetQueEvt, and
// GetBufferLogicPos for TQue): EnQue sets and DeQue waits the forward event, FreeTensor sets and the next
// AllocTensor of that buffer waits the backward one. Only the unified-buffer positions are modelled.
namespace emu_detail {
enum class Phys { kGm, kUb, kL1, kL0A, kL0B, kL0C, kOther };
// The kernel-owned L1 / L0 positions modelled (ascend310p TBufs): A1 / B1 in L1 (its UB -> L1 DataCopy names them as
// destinations: inner_kernel_operator_data_copy_intf.cppm), A2 in L0A, B2 in L0B, CO1 in L0C (kernel_event.h
// GetPhyType on v200). TSCM / C1 / C2 / SHM / CO2 are not modelled.
constexpr Phys PhysOf(TPosition p)
{
    return p == TPosition::GM ? Phys::kGm
           : (p == TPosition::VECIN || p == TPosition::VECOUT || p == TPosition::VECCALC) ? Phys::kUb
           : (p == TPosition::A1 || p == TPosition::B1)                                    ? Phys::kL1
           : p == TPosition::A2                                                            ? Phys::kL0A
           : p == TPosition::B2                                                            ? Phys::kL0B
           : p == TPosition::CO1                                                           ? Phys::kL0C
                                                                                           : Phys::kOther;
}
constexpr aqo_emu::Mem MemOf(Phys p)
{
    return p == Phys::kL1    ? aqo_emu::Mem::kL1
           : p == Phys::kL0A ? aqo_emu::Mem::kL0A
           : p == Phys::kL0B ? aqo_emu::Mem::kL0B
           : p == Phys::kL0C ? aqo_emu::Mem::kL0C
                             : aqo_emu::Mem::kUb;
}
// HardEvent values (emu_order.cpp's table): MTE2_V 4, V_MTE2 5, MTE3_V 6, V_MTE3 7, MTE3_MTE2 19, MTE2_MTE3 20.
constexpr int QueEvent(TPosition src, TPosition dst, bool forward)
{
    return PhysOf(src) == Phys::kGm && PhysOf(dst) == Phys::kUb   ? (forward ? 4 : 5)
           : PhysOf(src) == Phys::kUb && PhysOf(dst) == Phys::kGm ? (forward ? 7 : 6)
           : PhysOf(src) == Phys::kUb && PhysOf(dst) == Phys::kUb ? (forward ? 20 : 19)
                                                                   : -1;
}
// TQue<pos>: VECIN is a GM -> VECIN queue, VECOUT a VECOUT -> GM queue (VECCALC has no queue).
constexpr TPosition QueSrc(TPosition p) { return p == TPosition::VECIN ? TPosition::GM : p; }
constexpr TPosition QueDst(TPosition p) { return p == TPosition::VECOUT ? TPosition::GM : p; }
}  // namespace emu_detail

template <TPosition kPos, int32_t kDepth, auto kMask = 0> class TQue : public TQueImpl<kDepth> {
    static_assert(kDepth >= 1, "TQue depth must be at least 1");
    static_assert(kPos == TPosition::VECIN || kPos == TPosition::VECOUT,
                  "emulated TQue: VECIN and VECOUT queues only (VECCALC takes a TBuf)");

public:
    TQue()
    {
        this->enque_event_ = emu_detail::QueEvent(emu_detail::QueSrc(kPos), emu_detail::QueDst(kPos), true);
        this->free_event_ = emu_detail::QueEvent(emu_detail::QueSrc(kPos), emu_detail::QueDst(kPos), false);
    }
};
template <TPosition kSrc, TPosition kDst, int32_t kDepth, auto kMask = 0> class TQueBind : public TQueImpl<kDepth> {
    static_assert(kDepth >= 1, "TQueBind depth must be at least 1");
    static_assert(emu_detail::QueEvent(kSrc, kDst, true) >= 0,
                  "emulated TQueBind: positions between GM and the unified buffer only");

public:
    TQueBind()
    {
        this->enque_event_ = emu_detail::QueEvent(kSrc, kDst, true);
        this->free_event_ = emu_detail::QueEvent(kSrc, kDst, false);
    }
};

// A calculation buffer: one range of the unified buffer, or (ascend310p only) of the kernel's own L1 (A1 / B1), L0A
// (A2), L0B (B2) or L0C (CO1), no queue semantics. Other positions (TSCM, C1, CO2, ...) are not modelled and do not
// compile.
template <TPosition kPos = TPosition::LCM> class TBuf {
    static_assert(emu_detail::PhysOf(kPos) != emu_detail::Phys::kGm &&
                      emu_detail::PhysOf(kPos) != emu_detail::Phys::kOther,
                  "emulated TBuf: unified-buffer positions (VECIN, VECOUT, VECCALC / LCM) and the cube's A1 / B1 / A2 "
                  "/ B2 / CO1 only; the emulator has no model of other buffers a kernel allocates itself");
    static constexpr aqo_emu::Mem kMem = emu_detail::MemOf(emu_detail::PhysOf(kPos));

public:
    template <typename T> LocalTensor<T> Get(AQO_EMU_SRC)
    {
        aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
        const aqo_emu::BufState& b = State(c, aqo_file, aqo_line);
        LocalTensor<T> t;
        t.record_ = b.record;
        t.byte_ = b.offset;
        t.size_ = static_cast<uint32_t>(b.bytes / sizeof(T));
        return t;
    }
    template <typename T> LocalTensor<T> Get(uint32_t len, AQO_EMU_SRC)
    {
        aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
        const aqo_emu::BufState& b = State(c, aqo_file, aqo_line);
        if (static_cast<uint64_t>(len) * sizeof(T) > b.bytes) {
            aqo_emu::Fail(aqo_file, aqo_line,
                          "TBuf::Get(" + std::to_string(len) + "): " + std::to_string(len * sizeof(T)) +
                              " bytes exceed the buffer's " + std::to_string(b.bytes) + " bytes");
        }
        LocalTensor<T> t;
        t.record_ = b.record;
        t.byte_ = b.offset;
        t.size_ = len;
        return t;
    }
    template <typename T> LocalTensor<T> GetWithOffset(uint32_t len, uint32_t byte_offset, AQO_EMU_SRC)
    {
        aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
        const aqo_emu::BufState& b = State(c, aqo_file, aqo_line);
        if (static_cast<uint64_t>(byte_offset) + static_cast<uint64_t>(len) * sizeof(T) > b.bytes) {
            aqo_emu::Fail(aqo_file, aqo_line, "TBuf::GetWithOffset: range exceeds the buffer");
        }
        LocalTensor<T> t;
        t.record_ = b.record;
        t.byte_ = b.offset + byte_offset;
        t.size_ = len;
        return t;
    }

    void EmuInit(aqo_emu::CoreContext& c, uint32_t offset, uint32_t bytes, const char* file, int line)
    {
        aqo_emu::AllocRecord r;
        r.kind = aqo_emu::AllocKind::kTBuf;
        r.live = true;
        r.begin = offset;
        r.end = offset + bytes;
        r.file = file;
        r.line = line;
        r.mem = kMem;
        c.records.push_back(r);
        aqo_emu::BufState b;
        b.offset = offset;
        b.bytes = bytes;
        b.record = static_cast<int>(c.records.size()) - 1;
        b.mem = kMem;
        c.bufs.push_back(b);
        id_ = static_cast<int>(c.bufs.size()) - 1;
        c.records.back().queue = id_;
        if constexpr (kMem != aqo_emu::Mem::kUb) {
            std::vector<uint8_t>& d = c.Local(kMem).defined;
            std::fill(d.begin() + offset, d.begin() + offset + bytes, 0);
        } else {
            aqo_emu::SetUbDefined(c, offset, bytes, false);
        }
    }
    int id_ = -1;

private:
    const aqo_emu::BufState& State(aqo_emu::CoreContext& c, const char* file, int line) const
    {
        if (id_ < 0 || id_ >= static_cast<int>(c.bufs.size())) {
            aqo_emu::Fail(file, line, "TBuf::Get on a buffer that TPipe::InitBuffer never initialised");
        }
        return c.bufs[id_];
    }
};

// The UB allocator of a kernel: hands out consecutive 32-byte aligned ranges from UB address 0.
class TPipe {
public:
    explicit TPipe(AQO_EMU_SRC)
    {
        aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
        if (c.pipe_live) {
            aqo_emu::Fail(aqo_file, aqo_line,
                          "a second TPipe while another is alive: both would hand out the same UB addresses");
        }
        c.pipe_live = true;
        c.pipe = this;
        core_ = &c;
    }
    ~TPipe()
    {
        if (core_ != nullptr && aqo_emu::CurrentCore() == core_ && core_->pipe == this) {
            // Destroy: the buffers' outstanding free events are waited for (not while a fault unwinds the kernel).
            if (std::uncaught_exceptions() == 0) {
                try {
                    WaitFreeEvents(*core_, "", 0);
                } catch (...) {
                }
            }
            core_->pipe_live = false;
            core_->pipe = nullptr;
        }
    }
    TPipe(const TPipe&) = delete;
    TPipe& operator=(const TPipe&) = delete;

    template <class Q> bool InitBuffer(Q& que, uint8_t num, uint32_t len, AQO_EMU_SRC)
    {
        aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
        if (num == 0 || len == 0) {
            aqo_emu::Fail(aqo_file, aqo_line, "TPipe::InitBuffer: buffer count and length must be positive");
        }
        CountBuffers(num, aqo_file, aqo_line);
        CountQueueBuffers(que.free_event_, num, aqo_file, aqo_line);
        const uint32_t slot = aqo_emu::AlignUp32(len);
        const uint32_t offset = Reserve(c, static_cast<uint64_t>(slot) * num, aqo_file, aqo_line, num, len, true);
        que.EmuInit(c, num, slot, offset, aqo_file, aqo_line);
        return true;
    }
    template <TPosition kPos> bool InitBuffer(TBuf<kPos>& buf, uint32_t len, AQO_EMU_SRC)
    {
        aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
        if (len == 0) {
            aqo_emu::Fail(aqo_file, aqo_line, "TPipe::InitBuffer: TBuf length must be positive");
        }
        CountBuffers(1, aqo_file, aqo_line);
        const uint32_t bytes = aqo_emu::AlignUp32(len);
        constexpr aqo_emu::Mem kMem = emu_detail::MemOf(emu_detail::PhysOf(kPos));
        const uint32_t offset = kMem != aqo_emu::Mem::kUb ? ReserveLocal(c, kMem, bytes, aqo_file, aqo_line, len)
                                                          : Reserve(c, bytes, aqo_file, aqo_line, 1, len, false);
        buf.EmuInit(c, offset, bytes, aqo_file, aqo_line);
        return true;
    }

    // TPipe manages at most 64 buffers (QBUF_MAX_LEN in the 8.1 headers: a queue's InitBuffer counts its `num`
    // buffers, a TBuf one; the count must stay in (0, 64], else the TPipe's buffer table overflows).
    // On ascend310p the Matmul API's Init takes its own queues and L0 buffers from the same TPipe (CountApiBuffers).
    void CountBuffers(uint32_t num, const char* file, int line, const char* api = "TPipe::InitBuffer")
    {
        buffers_ += num;
        if (buffers_ > 64) {
            const std::string share =
                api_buffers_ != 0 ? " (" + std::to_string(api_buffers_) + " of them the Matmul API's)" : "";
            aqo_emu::Fail(file, line,
                          std::string(api) + ": " + std::to_string(buffers_) + " buffers managed by one TPipe" +
                              share + "; at most 64 (QBUF_MAX_LEN: queue buffers count num each, a TBuf one)");
        }
    }
    // UB the Matmul API's Init sets aside on ascend310p (TCubeTiling::shareUbSize), at the pool's current end, once
    // after the pool's reset (later Inits share it).
    void ReserveApiUbOnce(uint32_t bytes, const char* file, int line)
    {
        if (api_ub_reserved_) {
            return;
        }
        api_ub_reserved_ = true;
        if (bytes > 0) {
            aqo_emu::CoreContext& c = aqo_emu::Ctx(file, line);
            (void)Reserve(c, aqo_emu::AlignUp32(bytes), file, line, 1, bytes, false);
        }
    }
    bool api_ub_reserved_ = false;
    void CountApiBuffers(uint32_t num, const char* file, int line)
    {
        if (aqo_emu::Ctx(file, line).HasLocalBuffers()) RefuseL1Sharing(file, line);
        api_buffers_ += num;
        CountBuffers(num, file, line, "Matmul::Init (its queues and L0 buffers on this TPipe)");
    }
    uint32_t buffers_ = 0;
    uint32_t api_buffers_ = 0;

    // The TQue page ("TQue Buffer limits"): a queue buffer holds a synchronisation event id of its position's pair
    // (a VECIN buffer an MTE2 / V id, a VECOUT one a V / MTE3 id), and a position's TQue buffers are limited to the
    // hardware's ids of that kind, 8 (4 on the training series); beyond them a later AllocTensor / FreeTensor may
    // fail to get one. Counted per event kind at InitBuffer, whatever the run's order (the dynamic check of ids
    // held at once is separate).
    void CountQueueBuffers(int free_event, uint32_t num, const char* file, int line)
    {
        uint32_t& n = queue_buffers_[free_event];
        n += num;
        if (n > 8) {
            aqo_emu::Fail(file, line,
                          "TPipe::InitBuffer: " + std::to_string(n) + " TQue buffers whose free event is " +
                              aqo_emu::HardEventName(free_event) + " on one TPipe; at most 8 (each holds one of "
                              "the 8 event ids of that kind: the TQue page's buffer limit); share a queue, or take "
                              "a TBuf where no queue synchronisation is needed");
        }
    }
    std::map<int, uint32_t> queue_buffers_;

    // Releases every buffer: the UB can be carved up again (records die, so stale tensors are caught).
    void Reset(AQO_EMU_SRC)
    {
        buffers_ = 0;
        api_buffers_ = 0;
        api_ub_reserved_ = false;
        queue_buffers_.clear();
        aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
        WaitFreeEvents(c, aqo_file, aqo_line);
        for (aqo_emu::AllocRecord& r : c.records) {
            r.live = false;
            r.enqueued = false;
        }
        c.queues.clear();
        c.bufs.clear();
        c.ub_alloc = 0;
        for (aqo_emu::LocalMem& m : c.mems) m.alloc = 0;
        aqo_emu::OrderDropKernelHolds(c);
    }
    void Destroy(AQO_EMU_SRC) { Reset(aqo_file, aqo_line); }
    // Event ids as the real TPipe hands them out: AllocEventID holds the lowest free id of the event until
    // ReleaseEventID; FetchEventID returns the lowest free id without holding it (the queues hold theirs).
    int32_t FetchEventID(HardEvent e, AQO_EMU_SRC)
    {
        aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
        const int id = aqo_emu::OrderFetchEventId(c, static_cast<int>(e), aqo_file, aqo_line);
        aqo_emu::OrderKernelGotId(c, static_cast<int>(e), id);
        return id;
    }
    template <HardEvent kEvent> int32_t FetchEventID(AQO_EMU_SRC) { return FetchEventID(kEvent, aqo_file, aqo_line); }
    // Only the template form: the real TPipe has no AllocEventID(HardEvent) (a kernel using one would not compile).
    template <HardEvent kEvent> int32_t AllocEventID(AQO_EMU_SRC)
    {
        aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
        const int id = aqo_emu::OrderAllocEventId(c, static_cast<int>(kEvent), aqo_file, aqo_line,
                                                  aqo_emu::FlagOwner::kKernel, "TPipe::AllocEventID");
        aqo_emu::OrderKernelGotId(c, static_cast<int>(kEvent), id);
        return id;
    }
    template <HardEvent kEvent> void ReleaseEventID(int32_t id, AQO_EMU_SRC)
    {
        aqo_emu::OrderKernelReleaseEventId(aqo_emu::Ctx(aqo_file, aqo_line), static_cast<int>(kEvent), id, aqo_file,
                                           aqo_line);
    }

private:
    // What TPipe::Destroy / Reset do first: wait for every freed buffer's pending free event.
    static void WaitFreeEvents(aqo_emu::CoreContext& c, const char* file, int line)
    {
        for (aqo_emu::QueueState& q : c.queues) {
            for (size_t i = 0; i < q.slot_free_id.size(); ++i) {
                if (q.slot_free_id[i] >= 0) {
                    aqo_emu::OrderWaitFlag(c, q.free_event, q.slot_free_id[i], file, line, "TPipe::Destroy",
                                           aqo_emu::FlagOwner::kQueue);
                    aqo_emu::OrderReleaseEventId(c, q.free_event, q.slot_free_id[i]);
                    q.slot_free_id[i] = -1;
                }
            }
        }
    }

    // The Matmul API's Init takes its L1 queues and L0 buffers from this TPipe too, at addresses the emulator does not
    // model: a kernel's own L1 / L0 buffers beside a Matmul object on one core are refused, either order.
    static void RefuseL1Sharing(const char* file, int line)
    {
        aqo_emu::Fail(file, line,
                      "L1 / L0 buffers of the kernel's own beside a Matmul object on one core: the Matmul API takes "
                      "its L1 queues and L0 buffers from the same TPipe at addresses the emulator does not model; not "
                      "modelled");
    }

    // The kernel's own L1 / L0 (A1 / B1, A2, B2, CO1 TBufs): ascend310p only, whose AI core runs the vector and the
    // cube instructions (the split SoCs' vector cores have no L1 or L0; their cube cores' are not modelled for
    // kernels). The capacities are the SoC table's.
    uint32_t ReserveLocal(aqo_emu::CoreContext& c, aqo_emu::Mem mem, uint64_t bytes, const char* file, int line,
                          uint32_t len)
    {
        const char* name = aqo_emu::MemName(mem);
        if (c.soc.id != aqo_emu::SocId::kAscend310P) {
            aqo_emu::Fail(file, line,
                          std::string("TPipe::InitBuffer of an ") + name + " TBuf on " + c.soc.name + ": a kernel's "
                          "own L1 / L0 buffers are modelled on ascend310p only (the split SoCs' vector cores have "
                          "none)");
        }
        if (api_buffers_ > 0) RefuseL1Sharing(file, line);
        const uint64_t size = mem == aqo_emu::Mem::kL1    ? c.soc.l1_bytes
                              : mem == aqo_emu::Mem::kL0A ? c.soc.l0a_bytes
                              : mem == aqo_emu::Mem::kL0B ? c.soc.l0b_bytes
                                                          : c.soc.l0c_bytes;
        aqo_emu::LocalMem& m = c.Local(mem);
        const uint64_t end = static_cast<uint64_t>(m.alloc) + bytes;
        if (end > size) {
            aqo_emu::Fail(file, line,
                          std::string(name) + " overflow: InitBuffer(" + std::to_string(len) + " bytes) needs " + name +
                              " bytes [" + std::to_string(m.alloc) + ", " + std::to_string(end) + ") but the " +
                              name + " of " + c.soc.name + " has " + std::to_string(size) + " bytes");
        }
        if (m.bytes.empty()) {
            m.bytes.assign(size, 0xA5);
            m.defined.assign(size, 0);
            const size_t blocks = size / 32;
            m.shadow.wseq.assign(blocks, 0);
            m.shadow.wstream.assign(blocks, 0);
            m.shadow.r_mte1.assign(blocks, 0);
            m.shadow.r_m.assign(blocks, 0);
            m.shadow.r_v.assign(blocks, 0);
        }
        const uint32_t offset = m.alloc;
        m.alloc = static_cast<uint32_t>(end);
        return offset;
    }

    uint32_t Reserve(aqo_emu::CoreContext& c, uint64_t bytes, const char* file, int line, int num, uint32_t len,
                     bool is_queue)
    {
        const uint64_t end = static_cast<uint64_t>(c.ub_alloc) + bytes;
        if (end > c.soc.ub_bytes) {
            aqo_emu::Fail(file, line,
                          "UB overflow: InitBuffer(" + std::to_string(num) + " x " + std::to_string(len) +
                              " bytes) needs UB bytes [" + std::to_string(c.ub_alloc) + ", " + std::to_string(end) +
                              ") but the UB of " + c.soc.name + " has " + std::to_string(c.soc.ub_bytes) +
                              " bytes");
        }
        const uint32_t offset = c.ub_alloc;
        c.ub_alloc = static_cast<uint32_t>(end);
        if (c.ub_alloc > c.stats->peak_ub_bytes) {
            c.stats->peak_ub_bytes = c.ub_alloc;
        }
        aqo_emu::UbAllocation a;
        a.offset = offset;
        a.bytes = static_cast<uint32_t>(bytes);
        a.num = static_cast<uint32_t>(num);
        a.is_queue = is_queue;
        a.site = std::string(file) + ":" + std::to_string(line);
        c.stats->ub_buffers.push_back(a);
        return offset;
    }
    aqo_emu::CoreContext* core_ = nullptr;
};

inline TPipe* GetTPipePtr()
{
    aqo_emu::CoreContext* c = aqo_emu::CurrentCore();
    return c ? static_cast<TPipe*>(c->pipe) : nullptr;
}

}  // namespace AscendC
