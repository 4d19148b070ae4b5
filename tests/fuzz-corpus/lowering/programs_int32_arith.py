# pypto.program: int32_arith
# INT32 arithmetic over the whole 32-bit range: add, sub and mul wrap modulo 2^32; scalars are
# INT32 constants.
import pypto.language as pl


@pl.program
class int32_arith:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a: pl.Tensor[[16, 16], pl.INT32],
               b: pl.Tensor[[16, 16], pl.INT32],
               out: pl.Out[pl.Tensor[[112, 16], pl.INT32]]) -> pl.Tensor[[112, 16], pl.INT32]:
        x = pl.tile.load(a, [0, 0], [16, 16])
        y = pl.tile.load(b, [0, 0], [16, 16])
        t0 = pl.tile.add(x, y)
        t1 = pl.tile.sub(x, y)
        t2 = pl.tile.mul(x, y)
        t3 = pl.tile.maximum(x, y)
        t4 = pl.tile.minimum(x, y)
        t5 = pl.tile.adds(x, pl.const(2000000011, pl.INT32))
        t6 = pl.tile.muls(x, pl.const(-7, pl.INT32))
        o0 = pl.tile.store(t0, [0, 0], out)
        o1 = pl.tile.store(t1, [16, 0], o0)
        o2 = pl.tile.store(t2, [32, 0], o1)
        o3 = pl.tile.store(t3, [48, 0], o2)
        o4 = pl.tile.store(t4, [64, 0], o3)
        o5 = pl.tile.store(t5, [80, 0], o4)
        o6 = pl.tile.store(t6, [96, 0], o5)
        return o6
