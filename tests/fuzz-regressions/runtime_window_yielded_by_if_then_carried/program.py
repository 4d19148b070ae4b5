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
        t19 = pl.tile.full([1, 24], dtype=pl.FP32, value=1.0)
        t22 = pl.tile.slice(t19, [1, 8], [0, 0 * 8], valid_shape=[0, 0])
        t24 = pl.tile.full([1, 48], dtype=pl.FP32, value=0.5)
        if False:
            r1, r2 = pl.yield_(t24, t22)
        else:
            r1, r2 = pl.yield_(t24, t22)
        t32 = pl.tile.assemble(r1, r1, [0, 0])
        for i0, (c0,) in pl.range(1, init_values=(r2,)):
            r4 = pl.yield_(c0)
        return out0, out1, out2, out3, out4
