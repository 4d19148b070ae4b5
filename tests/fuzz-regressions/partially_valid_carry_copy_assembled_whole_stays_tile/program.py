# pypto.program: generated
import pypto.language as pl

@pl.program
class generated:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               out0: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out1: pl.Out[pl.Tensor[[16, 24], pl.FP32]],
               out2: pl.Out[pl.Tensor[[1, 1], pl.FP32]]) -> tuple[pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[16, 24], pl.FP32], pl.Tensor[[1, 1], pl.FP32]]:
        t0 = pl.tile.full([16, 24], dtype=pl.FP32, value=1.0)
        t2 = pl.tile.slice(t0, [7, 24], [0, 0], valid_shape=[2, 2])
        for i1, (c5,) in pl.range(0, init_values=(t2,)):
            r9 = pl.yield_(c5)
        t6 = pl.tile.assemble(t0, r9, [0, 0])
        o4 = pl.tile.store(t6, [0, 0], out1)
        return out0, o4, out2
