# pypto.program: generated
import pypto.language as pl

@pl.program
class generated:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               out0: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out1: pl.Out[pl.Tensor[[1, 1], pl.FP32]]) -> tuple[pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32]]:
        t0 = pl.tile.full([1, 8], dtype=pl.FP32, value=1.0)
        t1 = pl.tile.set_validshape(t0, 1, 1)
        t2 = pl.tile.full([1, 8], dtype=pl.FP32, value=1.0)
        o1 = pl.tile.store(t1, [0, 0], out1)
        return out0, o1
