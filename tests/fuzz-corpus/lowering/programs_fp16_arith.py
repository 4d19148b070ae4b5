# pypto.program: fp16_arith
# FP16 arithmetic on 16x16 tiles (each op computed in binary32 or binary64 and rounded once to
# binary16); every result lands in its own 16-row band of `out`.
import pypto.language as pl


@pl.program
class fp16_arith:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a: pl.Tensor[[16, 16], pl.FP16],
               b: pl.Tensor[[16, 16], pl.FP16],
               out: pl.Out[pl.Tensor[[272, 16], pl.FP16]]) -> pl.Tensor[[272, 16], pl.FP16]:
        x = pl.tile.load(a, [0, 0], [16, 16])
        y = pl.tile.load(b, [0, 0], [16, 16])
        t0 = pl.tile.add(x, y)
        t1 = pl.tile.sub(x, y)
        t2 = pl.tile.mul(x, y)
        t3 = pl.tile.div(x, y)
        t4 = pl.tile.maximum(x, y)
        t5 = pl.tile.minimum(x, y)
        t6 = pl.tile.exp(x)
        t7 = pl.tile.sqrt(y)
        t8 = pl.tile.log(y)
        t9 = pl.tile.recip(y)
        t10 = pl.tile.adds(x, 0.5)
        t11 = pl.tile.muls(x, 1.5)
        t12 = pl.tile.lrelu(x, 0.25)
        t13 = pl.tile.abs(x)
        t14 = pl.tile.neg(x)
        t15 = pl.tile.relu(x)
        f = pl.tile.full([16, 16], dtype=pl.FP16, value=0.3)
        t16 = pl.tile.add(x, f)
        o0 = pl.tile.store(t0, [0, 0], out)
        o1 = pl.tile.store(t1, [16, 0], o0)
        o2 = pl.tile.store(t2, [32, 0], o1)
        o3 = pl.tile.store(t3, [48, 0], o2)
        o4 = pl.tile.store(t4, [64, 0], o3)
        o5 = pl.tile.store(t5, [80, 0], o4)
        o6 = pl.tile.store(t6, [96, 0], o5)
        o7 = pl.tile.store(t7, [112, 0], o6)
        o8 = pl.tile.store(t8, [128, 0], o7)
        o9 = pl.tile.store(t9, [144, 0], o8)
        o10 = pl.tile.store(t10, [160, 0], o9)
        o11 = pl.tile.store(t11, [176, 0], o10)
        o12 = pl.tile.store(t12, [192, 0], o11)
        o13 = pl.tile.store(t13, [208, 0], o12)
        o14 = pl.tile.store(t14, [224, 0], o13)
        o15 = pl.tile.store(t15, [240, 0], o14)
        o16 = pl.tile.store(t16, [256, 0], o15)
        return o16
