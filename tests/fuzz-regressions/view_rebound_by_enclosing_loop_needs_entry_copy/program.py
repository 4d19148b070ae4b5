# pypto.program: generated
import pypto.language as pl

@pl.program
class generated:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, out0: pl.Out[pl.Tensor[[1, 1], pl.FP32]]) -> pl.Tensor[[1, 1], pl.FP32]:
        t10 = pl.tile.full([1, 8], dtype=pl.FP32, value=1.0)
        for (k0,) in pl.while_(init_values=(0,)):
            pl.cond(k0 < 2)
            t12 = pl.tile.set_validshape(t10, 0, 0)
            for i0, (c1,) in pl.range(1, init_values=(t12,)):
                for i1, (c4,) in pl.range(1, init_values=(c1,)):
                    r1 = pl.yield_(c4)
                r3 = pl.yield_(r1)
            k1 = k0 + 1
            r5 = pl.yield_(k1)
        return out0
