# pypto.program: generated
import pypto.language as pl

@pl.program
class generated:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a1: pl.Tensor[[1, 1], pl.FP32],
               out0: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out1: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out2: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out3: pl.Out[pl.Tensor[[1, 1], pl.FP32]]) -> tuple[pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32]]:
        t2 = pl.tile.load(a1, [0, 0], [16, 32], valid_shape=[1, 1])
        t3 = pl.tile.slice(t2, [2, 8], [0, 8])
        t5 = pl.tile.add(t3, t3)
        if False:
            r0, r1, r2 = pl.yield_(t5, t5, 2.0)
        else:
            r0, r1, r2 = pl.yield_(t5, t3, 2.0)
        t16 = pl.tile.assemble(r1, r1, [0, 0])
        return out0, out1, out2, out3
