# test: lower-buffer
# planners: DSA_RP PYPTO PTOAS
# rules: M3 M4 M5 M7 M8 P1 P2
# An accumulator wider than the product: after a full 32 x 32 matmul, a matmul_acc whose left
# operand has only 16 valid rows accumulates through a product-shaped view ([16, 32] valid) of the
# same Acc storage; the literal init_cond=True of the last write chooses the initializing
# buffer.matmul. transpose_view emits nothing. Addressed planners declare the product view and the
# relabelled Mat window (ZN) as further allocations at the same addresses; under PTOAS an
# addressless allocation carries one window, so both are buffer.reshape relabels of the
# allocation's handle instead.
import pypto.language as pl

@pl.program
class matrix_product_view:
    @pl.function(type=pl.FunctionType.AIC)
    def kernel(self, A: pl.Tensor[[32, 16], pl.FP16], H: pl.Tensor[[32, 16], pl.FP16], B: pl.Tensor[[32, 16], pl.FP16],
               out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        mem_mat_0: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 1024, addr=0)
        mem_mat_1: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 1024, addr=1024)
        mem_mat_2: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 1024, addr=2048)
        mem_left_3: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 1024, addr=0)
        mem_left_4: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 1024, addr=1024)
        mem_right_5: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 1024, addr=0)
        mem_acc_6: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 4096, addr=0)
        a_mat: pl.Tile[[32, 16], pl.FP16, pl.MemRef(mem_mat_0, 0, 1024), pl.Mem.Mat] = pl.tile.load(A, [0, 0], [32, 16], target_memory=pl.Mem.Mat)
        h_mat: pl.Tile[[32, 16], pl.FP16, pl.MemRef(mem_mat_1, 1024, 1024), pl.Mem.Mat, pl.TileView(valid_shape=[16, 16])] = pl.tile.load(H, [0, 0], [32, 16], valid_shape=[16, 16], target_memory=pl.Mem.Mat)
        b_mat: pl.Tile[[32, 16], pl.FP16, pl.MemRef(mem_mat_2, 2048, 1024), pl.Mem.Mat] = pl.tile.load(B, [0, 0], [32, 16], target_memory=pl.Mem.Mat)
        bt: pl.Tile[[16, 32], pl.FP16, pl.MemRef(mem_mat_2, 2048, 1024), pl.Mem.Mat, pl.TileView(blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.col_major)] = pl.tile.transpose_view(b_mat)
        a_l0: pl.Tile[[32, 16], pl.FP16, pl.MemRef(mem_left_3, 0, 1024), pl.Mem.Left] = pl.tile.move(a_mat, target_memory=pl.Mem.Left)
        h_l0: pl.Tile[[32, 16], pl.FP16, pl.MemRef(mem_left_4, 1024, 1024), pl.Mem.Left, pl.TileView(valid_shape=[16, 16])] = pl.tile.move(h_mat, target_memory=pl.Mem.Left)
        b_l0: pl.Tile[[16, 32], pl.FP16, pl.MemRef(mem_right_5, 0, 1024), pl.Mem.Right] = pl.tile.move(bt, target_memory=pl.Mem.Right)
        acc0: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_acc_6, 0, 4096), pl.Mem.Acc] = pl.tile.matmul(a_l0, b_l0)
        acc1: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_acc_6, 0, 4096), pl.Mem.Acc] = pl.tile.matmul_acc(acc0, h_l0, b_l0, init_cond=False)
        acc2: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_acc_6, 0, 4096), pl.Mem.Acc] = pl.tile.matmul_acc(acc1, a_l0, b_l0, init_cond=True)
        r = pl.tile.store(acc2, [0, 0], out)
        return r

# ---- expected ----
# # pypto.program: matrix_product_view
# import pypto.language as pl
#
# @pl.program
# class matrix_product_view:
#     @pl.function(type=pl.FunctionType.AIC, stage=pl.FunctionIRStage.Buffer)
#     def kernel(self,
#                A: pl.Tensor[[32, 16], pl.FP16],
#                H: pl.Tensor[[32, 16], pl.FP16],
#                B: pl.Tensor[[32, 16], pl.FP16],
#                out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
#         a_mat: pl.Buffer[[32, 16], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc((), 0)
#         h_mat: pl.Buffer[[32, 16], pl.FP16, pl.Mem.Mat, pl.TileView(valid_shape=[16, 16])] = pl.buffer.alloc((), 1024)
#         b_mat: pl.Buffer[[32, 16], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc((), 2048)
#         bt: pl.Buffer[[16, 32], pl.FP16, pl.Mem.Mat, pl.Layout.ZN] = pl.buffer.alloc((), 2048)
#         a_l0: pl.Buffer[[32, 16], pl.FP16, pl.Mem.Left] = pl.buffer.alloc((), 0)
#         h_l0: pl.Buffer[[32, 16], pl.FP16, pl.Mem.Left, pl.TileView(valid_shape=[16, 16])] = pl.buffer.alloc((), 1024)
#         b_l0: pl.Buffer[[16, 32], pl.FP16, pl.Mem.Right] = pl.buffer.alloc((), 0)
#         acc0: pl.Buffer[[32, 32], pl.FP32, pl.Mem.Acc] = pl.buffer.alloc((), 0)
#         acc1_product: pl.Buffer[[32, 32], pl.FP32, pl.Mem.Acc, pl.TileView(valid_shape=[16, 32])] = pl.buffer.alloc(
#             (), 0
#         )
#         pl.buffer.load(A, [0, 0], [32, 16], a_mat)
#         pl.buffer.load(H, [0, 0], [16, 16], h_mat)
#         pl.buffer.load(B, [0, 0], [32, 16], b_mat)
#         pl.buffer.copy(a_mat, a_l0)
#         pl.buffer.copy(h_mat, h_l0)
#         pl.buffer.copy(bt, b_l0)
#         pl.buffer.matmul(a_l0, b_l0, acc0)
#         pl.buffer.matmul_acc(h_l0, b_l0, acc1_product)
#         pl.buffer.matmul(a_l0, b_l0, acc0)
#         pl.buffer.store(acc0, [0, 0], [32, 32], out)
#         return out
# ---- expected PTOAS ----
# # pypto.program: matrix_product_view
# import pypto.language as pl
#
# @pl.program
# class matrix_product_view:
#     @pl.function(type=pl.FunctionType.AIC, stage=pl.FunctionIRStage.Buffer)
#     def kernel(self,
#                A: pl.Tensor[[32, 16], pl.FP16],
#                H: pl.Tensor[[32, 16], pl.FP16],
#                B: pl.Tensor[[32, 16], pl.FP16],
#                out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
#         a_mat: pl.Buffer[[32, 16], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc(())
#         h_mat: pl.Buffer[[32, 16], pl.FP16, pl.Mem.Mat, pl.TileView(valid_shape=[16, 16])] = pl.buffer.alloc(())
#         b_mat: pl.Buffer[[32, 16], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc(())
#         bt: pl.Buffer[[16, 32], pl.FP16, pl.Mem.Mat, pl.Layout.ZN] = pl.buffer.reshape(b_mat)
#         a_l0: pl.Buffer[[32, 16], pl.FP16, pl.Mem.Left] = pl.buffer.alloc(())
#         h_l0: pl.Buffer[[32, 16], pl.FP16, pl.Mem.Left, pl.TileView(valid_shape=[16, 16])] = pl.buffer.alloc(())
#         b_l0: pl.Buffer[[16, 32], pl.FP16, pl.Mem.Right] = pl.buffer.alloc(())
#         acc0: pl.Buffer[[32, 32], pl.FP32, pl.Mem.Acc] = pl.buffer.alloc(())
#         acc1_product: pl.Buffer[[32, 32], pl.FP32, pl.Mem.Acc, pl.TileView(valid_shape=[16, 32])] = pl.buffer.reshape(
#             acc0
#         )
#         pl.buffer.load(A, [0, 0], [32, 16], a_mat)
#         pl.buffer.load(H, [0, 0], [16, 16], h_mat)
#         pl.buffer.load(B, [0, 0], [32, 16], b_mat)
#         pl.buffer.copy(a_mat, a_l0)
#         pl.buffer.copy(h_mat, h_l0)
#         pl.buffer.copy(bt, b_l0)
#         pl.buffer.matmul(a_l0, b_l0, acc0)
#         pl.buffer.matmul_acc(h_l0, b_l0, acc1_product)
#         pl.buffer.matmul(a_l0, b_l0, acc0)
#         pl.buffer.store(acc0, [0, 0], [32, 32], out)
#         return out
