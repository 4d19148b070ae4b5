# pypto.program: fp16_edges
# FP16 edge cases: results in the subnormal range, overflow to Inf, an FP32 scalar parameter that
# must be converted to FP16 before the op (adds, lrelu), and Acc -> FP16 stores that overflow
# (large products) or land in the subnormal range (tiny products).
import pypto.language as pl


@pl.program
class fp16_edges:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a: pl.Tensor[[16, 16], pl.FP16],
               big: pl.Tensor[[16, 16], pl.FP16],
               s: pl.Scalar[pl.FP32],
               out: pl.Out[pl.Tensor[[80, 16], pl.FP16]],
               mm_big: pl.Out[pl.Tensor[[16, 16], pl.FP16]],
               mm_tiny: pl.Out[pl.Tensor[[16, 16], pl.FP16]]) -> tuple[pl.Tensor[[80, 16], pl.FP16], pl.Tensor[[16, 16], pl.FP16], pl.Tensor[[16, 16], pl.FP16]]:
        x = pl.tile.load(a, [0, 0], [16, 16])
        y = pl.tile.load(big, [0, 0], [16, 16])
        t0 = pl.tile.muls(x, 0.01)
        t1 = pl.tile.adds(x, s)
        t2 = pl.tile.mul(y, y)
        t3 = pl.tile.lrelu(x, s)
        t4 = pl.tile.div(x, y)
        o0 = pl.tile.store(t0, [0, 0], out)
        o1 = pl.tile.store(t1, [16, 0], o0)
        o2 = pl.tile.store(t2, [32, 0], o1)
        o3 = pl.tile.store(t3, [48, 0], o2)
        o4 = pl.tile.store(t4, [64, 0], o3)
        big_mat = pl.tile.load(big, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        tiny_mat = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        big_l = pl.tile.move(big_mat, target_memory=pl.Mem.Left)
        big_r = pl.tile.move(big_mat, target_memory=pl.Mem.Right)
        tiny_l = pl.tile.move(tiny_mat, target_memory=pl.Mem.Left)
        tiny_r = pl.tile.move(tiny_mat, target_memory=pl.Mem.Right)
        c_big = pl.tile.matmul(big_l, big_r)
        c_tiny = pl.tile.matmul(tiny_l, tiny_r)
        o5 = pl.tile.store(c_big, [0, 0], mm_big)
        o6 = pl.tile.store(c_tiny, [0, 0], mm_tiny)
        return o4, o5, o6
