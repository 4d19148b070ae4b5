# pypto.program: generated
import pypto.language as pl

@pl.program
class generated:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               out0: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out1: pl.Out[pl.Tensor[[14, 16], pl.FP32]],
               out2: pl.Out[pl.Tensor[[1, 1], pl.FP32]]) -> tuple[pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[14, 16], pl.FP32], pl.Tensor[[1, 1], pl.FP32]]:
        t0 = pl.tile.full([6, 24], dtype=pl.FP32, value=1.0)
        t2 = pl.tile.set_validshape(t0, 2, 1)
        t21 = pl.tile.slice(t0, [4, 24], [0, 0], valid_shape=[1, 1])
        t22 = pl.tile.assemble(t2, t21, [1, 0])
        t26 = pl.tile.set_validshape(t22, 1, 3)
        for i3, (c1,) in pl.range(1, 0, init_values=(t26,)):
            r2 = pl.yield_(c1)
        o7 = pl.tile.store(t26, [8, 8], out1)
        return out0, o7, out2
