# pypto.program: generated
import pypto.language as pl

@pl.program
class generated:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               out0: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out1: pl.Out[pl.Tensor[[1, 1], pl.FP32]]) -> tuple[pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32]]:
        t3 = pl.tile.full([2, 64], dtype=pl.FP32, value=1.0)
        t12 = pl.tile.slice(t3, [2, 56], [0, 0])
        for (c1, k0) in pl.while_(init_values=(t12, 0)):
            pl.cond(k0 < 1)
            k3 = 1
            r4, r5 = pl.yield_(c1, k3)
        t26 = pl.tile.slice(r4, [2, 24], [0, 0])
        t29 = pl.tile.slice(t26, [1, 8], [1, 0])
        return out0, out1
