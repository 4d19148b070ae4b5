# pypto.program: generated
import pypto.language as pl

@pl.program
class generated:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, out0: pl.Out[pl.Tensor[[1, 1], pl.FP32]]) -> pl.Tensor[[1, 1], pl.FP32]:
        t3 = pl.tile.full([8, 32], dtype=pl.FP32, value=1.0)
        t4 = pl.tile.slice(t3, [1, 24], [0, 0], valid_shape=[0, 0])
        t5 = pl.tile.reshape(t4, [3, 8])
        t8 = pl.tile.set_validshape(t5, 0, 0)
        t9 = pl.tile.set_validshape(t8, 1, 1)
        o2 = pl.tile.store(t9, [0, 0], out0)
        return o2
