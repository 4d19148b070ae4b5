# pypto.program: generated
import pypto.language as pl

@pl.program
class generated:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               out0: pl.Out[pl.Tensor[[1, 1], pl.INT32]],
               out1: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out2: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out3: pl.Out[pl.Tensor[[1, 1], pl.INT32]]) -> tuple[pl.Tensor[[1, 1], pl.INT32], pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.INT32]]:
        t15 = pl.tile.full([1, 8], dtype=pl.FP32, value=1.0)
        for i1 in pl.range(3):
            t17 = pl.tile.abs(t15)
        return out0, out1, out2, out3
