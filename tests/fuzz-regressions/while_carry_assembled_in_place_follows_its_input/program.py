# pypto.program: generated
import pypto.language as pl

@pl.program
class generated:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               out0: pl.Out[pl.Tensor[[5, 1], pl.FP32]],
               out1: pl.Out[pl.Tensor[[1, 1], pl.INT32]],
               out2: pl.Out[pl.Tensor[[5, 1], pl.FP32]],
               out3: pl.Out[pl.Tensor[[5, 1], pl.FP32]],
               out4: pl.Out[pl.Tensor[[5, 1], pl.FP32]]) -> tuple[pl.Tensor[[5, 1], pl.FP32], pl.Tensor[[1, 1], pl.INT32], pl.Tensor[[5, 1], pl.FP32], pl.Tensor[[5, 1], pl.FP32], pl.Tensor[[5, 1], pl.FP32]]:
        t0 = pl.tile.full([5, 64], dtype=pl.FP32, value=1.0)
        t13 = pl.tile.set_validshape(t0, 2, 3)
        t16 = pl.tile.full([2, 8], dtype=pl.FP32, value=1.0)
        t17 = pl.tile.assemble(t13, t16, [0, 0])
        for (c7,) in pl.while_(init_values=(t17,)):
            pl.cond(0 < 0)
            t20 = pl.tile.assemble(c7, t16, [0, 0])
            r8 = pl.yield_(t20)
        t22 = pl.tile.set_validshape(r8, 3, 1)
        o3 = pl.tile.store(t22, [0, 0], out3)
        return out0, out1, out2, o3, out4
