# pypto.program: generated
import pypto.language as pl

@pl.program
class generated:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a0: pl.Tensor[[1, 1], pl.FP32],
               out0: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out1: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out2: pl.Out[pl.Tensor[[1, 1], pl.FP32]]) -> tuple[pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32]]:
        t0 = pl.tile.load(a0, [0, 0], [16, 32], valid_shape=[1, 1])
        t3 = pl.tile.slice(t0, [2, 8], [0, 8])
        for i1, (c5,) in pl.range(1, init_values=(t3,)):
            t11 = pl.tile.assemble(c5, c5, [0, 0])
            r5 = pl.yield_(c5)
        return out0, out1, out2
