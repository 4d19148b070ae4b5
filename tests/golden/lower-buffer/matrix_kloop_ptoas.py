# test: lower-buffer
# planners: PTOAS
# rules: M1 M5 M7 L1 L4 P1 P2
# A K loop under PTOAS: the Acc carry, its matmul_acc result and the loop result share one
# allocation, so the carry disappears from the loop (a loop without scalar carries has no yield);
# the runtime init_cond `k == 0` becomes an explicit if choosing buffer.matmul or buffer.matmul_acc.
# Extracts from Mat into Left/Right become buffer.extract. PTOAS allocations carry no address.
import pypto.language as pl

@pl.program
class matrix_kloop_ptoas:
    @pl.function(type=pl.FunctionType.AIC)
    def kernel(self, a: pl.Tensor[[16, 64], pl.FP16], b: pl.Tensor[[64, 16], pl.FP16],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        mem_mat_0: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 2048)
        mem_mat_1: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 2048)
        mem_acc_2: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 1024)
        mem_left_3: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 512)
        mem_right_4: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 512)
        a_mat: pl.Tile[[16, 64], pl.FP16, pl.MemRef(mem_mat_0, 0, 2048), pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Mat)
        b_mat: pl.Tile[[64, 16], pl.FP16, pl.MemRef(mem_mat_1, 0, 2048), pl.Mem.Mat] = pl.tile.load(b, [0, 0], [64, 16], target_memory=pl.Mem.Mat)
        acc0: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_acc_2, 0, 1024), pl.Mem.Acc] = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for k, (acc,) in pl.range(4, init_values=(acc0,)):
            lhs: pl.Tile[[16, 16], pl.FP16, pl.MemRef(mem_left_3, 0, 512), pl.Mem.Left] = pl.tile.extract(a_mat, 0, k * 16, [16, 16], target_memory=pl.Mem.Left)
            rhs: pl.Tile[[16, 16], pl.FP16, pl.MemRef(mem_right_4, 0, 512), pl.Mem.Right] = pl.tile.extract(b_mat, k * 16, 0, [16, 16], target_memory=pl.Mem.Right)
            acc1: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_acc_2, 0, 1024), pl.Mem.Acc] = pl.tile.matmul_acc(acc, lhs, rhs, init_cond=k == 0)
            acc_out = pl.yield_(acc1)
        r = pl.tile.store(acc_out, [0, 0], out)
        return r

# ---- expected ----
# # pypto.program: matrix_kloop_ptoas
# import pypto.language as pl
#
# @pl.program
# class matrix_kloop_ptoas:
#     @pl.function(type=pl.FunctionType.AIC, stage=pl.FunctionIRStage.Buffer)
#     def kernel(self,
#                a: pl.Tensor[[16, 64], pl.FP16],
#                b: pl.Tensor[[64, 16], pl.FP16],
#                out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
#         a_mat: pl.Buffer[[16, 64], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc(())
#         b_mat: pl.Buffer[[64, 16], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc(())
#         acc0: pl.Buffer[[16, 16], pl.FP32, pl.Mem.Acc] = pl.buffer.alloc(())
#         lhs: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Left] = pl.buffer.alloc(())
#         rhs: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Right] = pl.buffer.alloc(())
#         pl.buffer.load(a, [0, 0], [16, 64], a_mat)
#         pl.buffer.load(b, [0, 0], [64, 16], b_mat)
#         for k in pl.range(4):
#             pl.buffer.extract(a_mat, 0, k * 16, lhs)
#             pl.buffer.extract(b_mat, k * 16, 0, rhs)
#             if k == 0:
#                 pl.buffer.matmul(lhs, rhs, acc0)
#             else:
#                 pl.buffer.matmul_acc(lhs, rhs, acc0)
#         pl.buffer.store(acc0, [0, 0], [16, 16], out)
#         return out
