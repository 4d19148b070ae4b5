# pypto.program: generated
import pypto.language as pl

@pl.program
class generated:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               out0: pl.Out[pl.Tensor[[1, 8], pl.FP32]],
               out1: pl.Out[pl.Tensor[[1, 8], pl.FP32]]) -> tuple[pl.Tensor[[1, 8], pl.FP32], pl.Tensor[[1, 8], pl.FP32]]:
        t6 = pl.tile.full([1, 8], dtype=pl.FP32, value=1.0)
        if False:
            t9 = pl.tile.full([1, 8], dtype=pl.FP32, value=1.0)
            r3, r4, r5 = pl.yield_(t6, t9, 3)
        else:
            r3, r4, r5 = pl.yield_(t6, t6, 0)
        o1 = pl.tile.store(r3, [0, 0], out1)
        return out0, o1
