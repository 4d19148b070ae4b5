# pypto.program: generated
import pypto.language as pl

@pl.program
class generated:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               out0: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out1: pl.Out[pl.Tensor[[1, 1], pl.FP32]]) -> tuple[pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32]]:
        t4 = pl.tile.full([32, 32], dtype=pl.FP32, value=0.5)
        t9 = pl.tile.slice(t4, [3, 24], [0, 0], valid_shape=[1, 1])
        for i1, (c1,) in pl.range(0, init_values=(t9,)):
            r5 = pl.yield_(c1)
        t20 = pl.tile.set_validshape(r5, 0, 0)
        return out0, out1
