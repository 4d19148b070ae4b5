# pypto.program: generated
import pypto.language as pl

@pl.program
class generated:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a0: pl.Tensor[[1, 32], pl.FP32],
               out0: pl.Out[pl.Tensor[[1, 32], pl.FP32]],
               out1: pl.Out[pl.Tensor[[1, 32], pl.FP32]]) -> tuple[pl.Tensor[[1, 32], pl.FP32], pl.Tensor[[1, 32], pl.FP32]]:
        t0 = pl.tile.load(a0, [0, 0], [1, 32])
        t1 = pl.tile.slice(t0, [1, 8], [0, 0], valid_shape=[1, 1])
        t3 = pl.tile.assemble(t0, t1, [0, 8])
        o0 = pl.tile.store(t3, [0, 0], out0)
        return o0, out1
