# test: lower-buffer
# planners: PYPTO DSA_RP PTOAS
# rules: M1 M2 M3 M4 M5 M6 M7 P1 P2
# The seed's matrix storage example, x = a @ b; y = x + a @ b; store y, with FP16 operands and an
# FP32 accumulator at the seed's addresses. Matrix spaces never use a UINT8 root: each window is its
# own buffer.alloc at its final address, keeping its fractal layout (Mat NZ, Right ZN, Acc fractal
# 1024, printed only where it differs from the space's implicit view). Moves from Mat become copies;
# matmul_acc without init_cond accumulates in place. PTOAS allocations are addressless and each
# carries its one window, so only the address operands disappear.
import pypto.language as pl

@pl.program
class matrix_cube:
    @pl.function(type=pl.FunctionType.AIC)
    def kernel(self, A: pl.Tensor[[64, 64], pl.FP16], B: pl.Tensor[[64, 64], pl.FP16],
               Out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_mat_0: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 8192, addr=0)
        mem_mat_1: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 8192, addr=8192)
        mem_left_2: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 8192, addr=0)
        mem_right_3: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 8192, addr=0)
        mem_acc_4: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 16384, addr=0)
        a_mat: pl.Tile[[64, 64], pl.FP16, pl.MemRef(mem_mat_0, 0, 8192), pl.Mem.Mat] = pl.tile.load(A, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        b_mat: pl.Tile[[64, 64], pl.FP16, pl.MemRef(mem_mat_1, 8192, 8192), pl.Mem.Mat] = pl.tile.load(B, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        a_l0: pl.Tile[[64, 64], pl.FP16, pl.MemRef(mem_left_2, 0, 8192), pl.Mem.Left] = pl.tile.move(a_mat, target_memory=pl.Mem.Left)
        b_l0: pl.Tile[[64, 64], pl.FP16, pl.MemRef(mem_right_3, 0, 8192), pl.Mem.Right] = pl.tile.move(b_mat, target_memory=pl.Mem.Right)
        x: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_acc_4, 0, 16384), pl.Mem.Acc] = pl.tile.matmul(a_l0, b_l0)
        y: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_acc_4, 0, 16384), pl.Mem.Acc] = pl.tile.matmul_acc(x, a_l0, b_l0)
        result = pl.tile.store(y, [0, 0], Out)
        return result

# ---- expected ----
# # pypto.program: matrix_cube
# import pypto.language as pl
#
# @pl.program
# class matrix_cube:
#     @pl.function(type=pl.FunctionType.AIC, stage=pl.FunctionIRStage.Buffer)
#     def kernel(self,
#                A: pl.Tensor[[64, 64], pl.FP16],
#                B: pl.Tensor[[64, 64], pl.FP16],
#                Out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
#         a_mat: pl.Buffer[[64, 64], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc((), 0)
#         b_mat: pl.Buffer[[64, 64], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc((), 8192)
#         a_l0: pl.Buffer[[64, 64], pl.FP16, pl.Mem.Left] = pl.buffer.alloc((), 0)
#         b_l0: pl.Buffer[[64, 64], pl.FP16, pl.Mem.Right] = pl.buffer.alloc((), 0)
#         x: pl.Buffer[[64, 64], pl.FP32, pl.Mem.Acc] = pl.buffer.alloc((), 0)
#         pl.buffer.load(A, [0, 0], [64, 64], a_mat)
#         pl.buffer.load(B, [0, 0], [64, 64], b_mat)
#         pl.buffer.copy(a_mat, a_l0)
#         pl.buffer.copy(b_mat, b_l0)
#         pl.buffer.matmul(a_l0, b_l0, x)
#         pl.buffer.matmul_acc(a_l0, b_l0, x)
#         pl.buffer.store(x, [0, 0], [64, 64], Out)
#         return Out
# ---- expected PTOAS ----
# # pypto.program: matrix_cube
# import pypto.language as pl
#
# @pl.program
# class matrix_cube:
#     @pl.function(type=pl.FunctionType.AIC, stage=pl.FunctionIRStage.Buffer)
#     def kernel(self,
#                A: pl.Tensor[[64, 64], pl.FP16],
#                B: pl.Tensor[[64, 64], pl.FP16],
#                Out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
#         a_mat: pl.Buffer[[64, 64], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc(())
#         b_mat: pl.Buffer[[64, 64], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc(())
#         a_l0: pl.Buffer[[64, 64], pl.FP16, pl.Mem.Left] = pl.buffer.alloc(())
#         b_l0: pl.Buffer[[64, 64], pl.FP16, pl.Mem.Right] = pl.buffer.alloc(())
#         x: pl.Buffer[[64, 64], pl.FP32, pl.Mem.Acc] = pl.buffer.alloc(())
#         pl.buffer.load(A, [0, 0], [64, 64], a_mat)
#         pl.buffer.load(B, [0, 0], [64, 64], b_mat)
#         pl.buffer.copy(a_mat, a_l0)
#         pl.buffer.copy(b_mat, b_l0)
#         pl.buffer.matmul(a_l0, b_l0, x)
#         pl.buffer.matmul_acc(a_l0, b_l0, x)
#         pl.buffer.store(x, [0, 0], [64, 64], Out)
#         return Out
