# pypto.program: generated
import pypto.language as pl

@pl.program
class generated:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               out0: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out1: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out2: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out3: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out4: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out5: pl.Out[pl.Tensor[[1, 1], pl.FP32]]) -> tuple[pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32]]:
        t0 = pl.tile.full([3, 16], dtype=pl.FP32, value=1.0)
        t5 = pl.tile.slice(t0, [3, 8], [0, 0])
        t12 = pl.tile.full([1, 8], dtype=pl.FP32, value=1.0)
        t16 = pl.tile.assemble(t5, t12, [0, 0])
        return out0, out1, out2, out3, out4, out5
