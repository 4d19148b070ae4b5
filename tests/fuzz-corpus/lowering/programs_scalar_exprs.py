# pypto.program: scalar_exprs
# Scalar semantics: FP32 scalar expressions round after every op (s*s - 1.0 is 2^-11, not
# 2^-11 + 2^-24); INDEX // and % floor like Python for negatives; INT32 scalars wrap; BOOL and/or/not
# in If and While conditions; Ifs without results storing to GM (one taken, one not); a store of
# an empty valid region writes nothing.
import pypto.language as pl


@pl.program
class scalar_exprs:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a: pl.Tensor[[16, 32], pl.FP32],
               b: pl.Tensor[[16, 8], pl.INT32],
               s: pl.Scalar[pl.FP32],
               q: pl.Scalar[pl.INDEX],
               iv: pl.Scalar[pl.INT32],
               flag: pl.Scalar[pl.BOOL],
               out: pl.Out[pl.Tensor[[80, 32], pl.FP32]],
               outi: pl.Out[pl.Tensor[[16, 8], pl.INT32]]) -> tuple[pl.Tensor[[80, 32], pl.FP32], pl.Tensor[[16, 8], pl.INT32]]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        d = s * s - 1.0
        e = d * 4096.0
        t0 = pl.tile.adds(x, e)
        r1 = q // 4 + 2
        r2 = q % 4
        o0 = pl.tile.store(t0, [r1 * 16, 0], out)
        if flag or r2 == 3 and not flag:
            t1 = pl.tile.muls(x, 2.0)
            o1 = pl.tile.store(t1, [16, 0], o0)
        if not flag and q > 0:
            t2 = pl.tile.muls(x, 4.0)
            o2 = pl.tile.store(t2, [32, 0], o0)
        ez = pl.tile.set_validshape(x, q + 5, 32)
        o3 = pl.tile.store(ez, [32, 0], o0)
        o4 = pl.tile.store(x, [r2 * 16, 0], o3)
        for (acc, k) in pl.while_(init_values=(x, 0)):
            pl.cond(k < 3 and (k != 1 or flag))
            a1 = pl.tile.adds(acc, 1.0)
            k1 = k + 1
            acc_out, k_out = pl.yield_(a1, k1)
        o5 = pl.tile.store(acc_out, [64, 0], o4)
        bi = pl.tile.load(b, [0, 0], [16, 8])
        wrapped = iv + pl.const(1000, pl.INT32)
        ti = pl.tile.adds(bi, wrapped)
        oi = pl.tile.store(ti, [0, 0], outi)
        return o5, oi
