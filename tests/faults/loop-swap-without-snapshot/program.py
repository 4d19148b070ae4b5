# pypto.program: generated
import pypto.language as pl

@pl.program
class generated:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               n0: pl.Scalar[pl.INDEX],
               out0: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out1: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out2: pl.Out[pl.Tensor[[1, 1], pl.FP32]]) -> tuple[pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32]]:
        t1 = pl.tile.full([1, 8], dtype=pl.FP32, value=1.0)
        for i0, (c0, c1) in pl.range(n0, init_values=(t1, t1)):
            r0, r1 = pl.yield_(c1, c0)
        return out0, out1, out2
