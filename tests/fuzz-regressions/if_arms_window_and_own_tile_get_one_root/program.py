# pypto.program: generated
import pypto.language as pl

@pl.program
class generated:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               out0: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out1: pl.Out[pl.Tensor[[1, 1], pl.FP32]]) -> tuple[pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32]]:
        t0 = pl.tile.full([3, 32], dtype=pl.FP32, value=1.0)
        t1 = pl.tile.slice(t0, [3, 8], [0, 0], valid_shape=[1, 1])
        t3 = pl.tile.sqrt(t1)
        if False:
            r1, r2 = pl.yield_(t3, t3)
        else:
            r1, r2 = pl.yield_(t1, t3)
        t9 = pl.tile.set_validshape(r1, 0, 0)
        return out0, out1
