# pypto.program: generated
import pypto.language as pl

@pl.program
class generated:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               out0: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out1: pl.Out[pl.Tensor[[1, 1], pl.FP32]]) -> tuple[pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32]]:
        t1 = pl.tile.full([12, 32], dtype=pl.FP32, value=1.0)
        t2 = pl.tile.transpose_view(t1)
        t3 = pl.tile.full([24, 8], dtype=pl.FP32, value=1.0)
        t5 = pl.tile.row_min(t3, t2)
        t6 = pl.tile.extract(t1, 0, 0, [1, 8], target_memory=pl.Mem.Vec)
        return out0, out1
