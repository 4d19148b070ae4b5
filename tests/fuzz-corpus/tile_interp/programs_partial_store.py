# pypto.program: partial_store
# Static partial valid regions stored at nonzero offsets: only the valid rectangles reach `out`,
# every other element keeps the sentinel. The first load's physical tile overhangs the tensor.
import pypto.language as pl


@pl.program
class partial_store:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a: pl.Tensor[[20, 40], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 40], pl.FP32]]) -> pl.Tensor[[16, 40], pl.FP32]:
        x = pl.tile.load(a, [12, 8], [16, 32], valid_shape=[8, 24])
        y = pl.tile.exp(x)
        z = pl.tile.muls(y, 0.5)
        o0 = pl.tile.store(z, [2, 4], out)
        p = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[3, 32])
        o1 = pl.tile.store(p, [12, 8], o0)
        return o1
