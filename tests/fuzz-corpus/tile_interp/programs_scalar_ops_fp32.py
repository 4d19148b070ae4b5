# pypto.program: scalar_ops_fp32
# Tile-scalar FP32 ops with literal scalars, an FP32 scalar parameter `s` and FP32 scalar
# arithmetic (`s - 1.0`); each result lands in its own 16-row band of `out`.
import pypto.language as pl


@pl.program
class scalar_ops_fp32:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a: pl.Tensor[[16, 32], pl.FP32],
               s: pl.Scalar[pl.FP32],
               out: pl.Out[pl.Tensor[[128, 32], pl.FP32]]) -> pl.Tensor[[128, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        t0 = pl.tile.adds(x, 1.5)
        t1 = pl.tile.subs(x, s)
        t2 = pl.tile.muls(x, s)
        t3 = pl.tile.divs(x, 3.0)
        t4 = pl.tile.maximums(x, s - 1.0)
        t5 = pl.tile.minimums(x, 0.75)
        t6 = pl.tile.lrelu(x, 0.1)
        t7 = pl.tile.divs(x, s)
        o0 = pl.tile.store(t0, [0, 0], out)
        o1 = pl.tile.store(t1, [16, 0], o0)
        o2 = pl.tile.store(t2, [32, 0], o1)
        o3 = pl.tile.store(t3, [48, 0], o2)
        o4 = pl.tile.store(t4, [64, 0], o3)
        o5 = pl.tile.store(t5, [80, 0], o4)
        o6 = pl.tile.store(t6, [96, 0], o5)
        o7 = pl.tile.store(t7, [112, 0], o6)
        return o7
