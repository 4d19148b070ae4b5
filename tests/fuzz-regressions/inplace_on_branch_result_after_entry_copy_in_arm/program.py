# pypto.program: generated
import pypto.language as pl

@pl.program
class generated:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               out0: pl.Out[pl.Tensor[[3, 1], pl.FP32]],
               out1: pl.Out[pl.Tensor[[3, 1], pl.FP32]]) -> tuple[pl.Tensor[[3, 1], pl.FP32], pl.Tensor[[3, 1], pl.FP32]]:
        t0 = pl.tile.full([3, 48], dtype=pl.FP32, value=1.0)
        if False:
            for i1, (c3,) in pl.range(2, init_values=(t0,)):
                r4 = pl.yield_(c3)
            r0 = pl.yield_(r4)
        else:
            r0 = pl.yield_(t0)
        t9 = pl.tile.set_validshape(r0, 1, 2)
        t10 = pl.tile.full([1, 8], dtype=pl.FP32, value=1.0)
        t11 = pl.tile.assemble(t9, t10, [0, 0])
        t15 = pl.tile.set_validshape(t11, 2, 1)
        o0 = pl.tile.store(t15, [0, 0], out0)
        return o0, out1
