# pypto.program: generated
import pypto.language as pl

@pl.program
class generated:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               out0: pl.Out[pl.Tensor[[2, 1], pl.INT32]],
               out1: pl.Out[pl.Tensor[[1, 1], pl.INT32]]) -> tuple[pl.Tensor[[2, 1], pl.INT32], pl.Tensor[[1, 1], pl.INT32]]:
        t2 = pl.tile.full([18, 16], dtype=pl.INT32, value=1.0)
        t4 = pl.tile.transpose_view(t2)
        t8 = pl.tile.set_validshape(t4, 0, 0)
        t11 = pl.tile.full([1, 8], dtype=pl.INT32, value=1.0)
        t14 = pl.tile.assemble(t8, t11, [0, 0])
        t16 = pl.tile.extract(t4, 0, 0, [1, 8], target_memory=pl.Mem.Vec)
        t18 = pl.tile.set_validshape(t14, 2, 1)
        o0 = pl.tile.store(t18, [0, 0], out0)
        return o0, out1
