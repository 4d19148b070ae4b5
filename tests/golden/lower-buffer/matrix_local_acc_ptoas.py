# test: lower-buffer
# planners: PTOAS
# rules: P3 M1 M5 P1
# An addressless PTOAS accumulator referenced only inside the loop body is declared at its first
# reference there, keeping the producer's per-iteration lifetime instead of stretching it across
# the backedge; the Mat, Left and Right storage shared across the loop keeps its declaration at the
# top of the kernel.
import pypto.language as pl

@pl.program
class matrix_local_acc_ptoas:
    @pl.function(type=pl.FunctionType.AIC)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        mem_mat_0: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 1024)
        mem_mat_1: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 512)
        mem_left_2: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 512)
        mem_right_3: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 512)
        mem_acc_4: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 1024)
        a_mat: pl.Tile[[16, 32], pl.FP16, pl.MemRef(mem_mat_0, 0, 1024), pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        b_mat: pl.Tile[[16, 16], pl.FP16, pl.MemRef(mem_mat_1, 0, 512), pl.Mem.Mat] = pl.tile.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        rhs: pl.Tile[[16, 16], pl.FP16, pl.MemRef(mem_right_3, 0, 512), pl.Mem.Right] = pl.tile.move(b_mat, target_memory=pl.Mem.Right)
        for j, (dst,) in pl.range(2, init_values=(out,)):
            lhs: pl.Tile[[16, 16], pl.FP16, pl.MemRef(mem_left_2, 0, 512), pl.Mem.Left] = pl.tile.extract(a_mat, 0, j * 16, [16, 16], target_memory=pl.Mem.Left)
            c: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_acc_4, 0, 1024), pl.Mem.Acc] = pl.tile.matmul(lhs, rhs)
            o = pl.tile.store(c, [0, j * 16], dst)
            res = pl.yield_(o)
        return res

# ---- expected ----
# # pypto.program: matrix_local_acc_ptoas
# import pypto.language as pl
#
# @pl.program
# class matrix_local_acc_ptoas:
#     @pl.function(type=pl.FunctionType.AIC, stage=pl.FunctionIRStage.Buffer)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP16],
#                b: pl.Tensor[[16, 16], pl.FP16],
#                out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
#         a_mat: pl.Buffer[[16, 32], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc(())
#         b_mat: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc(())
#         lhs: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Left] = pl.buffer.alloc(())
#         rhs: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Right] = pl.buffer.alloc(())
#         pl.buffer.load(a, [0, 0], [16, 32], a_mat)
#         pl.buffer.load(b, [0, 0], [16, 16], b_mat)
#         pl.buffer.copy(b_mat, rhs)
#         for j in pl.range(2):
#             pl.buffer.extract(a_mat, 0, j * 16, lhs)
#             c: pl.Buffer[[16, 16], pl.FP32, pl.Mem.Acc] = pl.buffer.alloc(())
#             pl.buffer.matmul(lhs, rhs, c)
#             pl.buffer.store(c, [0, j * 16], [16, 16], out)
#         return out
