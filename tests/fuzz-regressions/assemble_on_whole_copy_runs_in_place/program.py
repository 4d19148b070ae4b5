# pypto.program: generated
import pypto.language as pl

@pl.program
class generated:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               out0: pl.Out[pl.Tensor[[2, 32], pl.FP32]],
               out1: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out2: pl.Out[pl.Tensor[[2, 32], pl.FP32]]) -> tuple[pl.Tensor[[2, 32], pl.FP32], pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[2, 32], pl.FP32]]:
        t1 = pl.tile.full([1, 48], dtype=pl.FP32, value=1.0)
        t25 = pl.tile.set_validshape(t1, 1, 1)
        t33 = pl.tile.full([1, 8], dtype=pl.FP32, value=1.0)
        t34 = pl.tile.assemble(t25, t33, [0, 0])
        t36 = pl.tile.set_validshape(t34, 1, 9)
        t39 = pl.tile.add(t36, t36)
        for (c1,) in pl.while_(init_values=(t39,)):
            pl.cond(0 < 0)
            r4 = pl.yield_(t36)
        o4 = pl.tile.store(r4, [1, 16], out2)
        return out0, out1, o4
