import pypto.language as pl


@pl.program
class limits:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        for i, (acc,) in pl.range(0, 1000000000, 1, init_values=(x,)):
            nxt = pl.tile.add(acc, x)
            r = pl.yield_(nxt)
        o = pl.tile.store(r, [0, 0], out)
        return o
