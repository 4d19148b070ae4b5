import pypto.language as pl


@pl.program
class limits:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        t = pl.tile.full([4096, 4096], dtype=pl.FP32, value=1.0)
        return out
