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
               out4: pl.Out[pl.Tensor[[1, 1], pl.FP32]]) -> tuple[pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32]]:
        t6 = pl.tile.full([1, 8], dtype=pl.FP32, value=1.0)
        t9 = pl.tile.slice(t6, [1, 8], [0, 0], valid_shape=[1, 1])
        if False:
            r5, r6 = pl.yield_(t9, t9)
        else:
            r5, r6 = pl.yield_(t9, t9)
        for i3, (c4,) in pl.range(1, 0 + 1, init_values=(r6,)):
            t14 = pl.tile.abs(c4)
            r8 = pl.yield_(t14)
        return out0, out1, out2, out3, out4
