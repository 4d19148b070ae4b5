# pypto.program: cube_fp32_transpose
# FP32 operands on the cube path; the right operand is stored transposed in GM (bt = B^T) and
# relabelled with transpose_view on Mat before moving to Right, so out = a @ bt^T.
import pypto.language as pl


@pl.program
class cube_fp32_transpose:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a: pl.Tensor[[16, 32], pl.FP32],
               bt: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
               out16: pl.Out[pl.Tensor[[16, 16], pl.FP16]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP16]]:
        a_mat = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        bt_mat = pl.tile.load(bt, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        b_mat = pl.tile.transpose_view(bt_mat)
        lhs = pl.tile.move(a_mat, target_memory=pl.Mem.Left)
        rhs = pl.tile.move(b_mat, target_memory=pl.Mem.Right)
        c = pl.tile.matmul(lhs, rhs)
        r1 = pl.tile.store(c, [0, 0], out)
        r2 = pl.tile.store(c, [0, 0], out16)
        return r1, r2
