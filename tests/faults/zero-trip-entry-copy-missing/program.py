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
        t3 = pl.tile.full([1, 8], dtype=pl.FP32, value=1.0)
        for i1, (c1,) in pl.range(3, init_values=(t3,)):
            t12 = pl.tile.full([1, 8], dtype=pl.FP32, value=1.0)
            r1 = pl.yield_(t12)
        t14 = pl.tile.assemble(r1, t3, [0, 0])
        return out0, out1, out2, out3, out4
