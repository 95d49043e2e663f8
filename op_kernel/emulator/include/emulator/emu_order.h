// The emulator's ordering model: every emulated instruction is issued to a pipe, recorded in the trace
// (emu_trace.h), and every UB / GM byte it reads or writes is checked against the happens-before relation the
// trace's sync events define. A read of bytes whose last write is not ordered before it (RAW), a write over bytes
// whose last reads or write are not ordered before it (WAR, WAW), is a race on the device and fails at the kernel
// line of the later access, naming the earlier one and the synchronisation that would order them.
//
// Implementation: vector clocks per stream (OrderState in emu_context.h). Instructions of one pipe are not
// ordered with each other for data dependencies (PipeBarrier<pipe> is needed), except the scalar unit's, which the
// hardware orders. UB is checked per byte, GM per byte range of the writable buffers (read-only inputs cannot
// race). Two writes of identical values to GM are not a race (the bytes end up the same in either order).
//
// The API headers use it as:
//   Issue(c, Pipe::kV, InstrClass::kVecElementwise, sizeof(T), count, repeats, file, line, "Add");
//   UbRead(c, src.byte_, bytes, "src0"); ... UbWrite(c, dst.byte_, bytes, "dst");
#pragma once

#include <cstdint>

#include "emulator/emu_context.h"
#include "emulator/emu_trace.h"

namespace aqo_emu {

// The emulator's HardEvent numbering (AscendC::HardEvent in emu_tensor.h, same order): source and destination
// pipes and the name.
constexpr int kHardEventCount = 35;
Pipe HardEventSrc(int hard_event);
Pipe HardEventDst(int hard_event);
const char* HardEventName(int hard_event);
// The HardEvent from src to dst, -1 if AscendC has none.
int HardEventOf(Pipe src, Pipe dst);
// pipe_t value (PIPE_S = 0 ... PIPE_FIX) to Pipe; kCount for pipes the emulator has no stream for.
Pipe PipeOfPipeT(int pipe_t_value);

// ---- instructions ----
// Makes the next instruction of `pipe` the current one (its sequence number, its view of what has completed) and
// records it in the trace. `write` selects the scalar unit's store stream for S instructions.
void Issue(CoreContext& c, Pipe pipe, bool scalar_write, InstrClass cls, uint8_t elem_bytes, uint64_t count,
           uint32_t bursts, const char* file, int line, const char* api);
// 256-byte repeats of `count` elements of `elem_bytes` (a vector instruction's bursts in the trace).
inline uint32_t VectorRepeats(uint64_t count, uint64_t elem_bytes)
{
    return static_cast<uint32_t>((count * elem_bytes + 255) / 256);
}

// Accesses of the current instruction (call the reads before the writes of one instruction).
void UbRead(CoreContext& c, uint64_t byte, uint64_t nbytes, const char* operand);
void UbWrite(CoreContext& c, uint64_t byte, uint64_t nbytes, const char* operand);
// A kernel-owned L1 / L0 memory's bytes [byte, byte + nbytes) (whole 32-byte blocks): the same ordering rules, per
// block.
void LocalAccess(CoreContext& c, Mem mem, uint64_t byte, uint64_t nbytes, bool write, const char* operand);
// GM bytes [offset, offset + nbytes) of registered buffer `region`: recorded in the statistics, checked for the
// cross-core write race (kReadWrite) and for ordering. new_bytes (writes): the bytes being written, so that a
// rewrite of identical values is not reported.
void GmRead(CoreContext& c, int region, uint64_t offset, uint64_t nbytes);
// The ordering check alone (no statistics, no GM range record): accesses the kernel does not make itself, such as
// the scalar data cache's whole-line fills and write-backs (emu_dcache.cpp).
void GmOrderOnly(CoreContext& c, int region, uint64_t offset, uint64_t nbytes, bool write, const uint8_t* new_bytes);
void GmWrite(CoreContext& c, int region, uint64_t offset, uint64_t nbytes, const uint8_t* new_bytes,
             const char* api);

// ---- synchronisation ----
void OrderPipeBarrier(CoreContext& c, int pipe_t_value, const char* file, int line);
// A flag is one bit per (HardEvent, id) (CCE set_flag / wait_flag: two set_flag of one id and pipe pair without a
// wait_flag between them are illegal; AscendC SetFlag / WaitFlag must be paired). So OrderSetFlag fails when a SetFlag
// of that (event, id) is still pending, and, for the kernel's own SetFlag / WaitFlag (owner kKernel), when a queue
// or an API holds the id (the AscendC ISASI SetFlag page: ids come from AllocEventID / FetchEventID, a self-chosen id
// conflicts with the framework's events). OrderWaitFlag fails without a pending SetFlag (the device waits forever).
// An Mmad (its m, n) for the small-Mmad rule (OrderState::small_mmad_file), and the check an M instruction or a flag
// of the M pipe makes against it.
void NoteMmad(CoreContext& c, uint32_t m, uint32_t n, const char* file, int line);
void RequireBarrierAfterSmallMmad(CoreContext& c, const char* file, int line, const std::string& what);
// The current Mmad (just issued) ordered after the core's earlier Mmads: the cube pipe accumulates them into L0C in
// issue order. CANN 8.1's Matmul API issues a K loop's accumulating Mmads with no barrier between them (its
// scheduler's CubeCompute -> stage/compute/mmad_compute.h; the v200 Mmad has none inside) and puts
// PipeBarrier<PIPE_M> only after an Mmad of fewer than 10 fractals of C, which RequireBarrierAfterSmallMmad demands.
void OrderAfterEarlierMmads(CoreContext& c);
void OrderSetFlag(CoreContext& c, int hard_event, int event_id, const char* file, int line, const char* api,
                  FlagOwner owner = FlagOwner::kKernel);
void OrderWaitFlag(CoreContext& c, int hard_event, int event_id, const char* file, int line, const char* api,
                   FlagOwner owner = FlagOwner::kKernel);
// TPipe's event ids: AllocEventID (the lowest free id, held by `owner` until released), ReleaseEventID, FetchEventID
// (the lowest id nobody holds, not held: a SetFlag pending on it is not seen, so two users of one fetched id collide).
int OrderAllocEventId(CoreContext& c, int hard_event, const char* file, int line, FlagOwner owner = FlagOwner::kQueue,
                      const char* what = "");
void OrderReleaseEventId(CoreContext& c, int hard_event, int event_id);
int OrderFetchEventId(CoreContext& c, int hard_event, const char* file, int line);
// TPipe::AllocEventID / FetchEventID gave the kernel this id (the kernel's SetFlag under a TPipe takes only those).
void OrderKernelGotId(CoreContext& c, int hard_event, int event_id);
// TPipe::Reset / Destroy: the kernel's AllocEventID holds end (8.1 ResetPool clears every id's occupancy), so a
// queue may take such an id again; the record of ids handed out stays.
void OrderDropKernelHolds(CoreContext& c);
// The kernel's TPipe::ReleaseEventID: only of an id the kernel holds (AllocEventID).
void OrderKernelReleaseEventId(CoreContext& c, int hard_event, int event_id, const char* file, int line);
// An API's internal SetFlag + WaitFlag on an id it takes with FetchEventID (CANN 8.1: the level-2 ReduceMax /
// ReduceMin / ReduceSum end with V_S, S_V and S_MTE3 pairs, dav_c220/kernel_operator_vec_reduce_impl.h; the Matmul
// client posts each message after an S_MTE3 pair, kfc_comm_client.h): fails when a SetFlag is pending on that id,
// since the two would merge into one bit. The pair itself adds no ordering here (the emulator stays stricter than
// the device: it does not let the kernel rely on the API's internal waits).
void OrderApiFlagPair(CoreContext& c, int hard_event, const char* file, int line, const char* api);
// An API that holds an event id with a SetFlag pending on it for the kernel's life (the Matmul client of split SoCs:
// AllocEventID<MTE3_S> and SetFlag in its constructor, kfc_comm_client.h): the id is the API's, no kernel
// SetFlag / WaitFlag may use it. Not traced (the flag is the API's internal state).
void OrderApiHoldFlag(CoreContext& c, int hard_event, const char* file, int line, const char* what);
// At the end of a kernel: a SetFlag of the kernel never waited for fails at its line (the flag stays set on the
// device and merges with the next kernel's or hangs its wait).
void OrderCheckPendingFlags(CoreContext& c);
// SyncAll: every core of the launch (aiv_only: the vector cores; the cube cores serve requests synchronously)
// reaches it before any goes on; includes PipeBarrier<PIPE_ALL>. Fails if a core returned without reaching it.
void OrderSyncAll(CoreContext& c, bool aiv_only, const char* file, int line, const char* api);

// The GM bytes of the instruction just issued (the last event of the core's trace, a DMA): `blocks` blocks of
// block_bytes from byte `offset` of registered buffer `region`, one block's start `stride` bytes after the previous
// one's (emu_trace.h: GmSpan). Recorded only while the trace is.
void TraceGmAccess(CoreContext& c, int region, uint64_t offset, uint64_t blocks, uint64_t block_bytes,
                   uint64_t stride, bool write);

// ---- the Matmul API's cube (include/lib/matmul_intf.h) ----
// A synchronous request of the current vector core to its cube core (IterateAll): begin, the cube's GM accesses,
// end. The cube's reads are ordered after what the vector core's scalar unit knew when it made the request (e.g.
// after a PipeBarrier<PIPE_ALL>), its writes before what the vector core does after the request.
uint64_t CubeRequestBegin(CoreContext& c, const char* file, int line);
// One strided GM access of the cube: `rows` rows of row_bytes, row_stride_bytes apart, from ptr (inside the
// GlobalTensor's extent [tensor_begin, tensor_end) of registered buffer `region`). Bounds and writability are
// checked like any GM access, then recorded and ordered as the cube's. require_written: a read of bytes never written in
// the launch (outputs, the workspace) fails (false: the API reads them only to write them back).
void CubeGmAccess(CoreContext& c, uint64_t handle, int region, const uint8_t* tensor_begin, const uint8_t* tensor_end,
                  const uint8_t* ptr, uint64_t rows, uint64_t row_bytes, uint64_t row_stride_bytes, bool write,
                  const char* file, int line, const char* api, bool require_written = true);
// How ascend310p's Matmul loads, computes and writes back a request (emu_trace.h, "Matmul IterateAll"): its base blocks
// one after another (serial_blocks > 0: a synchronous IterateAll) and its C write-back's DMA instructions and bursts
// (0: one DMA of one burst, the split SoCs' fixpipe).
struct CubeOutShape {
    uint32_t serial_blocks = 0;
    uint32_t dmas = 0;
    uint32_t bursts = 0;
    uint64_t load_dmas = 0;    // the operand loads' DMA instructions and bursts (0: one DMA of one burst)
    uint64_t load_bursts = 0;
    // an int8 B turned in UB (CopyND2NZWithTransData): its TransDataTo5HD instructions and their repeats, the bytes
    // of the turned tiles, and their UB -> L1 DMAs and bursts (0 instructions: no B goes through UB)
    uint64_t stage_instrs = 0;
    uint64_t stage_repeats = 0;
    uint64_t stage_bytes = 0;
    uint64_t stage_dmas = 0;
    uint64_t stage_bursts = 0;
};
// Records the request's work on the cube core (bytes moved, MACs of operand width elem_bytes, C bytes).
void CubeRequestWork(CoreContext& c, uint64_t handle, uint64_t in_bytes, uint64_t macs, uint8_t elem_bytes,
                     uint64_t out_bytes, const char* file, int line, const CubeOutShape& shape = CubeOutShape());
// The vector core waits for the request (everything the cube did for it is complete for what it issues next).
// An asynchronous form (Iterate<false> ... WaitIterateAll) calls CubeRequestWork at the request and this at the
// wait: vector accesses in between are not ordered with the cube's.
void CubeRequestWait(CoreContext& c, uint64_t handle, const char* file, int line);
// The synchronous form (IterateAll<true>): CubeRequestWork, then CubeRequestWait.
void CubeRequestEnd(CoreContext& c, uint64_t handle, uint64_t in_bytes, uint64_t macs, uint8_t elem_bytes,
                    uint64_t out_bytes, const char* file, int line, const CubeOutShape& shape = CubeOutShape());

// ---- per-core set-up (the launcher) ----
void OrderBeginCore(CoreContext& c);
void OrderEndCore(CoreContext& c);

}  // namespace aqo_emu
