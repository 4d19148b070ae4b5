# pypto.program: cube_acc_boxes
# expect: pass
# expected-outputs: ../../programs/expected/cube_acc_boxes
# tests/programs/cube_acc_boxes.py lowered by hand under PTOAS (addressless allocations): a full
# matmul into a [16, 32] Acc, then matmul_acc of a product that covers only the first 16 x 16 Acc
# box, through a product-shaped view (M8). The second box is untouched, so it keeps the first
# product (the touched-box rule).
import pypto.language as pl


@pl.program
class cube_acc_boxes:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self,
               a: pl.Tensor[[16, 16], pl.FP16],
               a2: pl.Tensor[[16, 16], pl.FP16],
               b: pl.Tensor[[16, 32], pl.FP16],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        a_mat: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc(())
        a2_mat: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc(())
        b_mat: pl.Buffer[[16, 32], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc(())
        b_half: pl.Buffer[[16, 32], pl.FP16, pl.Mem.Mat, pl.TileView(valid_shape=[16, 16])] = pl.buffer.alloc(())
        lhs: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Left] = pl.buffer.alloc(())
        lhs2: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Left] = pl.buffer.alloc(())
        rhs: pl.Buffer[[16, 32], pl.FP16, pl.Mem.Right] = pl.buffer.alloc(())
        rhs_half: pl.Buffer[[16, 32], pl.FP16, pl.Mem.Right, pl.TileView(valid_shape=[16, 16])] = pl.buffer.alloc(())
        c: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Acc] = pl.buffer.alloc(())
        c_product: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Acc, pl.TileView(valid_shape=[16, 16])] = pl.buffer.reshape(c)
        pl.buffer.load(a, [0, 0], [16, 16], a_mat)
        pl.buffer.load(a2, [0, 0], [16, 16], a2_mat)
        pl.buffer.load(b, [0, 0], [16, 32], b_mat)
        pl.buffer.load(b, [0, 0], [16, 16], b_half)
        pl.buffer.copy(a_mat, lhs)
        pl.buffer.copy(a2_mat, lhs2)
        pl.buffer.copy(b_mat, rhs)
        pl.buffer.copy(b_half, rhs_half)
        pl.buffer.matmul(lhs, rhs, c)
        pl.buffer.matmul_acc(lhs2, rhs_half, c_product)
        pl.buffer.store(c, [0, 0], [16, 32], out)
        return out
