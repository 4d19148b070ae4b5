# pypto.program: generated
import pypto.language as pl

@pl.program
class generated:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a0: pl.Tensor[[1, 4], pl.FP32],
               a1: pl.Tensor[[64, 16], pl.FP32],
               a2: pl.Tensor[[32, 8], pl.FP32],
               f0: pl.Scalar[pl.BOOL],
               vx0: pl.Scalar[pl.INDEX],
               off0: pl.Scalar[pl.INDEX],
               out0: pl.Out[pl.Tensor[[392, 36], pl.FP32]]) -> pl.Tensor[[392, 36], pl.FP32]:
        t0 = pl.tile.full([5, 32], dtype=pl.FP32, value=0.0)
        t24 = pl.tile.slice(t0, [3, 8], [2, 0], valid_shape=[2, 5])
        return out0
