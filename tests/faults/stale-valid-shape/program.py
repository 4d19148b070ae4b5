# pypto.program: generated
import pypto.language as pl

@pl.program
class generated:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a0: pl.Tensor[[1, 1], pl.FP32],
               a2: pl.Tensor[[1, 3], pl.FP32],
               out0: pl.Out[pl.Tensor[[1, 1], pl.FP32]]) -> pl.Tensor[[1, 1], pl.FP32]:
        t0 = pl.tile.load(a0, [0, 0], [1, 24], valid_shape=[1, 1])
        t3 = pl.tile.load(a2, [0, 0], [1, 24], valid_shape=[0, 3])
        return out0
