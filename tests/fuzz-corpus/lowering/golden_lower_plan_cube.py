# test: lower
# stop-after: PlanMemory
# rules: P1 P4 M3 A27 M6
# The planners on a cube kernel (GM -> Mat -> Left/Right -> Acc -> GM): Mat roots are 512-byte and
# Acc roots 1024-byte aligned (boxed handles are box-aligned); matmul_acc accumulates in place on
# the matmul result; `ct`, the transposed view of `c_mat`, shares its storage, and PYPTO puts
# its move to Right over `b_r`, dead by then.
import pypto.language as pl

@pl.program
class plan_cube:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16],
               c: pl.Tensor[[16, 32], pl.FP16],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a_mat = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        b_mat = pl.tile.load(b, [0, 0], [32, 16], target_memory=pl.Mem.Mat)
        c_mat = pl.tile.load(c, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        a_l = pl.tile.move(a_mat, target_memory=pl.Mem.Left)
        b_r = pl.tile.move(b_mat, target_memory=pl.Mem.Right)
        prod = pl.tile.matmul(a_l, b_r)
        ct = pl.tile.transpose_view(c_mat)
        c_r = pl.tile.move(ct, target_memory=pl.Mem.Right)
        total = pl.tile.matmul_acc(prod, a_l, c_r)
        o = pl.tile.store(total, [0, 0], out)
        return o

# ---- expected ----
# # pypto.program: plan_cube
# import pypto.language as pl
#
# @pl.program
# class plan_cube:
#     @pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=True)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP16],
#                b: pl.Tensor[[32, 16], pl.FP16],
#                c: pl.Tensor[[16, 32], pl.FP16],
#                out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
#         mem_mat_0: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 1024, addr=0)
#         mem_mat_1: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 1024, addr=1024)
#         mem_mat_2: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 1024, addr=2048)
#         mem_left_3: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 1024, addr=0)
#         mem_right_4: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 1024, addr=0)
#         mem_acc_5: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 1024, addr=0)
#         a_mat: pl.Tile[[16, 32], pl.FP16, pl.MemRef(mem_mat_0, 0, 1024), pl.Mem.Mat] = pl.tile.load(
#             a, [0, 0], [16, 32], target_memory=pl.Mem.Mat
#         )
#         b_mat: pl.Tile[[32, 16], pl.FP16, pl.MemRef(mem_mat_1, 1024, 1024), pl.Mem.Mat] = pl.tile.load(
#             b, [0, 0], [32, 16], target_memory=pl.Mem.Mat
#         )
#         c_mat: pl.Tile[[16, 32], pl.FP16, pl.MemRef(mem_mat_2, 2048, 1024), pl.Mem.Mat] = pl.tile.load(
#             c, [0, 0], [16, 32], target_memory=pl.Mem.Mat
#         )
#         a_l: pl.Tile[[16, 32], pl.FP16, pl.MemRef(mem_left_3, 0, 1024), pl.Mem.Left] = pl.tile.move(
#             a_mat, target_memory=pl.Mem.Left
#         )
#         b_r: pl.Tile[[32, 16], pl.FP16, pl.MemRef(mem_right_4, 0, 1024), pl.Mem.Right] = pl.tile.move(
#             b_mat, target_memory=pl.Mem.Right
#         )
#         prod: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_acc_5, 0, 1024), pl.Mem.Acc] = pl.tile.matmul(a_l, b_r)
#         ct: pl.Tile[[32, 16], pl.FP16, pl.MemRef(mem_mat_2, 2048, 1024), pl.Mem.Mat, pl.TileView(blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.col_major)] = pl.tile.transpose_view(c_mat)
#         c_r: pl.Tile[[32, 16], pl.FP16, pl.MemRef(mem_right_4, 0, 1024), pl.Mem.Right] = pl.tile.move(
#             ct, target_memory=pl.Mem.Right
#         )
#         total: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_acc_5, 0, 1024), pl.Mem.Acc] = pl.tile.matmul_acc(
#             prod, a_l, c_r
#         )
#         o = pl.tile.store(total, [0, 0], out)
#         return o
# ---- expected DSA_RP ----
# # pypto.program: plan_cube
# import pypto.language as pl
#
# @pl.program
# class plan_cube:
#     @pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=True)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP16],
#                b: pl.Tensor[[32, 16], pl.FP16],
#                c: pl.Tensor[[16, 32], pl.FP16],
#                out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
#         mem_mat_0: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 1024, addr=0)
#         mem_mat_1: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 1024, addr=1024)
#         mem_mat_2: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 1024, addr=2048)
#         mem_left_3: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 1024, addr=0)
#         mem_right_4: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 1024, addr=0)
#         mem_acc_5: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 1024, addr=0)
#         mem_right_6: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 1024, addr=0)
#         a_mat: pl.Tile[[16, 32], pl.FP16, pl.MemRef(mem_mat_0, 0, 1024), pl.Mem.Mat] = pl.tile.load(
#             a, [0, 0], [16, 32], target_memory=pl.Mem.Mat
#         )
#         b_mat: pl.Tile[[32, 16], pl.FP16, pl.MemRef(mem_mat_1, 1024, 1024), pl.Mem.Mat] = pl.tile.load(
#             b, [0, 0], [32, 16], target_memory=pl.Mem.Mat
#         )
#         c_mat: pl.Tile[[16, 32], pl.FP16, pl.MemRef(mem_mat_2, 2048, 1024), pl.Mem.Mat] = pl.tile.load(
#             c, [0, 0], [16, 32], target_memory=pl.Mem.Mat
#         )
#         a_l: pl.Tile[[16, 32], pl.FP16, pl.MemRef(mem_left_3, 0, 1024), pl.Mem.Left] = pl.tile.move(
#             a_mat, target_memory=pl.Mem.Left
#         )
#         b_r: pl.Tile[[32, 16], pl.FP16, pl.MemRef(mem_right_4, 0, 1024), pl.Mem.Right] = pl.tile.move(
#             b_mat, target_memory=pl.Mem.Right
#         )
#         prod: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_acc_5, 0, 1024), pl.Mem.Acc] = pl.tile.matmul(a_l, b_r)
#         ct: pl.Tile[[32, 16], pl.FP16, pl.MemRef(mem_mat_2, 2048, 1024), pl.Mem.Mat, pl.TileView(blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.col_major)] = pl.tile.transpose_view(c_mat)
#         c_r: pl.Tile[[32, 16], pl.FP16, pl.MemRef(mem_right_6, 0, 1024), pl.Mem.Right] = pl.tile.move(
#             ct, target_memory=pl.Mem.Right
#         )
#         total: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_acc_5, 0, 1024), pl.Mem.Acc] = pl.tile.matmul_acc(
#             prod, a_l, c_r
#         )
#         o = pl.tile.store(total, [0, 0], out)
#         return o
# ---- expected PTOAS ----
# # pypto.program: plan_cube
# import pypto.language as pl
#
# @pl.program
# class plan_cube:
#     @pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=True)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP16],
#                b: pl.Tensor[[32, 16], pl.FP16],
#                c: pl.Tensor[[16, 32], pl.FP16],
#                out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
#         mem_mat_0: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 1024)
#         mem_mat_1: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 1024)
#         mem_mat_2: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 1024)
#         mem_left_3: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 1024)
#         mem_right_4: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 1024)
#         mem_acc_5: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 1024)
#         mem_right_6: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 1024)
#         a_mat: pl.Tile[[16, 32], pl.FP16, pl.MemRef(mem_mat_0, 0, 1024), pl.Mem.Mat] = pl.tile.load(
#             a, [0, 0], [16, 32], target_memory=pl.Mem.Mat
#         )
#         b_mat: pl.Tile[[32, 16], pl.FP16, pl.MemRef(mem_mat_1, 0, 1024), pl.Mem.Mat] = pl.tile.load(
#             b, [0, 0], [32, 16], target_memory=pl.Mem.Mat
#         )
#         c_mat: pl.Tile[[16, 32], pl.FP16, pl.MemRef(mem_mat_2, 0, 1024), pl.Mem.Mat] = pl.tile.load(
#             c, [0, 0], [16, 32], target_memory=pl.Mem.Mat
#         )
#         a_l: pl.Tile[[16, 32], pl.FP16, pl.MemRef(mem_left_3, 0, 1024), pl.Mem.Left] = pl.tile.move(
#             a_mat, target_memory=pl.Mem.Left
#         )
#         b_r: pl.Tile[[32, 16], pl.FP16, pl.MemRef(mem_right_4, 0, 1024), pl.Mem.Right] = pl.tile.move(
#             b_mat, target_memory=pl.Mem.Right
#         )
#         prod: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_acc_5, 0, 1024), pl.Mem.Acc] = pl.tile.matmul(a_l, b_r)
#         ct: pl.Tile[[32, 16], pl.FP16, pl.MemRef(mem_mat_2, 0, 1024), pl.Mem.Mat, pl.TileView(blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.col_major)] = pl.tile.transpose_view(c_mat)
#         c_r: pl.Tile[[32, 16], pl.FP16, pl.MemRef(mem_right_6, 0, 1024), pl.Mem.Right] = pl.tile.move(
#             ct, target_memory=pl.Mem.Right
#         )
#         total: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_acc_5, 0, 1024), pl.Mem.Acc] = pl.tile.matmul_acc(
#             prod, a_l, c_r
#         )
#         o = pl.tile.store(total, [0, 0], out)
#         return o
