# test: lower-buffer
# planners: PTOAS
# rules: P7 P8 P9 P11 P12 P17 W2
# Repeated static views of one addressless allocation: `y` is only partially valid and is sliced,
# so it is a window parent and keeps the typed root (PTOAS cannot subview a relabel of a UINT8
# root); its [8, 64] relabel reshapes the typed root, and each static valid rectangle is a
# zero-offset subview beside the allocation. The slice is defined where it is written.
import pypto.language as pl

@pl.program
class planned_storage_typed_root:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[8, 64], pl.FP32]],
               out2: pl.Out[pl.Tensor[[4, 32], pl.FP32]]) -> tuple[pl.Tensor[[8, 64], pl.FP32], pl.Tensor[[4, 32], pl.FP32]]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        y: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec, pl.TileView(valid_shape=[4, 32])] = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[4, 32])
        y_wide: pl.Tile[[8, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec, pl.TileView(valid_shape=[2, 64])] = pl.tile.reshape(y, [8, 64])
        t: pl.Tile[[8, 64], pl.FP32, pl.MemRef(mem_vec_1, 0, 2048), pl.Mem.Vec, pl.TileView(valid_shape=[2, 64])] = pl.tile.muls(y_wide, -2.0)
        o1 = pl.tile.store(t, [0, 0], out)
        top: pl.Tile[[4, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 512), pl.Mem.Vec] = pl.tile.slice(y, [4, 32], [0, 0])
        n: pl.Tile[[4, 32], pl.FP32, pl.MemRef(mem_vec_2, 0, 512), pl.Mem.Vec] = pl.tile.neg(top)
        o2 = pl.tile.store(n, [0, 0], out2)
        return o1, o2

# ---- expected ----
# # pypto.program: planned_storage_typed_root
# import pypto.language as pl
#
# @pl.program
# class planned_storage_typed_root:
#     @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP32],
#                out: pl.Out[pl.Tensor[[8, 64], pl.FP32]],
#                out2: pl.Out[pl.Tensor[[4, 32], pl.FP32]]) -> tuple[pl.Tensor[[8, 64], pl.FP32], pl.Tensor[[4, 32], pl.FP32]]:
#         y_full: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         y_wide_full: pl.Buffer[[8, 64], pl.FP32, pl.Mem.Vec] = pl.buffer.reshape(y_full)
#         y: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[4, 32])] = pl.buffer.subview(
#             y_full, [0, 0], [4, 32]
#         )
#         y_wide: pl.Buffer[[8, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[2, 64])] = pl.buffer.subview(
#             y_wide_full, [0, 0], [2, 64]
#         )
#         t_full: pl.Buffer[[8, 64], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         t: pl.Buffer[[8, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[2, 64])] = pl.buffer.subview(
#             t_full, [0, 0], [2, 64]
#         )
#         n: pl.Buffer[[4, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         pl.buffer.load(a, [0, 0], [4, 32], y)
#         pl.buffer.muls(y_wide, -2.0, t)
#         pl.buffer.store(t, [0, 0], [2, 64], out)
#         top: pl.Buffer[[4, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.subview(y_full, [0, 0], [4, 32])
#         pl.buffer.neg(top, n)
#         pl.buffer.store(n, [0, 0], [4, 32], out2)
#         return out, out2
