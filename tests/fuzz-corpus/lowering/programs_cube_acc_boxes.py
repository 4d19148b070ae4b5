# pypto.program: cube_acc_boxes
# The touched-box rule of matmul_acc: a 16x32 accumulator (two 16x16 Acc boxes) accumulates a
# product whose Right operand has valid columns 16, so only box 0 is touched; box 1 keeps the
# accumulator's elements.
import pypto.language as pl


@pl.program
class cube_acc_boxes:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a: pl.Tensor[[16, 16], pl.FP16],
               a2: pl.Tensor[[16, 16], pl.FP16],
               b: pl.Tensor[[16, 32], pl.FP16],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        a_mat = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        a2_mat = pl.tile.load(a2, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        b_mat = pl.tile.load(b, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        b_half = pl.tile.load(b, [0, 0], [16, 32], valid_shape=[16, 16], target_memory=pl.Mem.Mat)
        lhs = pl.tile.move(a_mat, target_memory=pl.Mem.Left)
        lhs2 = pl.tile.move(a2_mat, target_memory=pl.Mem.Left)
        rhs = pl.tile.move(b_mat, target_memory=pl.Mem.Right)
        rhs_half = pl.tile.move(b_half, target_memory=pl.Mem.Right)
        c = pl.tile.matmul(lhs, rhs)
        c2 = pl.tile.matmul_acc(c, lhs2, rhs_half)
        r = pl.tile.store(c2, [0, 0], out)
        return r
