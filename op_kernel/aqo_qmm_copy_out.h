// The copy-out stage of the quantized matmuls: a chunk of y rows (rows x cols of UB rows cStride elements apart) to
// y in GM (rows N elements apart), by DMA, without a byte outside the chunk's columns:
//   * DataCopyPad (910b, 950): one 2-D copy per chunk;
//   * no DataCopyPad (310p): whole 32-byte blocks. Rows of whole blocks on a block grid go as one 2-D copy; a row
//     segment of at least 32 bytes that ends in a partial block goes as its whole blocks and then the block ENDING at
//     its end (back-off), gathered by the scalar unit into the spare block at the end of the y slot: it rewrites a
//     few of the segment's own bytes with the values they already have. The plan keeps every segment at least 32
//     bytes wide, or runs the op on one core, which stores a narrower segment's bytes with the scalar unit
//     (CopyOutExact, aqo_kernel_common.h).
// No include guard (see aqo_kernel_common.h).

template <class YT>
class QmmCopyOut {
public:
    // y: the output, n: its row length; stride: UB row stride (elements); spare: UB element offset of the spare
    // block in each y slot (no DataCopyPad).
    __aicore__ inline void Init(GM_ADDR y, uint64_t yElems, uint32_t n, uint32_t stride, uint32_t spare, TPipe* pipe)
    {
        yGm_.SetGlobalBuffer(reinterpret_cast<__gm__ YT*>(y), yElems);
        n_ = n;
        stride_ = stride;
        spare_ = spare;
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
        bool gathered = false;
        for (uint32_t i = 0; i < rows; ++i) {
            const LocalTensor<YT> row = y[i * stride_];
            const GlobalTensor<YT> out = dst[static_cast<uint64_t>(i) * n_];
            if (cols % perBlock == 0) {
                DataCopy(out, row, cols);
            } else if (cols >= perBlock) {
                BackOff(out, row, y[spare_], cols, gathered);
                gathered = true;
            } else {
                CopyOutExact(out, row, cols);  // one core only (the plan's single-writer case)
            }
        }
#endif
    }

private:
#if !AQO_SOC_HAS_DATACOPYPAD
    // A segment's whole blocks, then the block ending at its end, gathered into `spare` by the scalar unit (a DMA
    // cannot start at an unaligned UB address).
    __aicore__ inline void BackOff(const GlobalTensor<YT>& dst, const LocalTensor<YT>& row, const LocalTensor<YT>& spare,
                                   uint32_t cols, bool gatheredBefore)
    {
        const uint32_t perBlock = kBlockBytes / static_cast<uint32_t>(sizeof(YT));
        DataCopy(dst, row, cols / perBlock * perBlock);
        if (gatheredBefore) {
            aqo_kernel::WaitPipe<HardEvent::MTE3_S>(pipe_);  // the previous row's gathered block has left UB
        }
        aqo_kernel::WaitPipe<HardEvent::V_S>(pipe_);  // the row's elements come from the vector unit
        for (uint32_t i = 0; i < perBlock; ++i) {
            spare.SetValue(i, row.GetValue(cols - perBlock + i));
        }
        aqo_kernel::WaitPipe<HardEvent::S_MTE3>(pipe_);  // the gathered block is in UB before the DMA reads it
        GlobalTensor<YT> tail = dst[cols - perBlock];
        DataCopy(tail, spare, perBlock);
    }
#endif

    GlobalTensor<YT> yGm_;
    uint32_t n_ = 0;
    uint32_t stride_ = 0;
    uint32_t spare_ = 0;
    TPipe* pipe_ = nullptr;
};
