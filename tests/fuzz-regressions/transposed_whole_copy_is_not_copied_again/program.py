# pypto.program: generated
import pypto.language as pl

@pl.program
class generated:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a0: pl.Tensor[[1, 1], pl.INT32],
               out0: pl.Out[pl.Tensor[[1, 1], pl.INT32]],
               out1: pl.Out[pl.Tensor[[1, 1], pl.INT32]]) -> tuple[pl.Tensor[[1, 1], pl.INT32], pl.Tensor[[1, 1], pl.INT32]]:
        t0 = pl.tile.load(a0, [0, 0], [8, 8], valid_shape=[1, 0])
        t1 = pl.tile.slice(t0, [1, 8], [0, 0])
        t2 = pl.tile.transpose_view(t0)
        t3 = pl.tile.assemble(t2, t1, [0, 0])
        for (c0,) in pl.while_(init_values=(t3,)):
            pl.cond(0 < 0)
            t6 = pl.tile.add(c0, c0)
            t7 = pl.tile.transpose_view(t0)
            r2 = pl.yield_(t7)
        return out0, out1
