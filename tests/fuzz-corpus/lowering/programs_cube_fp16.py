# pypto.program: cube_fp16
# The cube path: FP16 GM -> Mat -> Left/Right (move) -> matmul into an FP32 Acc -> stored to FP32
# GM and, with one round-to-nearest-even conversion, to FP16 GM.
import pypto.language as pl


@pl.program
class cube_fp16:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a: pl.Tensor[[16, 32], pl.FP16],
               b: pl.Tensor[[32, 16], pl.FP16],
               out32: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
               out16: pl.Out[pl.Tensor[[16, 16], pl.FP16]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP16]]:
        a_mat = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        b_mat = pl.tile.load(b, [0, 0], [32, 16], target_memory=pl.Mem.Mat)
        lhs = pl.tile.move(a_mat, target_memory=pl.Mem.Left)
        rhs = pl.tile.move(b_mat, target_memory=pl.Mem.Right)
        c = pl.tile.matmul(lhs, rhs)
        r32 = pl.tile.store(c, [0, 0], out32)
        r16 = pl.tile.store(c, [0, 0], out16)
        return r32, r16
