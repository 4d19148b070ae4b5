# test: lower-buffer
# planners: PYPTO DSA_RP PTOAS
# rules: W1 W2 W4 W16 W17 P1 P2 P5
# The seed's windows example: `window` is a runtime-row slice of `whole` (defined where the slice is
# written, inheriting the parent's 256-byte row pitch, carrying its valid tuple); the assemble writes
# in place into canvas's storage, so it is one copy of `doubled` into a subview of canvas at [16, 0].
# The column offset 32 is 128 bytes, a 32-byte multiple (W16).
import pypto.language as pl

@pl.program
class windows_slice_assemble:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[64, 64], pl.FP32], row: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384, addr=0)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=16384)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096, addr=18432)
        whole: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 16384), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64])
        window: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, -1, 3968), pl.Mem.Vec] = pl.tile.slice(whole, [16, 32], [row, 32])
        canvas: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_2, 18432, 4096), pl.Mem.Vec] = pl.tile.full([32, 32], dtype=pl.FP32, value=0.0)
        doubled: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 16384, 2048), pl.Mem.Vec] = pl.tile.add(window, window)
        placed: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_2, 18432, 4096), pl.Mem.Vec] = pl.tile.assemble(canvas, doubled, [16, 0])
        result = pl.tile.store(placed, [0, 0], out)
        return result

# ---- expected ----
# # pypto.program: windows_slice_assemble
# import pypto.language as pl
#
# @pl.program
# class windows_slice_assemble:
#     @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
#     def kernel(self,
#                x: pl.Tensor[[64, 64], pl.FP32],
#                row: pl.Scalar[pl.INDEX],
#                out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
#         whole: pl.Buffer[[64, 64], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)
#         doubled: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 16384)
#         canvas: pl.Buffer[[32, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 18432)
#         pl.buffer.load(x, [0, 0], [64, 64], whole)
#         window: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.subview(whole, [row, 32], [16, 32])
#         pl.buffer.full(0.0, canvas)
#         pl.buffer.add(window, window, doubled)
#         placed_window: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.subview(canvas, [16, 0], [16, 32])
#         pl.buffer.copy(doubled, placed_window)
#         pl.buffer.store(canvas, [0, 0], [32, 32], out)
#         return out
# ---- expected PTOAS ----
# # pypto.program: windows_slice_assemble
# import pypto.language as pl
#
# @pl.program
# class windows_slice_assemble:
#     @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
#     def kernel(self,
#                x: pl.Tensor[[64, 64], pl.FP32],
#                row: pl.Scalar[pl.INDEX],
#                out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
#         whole: pl.Buffer[[64, 64], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         doubled: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         canvas: pl.Buffer[[32, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         pl.buffer.load(x, [0, 0], [64, 64], whole)
#         window: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.subview(whole, [row, 32], [16, 32])
#         pl.buffer.full(0.0, canvas)
#         pl.buffer.add(window, window, doubled)
#         placed_window: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.subview(canvas, [16, 0], [16, 32])
#         pl.buffer.copy(doubled, placed_window)
#         pl.buffer.store(canvas, [0, 0], [32, 32], out)
#         return out
