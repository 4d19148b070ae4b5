# pypto.program: generated
import pypto.language as pl

@pl.program
class generated:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               out0: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out1: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out2: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out3: pl.Out[pl.Tensor[[1, 1], pl.FP32]]) -> tuple[pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32]]:
        t3 = pl.tile.full([8, 64], dtype=pl.FP32, value=1.0)
        t15 = pl.tile.slice(t3, [6, 24], [0, 8], valid_shape=[0, 0])
        for (c1,) in pl.while_(init_values=(t15,)):
            pl.cond(0 < 0)
            r1 = pl.yield_(c1)
        t22 = pl.tile.slice(r1, [6, 8], [0, 0])
        t24 = pl.tile.slice(t22, [2, 8], [1, 0])
        return out0, out1, out2, out3
