# test: lower-buffer
# planners: PYPTO DSA_RP PTOAS
# rules: L1 L2 L4 L5 L7 L9 L10 C5 P1 P2
# The seed's loop example: Tile carries (left, row, right, column) where the parallel transfer
# schedule already snapshots both tiles into scratch before writing either (a swap). Conversion
# drops the Tile initializers, iter_args, results and yields after checking they name one storage,
# keeps the scalar carries row and column in order, and adds no copy of its own. The GM carry
# `dst` stays on parameter `out`, so it disappears too.
import pypto.language as pl

@pl.program
class loops:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32], count: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=2048)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=4096)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=6144)
        left0: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
        right0: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 2048, 2048), pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 32])
        for i, (left, row, right, column, dst) in pl.range(count, init_values=(left0, 0, right0, 0, out)):
            scratch_right: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 4096, 2048), pl.Mem.Vec] = pl.tile.move(right, target_memory=pl.Mem.Vec)
            scratch_left: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_3, 6144, 2048), pl.Mem.Vec] = pl.tile.move(left, target_memory=pl.Mem.Vec)
            new_left: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.move(scratch_right, target_memory=pl.Mem.Vec)
            new_right: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 2048, 2048), pl.Mem.Vec] = pl.tile.move(scratch_left, target_memory=pl.Mem.Vec)
            trace = pl.tile.store(new_left, [row, 32], dst)
            left_r, row_r, right_r, column_r, dst_r = pl.yield_(new_left, row + 1, new_right, column + 2, trace)
        result = pl.tile.store(left_r, [row_r, column_r], dst_r)
        return result

# ---- expected ----
# # pypto.program: loops
# import pypto.language as pl
#
# @pl.program
# class loops:
#     @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP32],
#                b: pl.Tensor[[16, 32], pl.FP32],
#                count: pl.Scalar[pl.INDEX],
#                out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
#         left0: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)
#         right0: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 2048)
#         scratch_right: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 4096)
#         scratch_left: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 6144)
#         pl.buffer.load(a, [0, 0], [16, 32], left0)
#         pl.buffer.load(b, [0, 0], [16, 32], right0)
#         for i, (row, column) in pl.range(count, init_values=(0, 0)):
#             pl.buffer.copy(right0, scratch_right)
#             pl.buffer.copy(left0, scratch_left)
#             pl.buffer.copy(scratch_right, left0)
#             pl.buffer.copy(scratch_left, right0)
#             pl.buffer.store(left0, [row, 32], [16, 32], out)
#             row_r, column_r = pl.yield_(row + 1, column + 2)
#         pl.buffer.store(left0, [row_r, column_r], [16, 32], out)
#         return out
# ---- expected PTOAS ----
# # pypto.program: loops
# import pypto.language as pl
#
# @pl.program
# class loops:
#     @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP32],
#                b: pl.Tensor[[16, 32], pl.FP32],
#                count: pl.Scalar[pl.INDEX],
#                out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
#         left0: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         right0: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         scratch_right: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         scratch_left: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         pl.buffer.load(a, [0, 0], [16, 32], left0)
#         pl.buffer.load(b, [0, 0], [16, 32], right0)
#         for i, (row, column) in pl.range(count, init_values=(0, 0)):
#             pl.buffer.copy(right0, scratch_right)
#             pl.buffer.copy(left0, scratch_left)
#             pl.buffer.copy(scratch_right, left0)
#             pl.buffer.copy(scratch_left, right0)
#             pl.buffer.store(left0, [row, 32], [16, 32], out)
#             row_r, column_r = pl.yield_(row + 1, column + 2)
#         pl.buffer.store(left0, [row_r, column_r], [16, 32], out)
#         return out
