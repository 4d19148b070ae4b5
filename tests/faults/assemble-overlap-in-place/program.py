# pypto.program: generated
import pypto.language as pl

@pl.program
class generated:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, out0: pl.Out[pl.Tensor[[1, 1], pl.FP32]]) -> pl.Tensor[[1, 1], pl.FP32]:
        t0 = pl.tile.full([1, 8], dtype=pl.FP32, value=1.0)
        t2 = pl.tile.assemble(t0, t0, [0, 0])
        return out0
