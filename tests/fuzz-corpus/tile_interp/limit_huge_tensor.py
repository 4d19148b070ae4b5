import pypto.language as pl


@pl.program
class limits:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[100000, 100000], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        o = pl.tile.store(x, [0, 0], out)
        return o
