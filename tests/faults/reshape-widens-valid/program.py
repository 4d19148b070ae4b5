# pypto.program: generated
import pypto.language as pl

@pl.program
class generated:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a1: pl.Tensor[[2, 12], pl.FP16],
               out0: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out1: pl.Out[pl.Tensor[[3, 40], pl.FP16]]) -> tuple[pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[3, 40], pl.FP16]]:
        t8 = pl.tile.load(a1, [1, 8], [1, 32], valid_shape=[1, 3])
        t9 = pl.tile.reshape(t8, [2, 16])
        o2 = pl.tile.store(t9, [1, 8], out1)
        return out0, o2
