# pypto.program: set_validshape
# set_validshape shrinking and growing back (the exposed lanes keep x's defined elements), an op
# on the shrunk tile, and runtime extents from scalars.
import pypto.language as pl


@pl.program
class set_validshape:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a: pl.Tensor[[16, 32], pl.FP32],
               vr: pl.Scalar[pl.INDEX],
               vc: pl.Scalar[pl.INDEX],
               out1: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
               out2: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
               out3: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> tuple[pl.Tensor[[16, 32], pl.FP32], pl.Tensor[[16, 32], pl.FP32], pl.Tensor[[16, 32], pl.FP32]]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        small = pl.tile.set_validshape(x, 4, 8)
        e = pl.tile.exp(small)
        r1 = pl.tile.store(e, [0, 0], out1)
        again = pl.tile.set_validshape(small, 16, 32)
        g = pl.tile.adds(again, 1.0)
        r2 = pl.tile.store(g, [0, 0], out2)
        dyn = pl.tile.set_validshape(x, vr, vc)
        m = pl.tile.muls(dyn, 3.0)
        r3 = pl.tile.store(m, [0, 0], out3)
        return r1, r2, r3
