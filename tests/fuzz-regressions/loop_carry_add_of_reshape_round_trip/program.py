# pypto.program: generated
import pypto.language as pl

@pl.program
class generated:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               out0: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out1: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out2: pl.Out[pl.Tensor[[1, 1], pl.INT32]],
               out3: pl.Out[pl.Tensor[[1, 1], pl.FP32]]) -> tuple[pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.INT32], pl.Tensor[[1, 1], pl.FP32]]:
        t9 = pl.tile.full([3, 32], dtype=pl.INT32, value=1.0)
        for (c0,) in pl.while_(init_values=(t9,)):
            pl.cond(0 < 0)
            t15 = pl.tile.reshape(c0, [12, 8])
            t17 = pl.tile.reshape(t15, [3, 32])
            t19 = pl.tile.add(t17, t17)
            r0 = pl.yield_(t19)
        return out0, out1, out2, out3
