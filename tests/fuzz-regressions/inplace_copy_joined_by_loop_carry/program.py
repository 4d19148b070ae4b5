# pypto.program: generated
import pypto.language as pl

@pl.program
class generated:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               out0: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out1: pl.Out[pl.Tensor[[1, 1], pl.INT32]],
               out2: pl.Out[pl.Tensor[[1, 1], pl.INT32]],
               out3: pl.Out[pl.Tensor[[1, 1], pl.FP32]]) -> tuple[pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.INT32], pl.Tensor[[1, 1], pl.INT32], pl.Tensor[[1, 1], pl.FP32]]:
        t0 = pl.tile.full([3, 32], dtype=pl.FP32, value=1.0)
        t16 = pl.tile.set_validshape(t0, 0, 0)
        t17 = pl.tile.assemble(t16, t0, [0, 0])
        for (c3, k2) in pl.while_(init_values=(t17, 0)):
            pl.cond(k2 < 1)
            k3 = 1
            r4, r5 = pl.yield_(t0, k3)
        t26 = pl.tile.reshape(r4, [12, 8])
        return out0, out1, out2, out3
