# pypto.program: specials_fp32
# IEEE edge cases in FP32: exp overflow to +Inf and underflow to subnormals and zero, log of +-0
# (-Inf), division overflow and by +-0 (+-Inf), recip and muls results in the subnormal range, add
# overflow, sqrt of subnormals.
import pypto.language as pl


@pl.program
class specials_fp32:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               big: pl.Tensor[[16, 32], pl.FP32],
               z: pl.Tensor[[16, 32], pl.FP32],
               huge: pl.Tensor[[16, 32], pl.FP32],
               tiny: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[128, 32], pl.FP32]]) -> pl.Tensor[[128, 32], pl.FP32]:
        b = pl.tile.load(big, [0, 0], [16, 32])
        w = pl.tile.load(z, [0, 0], [16, 32])
        h = pl.tile.load(huge, [0, 0], [16, 32])
        t = pl.tile.load(tiny, [0, 0], [16, 32])
        t0 = pl.tile.exp(b)
        nb = pl.tile.neg(b)
        t1 = pl.tile.exp(nb)
        aw = pl.tile.abs(w)
        t2 = pl.tile.log(aw)
        t3 = pl.tile.div(h, w)
        t4 = pl.tile.recip(h)
        t5 = pl.tile.muls(t, 0.001)
        t6 = pl.tile.add(h, h)
        at = pl.tile.abs(t)
        t7 = pl.tile.sqrt(at)
        o0 = pl.tile.store(t0, [0, 0], out)
        o1 = pl.tile.store(t1, [16, 0], o0)
        o2 = pl.tile.store(t2, [32, 0], o1)
        o3 = pl.tile.store(t3, [48, 0], o2)
        o4 = pl.tile.store(t4, [64, 0], o3)
        o5 = pl.tile.store(t5, [80, 0], o4)
        o6 = pl.tile.store(t6, [96, 0], o5)
        o7 = pl.tile.store(t7, [112, 0], o6)
        return o7
