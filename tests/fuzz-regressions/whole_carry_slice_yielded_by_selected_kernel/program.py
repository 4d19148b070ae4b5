# pypto.program: generated
import pypto.language as pl

@pl.program
class generated:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               out0: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out1: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out2: pl.Out[pl.Tensor[[1, 1], pl.FP32]]) -> tuple[pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32]]:
        t0 = pl.tile.full([3, 8], dtype=pl.FP32, value=1.0)
        for i1, (c3,) in pl.range(0, init_values=(t0,)):
            t4 = pl.tile.slice(c3, [3, 8], [0, 0])
            r2 = pl.yield_(t4)
        return out0, out1, out2
