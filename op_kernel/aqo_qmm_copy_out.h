// The copy-out stage of the quantized matmuls: a chunk of y rows (rows x cols of UB rows cStride elements apart) to
// y in GM (rows N elements apart), by DMA, without a byte outside the chunk's columns:
//   * DataCopyPad (910b, 950): one 2-D copy per chunk;
//   * no DataCopyPad (310p): whole 32-byte blocks. Rows of whole blocks on a block grid go as one 2-D copy; row
//     segments of at least 32 bytes that end in a partial block go as their whole blocks, and then each as the block
//     ENDING at its end (back-off), which rewrites a few of the segment's own bytes with the values they already
//     have. The scalar unit moves that block into place in UB (a DMA cannot start at an unaligned UB address): over
//     the segment's last whole block, once the whole blocks' copies have read it, for all of the chunk's rows
//     between one wait and the next. The plan keeps every segment at least 32 bytes wide, or runs the op on one
//     core, which stores a narrower segment's bytes with the scalar unit (CopyOutExact, aqo_kernel_common.h).
// No include guard (see aqo_kernel_common.h).

template <class YT>
class QmmCopyOut {
public:
    // y: the output, n: its row length; stride: UB row stride (elements).
    __aicore__ inline void Init(GM_ADDR y, uint64_t yElems, uint32_t n, uint32_t stride, TPipe* pipe)
    {
        yGm_.SetGlobalBuffer(reinterpret_cast<__gm__ YT*>(y), yElems);
        n_ = n;
        stride_ = stride;
        pipe_ = pipe;
    }

    // Writes rows [row0, row0 + rows) (row indices of y viewed [batch * M, N]), columns [n0, n0 + cols), from y.
    __aicore__ inline void Rows(const LocalTensor<YT>& y, uint64_t row0, uint32_t rows, uint32_t n0, uint32_t cols)
    {
        const uint32_t ysz = static_cast<uint32_t>(sizeof(YT));
        const GlobalTensor<YT> dst = yGm_[row0 * n_ + n0];
#if AQO_SOC_HAS_DATACOPYPAD
        // The GM gap between rows is a 32-bit byte count: beyond it (y rows of more than 4 GiB) a row a copy.
        const uint64_t gap = static_cast<uint64_t>(n_ - cols) * ysz;
        if (rows > 1 && gap > 0xFFFFFFFFull) {
            for (uint32_t i = 0; i < rows; ++i) {
                DataCopyExtParams one(1, cols * ysz, 0, 0, 0);
                DataCopyPad(yGm_[(row0 + i) * n_ + n0], y[i * stride_], one);
            }
            return;
        }
        DataCopyExtParams prm(static_cast<uint16_t>(rows), cols * ysz,
                              (stride_ * ysz - AlignUp32(cols * ysz)) / kBlockBytes, static_cast<uint32_t>(gap), 0);
        DataCopyPad(dst, y, prm);
#else
        const uint32_t perBlock = kBlockBytes / ysz;
        if (cols % perBlock == 0 && n_ % perBlock == 0 && (n_ - cols) / perBlock <= 65535u) {  // 16-bit GM gap
            DataCopyParams prm(static_cast<uint16_t>(rows), static_cast<uint16_t>(cols / perBlock),
                               static_cast<uint16_t>((stride_ - cols) / perBlock),
                               static_cast<uint16_t>((n_ - cols) / perBlock));
            DataCopy(dst, y, prm);
            return;
        }
        if (cols % perBlock == 0 || cols < perBlock) {
            for (uint32_t i = 0; i < rows; ++i) {
                const GlobalTensor<YT> out = dst[static_cast<uint64_t>(i) * n_];
                if (cols % perBlock == 0) {
                    DataCopy(out, y[i * stride_], cols);
                } else {
                    CopyOutExact(out, y[i * stride_], cols);  // one core only (the plan's single-writer case)
                }
            }
            return;
        }
        // Back-off: every row's whole blocks; once their copies have read UB, each row's last whole block becomes the
        // block ending at the row's end; then those blocks.
        const uint32_t whole = cols / perBlock * perBlock;
        for (uint32_t i = 0; i < rows; ++i) {
            DataCopy(dst[static_cast<uint64_t>(i) * n_], y[i * stride_], whole);
        }
        aqo_kernel::WaitPipe<HardEvent::V_S>(pipe_);    // the rows' elements come from the vector unit
        aqo_kernel::WaitPipe<HardEvent::MTE3_S>(pipe_);  // the whole blocks' copies have read the blocks rewritten
        const uint32_t shift = (cols - whole) * static_cast<uint32_t>(sizeof(YT));  // bytes, 1 .. 31
        for (uint32_t i = 0; i < rows; ++i) {
            ShiftIntoLastBlock(y[i * stride_ + whole - perBlock], shift);
        }
        aqo_kernel::WaitPipe<HardEvent::S_MTE3>(pipe_);  // the blocks are in UB before the DMAs read them
        for (uint32_t i = 0; i < rows; ++i) {
            DataCopy(dst[static_cast<uint64_t>(i) * n_ + cols - perBlock], y[i * stride_ + whole - perBlock],
                     perBlock);
        }
#endif
    }

private:
#if !AQO_SOC_HAS_DATACOPYPAD
    // The 32 bytes from `shift` bytes into `block` (a 32-byte aligned block and the next one, which holds the row's
    // last `shift` bytes) to the block's place, by the scalar unit in 4-byte words: word j takes the bytes of words
    // j + shift / 4 and the one after (the words read lie at or after the one written, so the move may overlap
    // itself); of the last word only the row's bytes are read, one by one (the rest of that block is not the row's).
    // Bytes in memory order: little-endian words, as the DMA and the vector unit lay out multi-byte values in UB.
    __aicore__ inline void ShiftIntoLastBlock(const LocalTensor<YT>& block, uint32_t shift)
    {
        const LocalTensor<uint32_t> w = block.template ReinterpretCast<uint32_t>();
        const uint32_t words = kBlockBytes / 4, q = shift / 4, rest = shift % 4;
        if (rest == 0) {
            for (uint32_t j = 0; j < words; ++j) {
                w.SetValue(j, w.GetValue(q + j));
            }
            return;
        }
        const LocalTensor<uint8_t> bytes = block.template ReinterpretCast<uint8_t>();
        uint32_t last = 0;  // word q + words: its first `rest` bytes are the row's last
        for (uint32_t b = 0; b < rest; ++b) {
            last |= static_cast<uint32_t>(bytes.GetValue(4 * (q + words) + b)) << (8 * b);
        }
        const uint32_t r = 8 * rest;
        uint32_t next = w.GetValue(q);
        for (uint32_t j = 0; j < words; ++j) {
            const uint32_t cur = next;
            next = j + 1 < words ? w.GetValue(q + j + 1) : last;
            w.SetValue(j, (cur >> r) | (next << (32 - r)));
        }
    }
#endif

    GlobalTensor<YT> yGm_;
    uint32_t n_ = 0;
    uint32_t stride_ = 0;
    TPipe* pipe_ = nullptr;
};
