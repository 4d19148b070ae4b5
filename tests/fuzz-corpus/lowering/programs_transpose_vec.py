# pypto.program: transpose_vec
# transpose_view of a Vec tile (ND -> DN): element (c, r) of the view is x(r, c), through an
# elementwise op and a store; a slice at a runtime column offset.
import pypto.language as pl


@pl.program
class transpose_vec:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a: pl.Tensor[[16, 32], pl.FP32],
               c: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[32, 16], pl.FP32]],
               out2: pl.Out[pl.Tensor[[16, 8], pl.FP32]]) -> tuple[pl.Tensor[[32, 16], pl.FP32], pl.Tensor[[16, 8], pl.FP32]]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        t = pl.tile.transpose_view(x)
        u = pl.tile.adds(t, 1.0)
        r1 = pl.tile.store(u, [0, 0], out)
        s = pl.tile.slice(x, [16, 8], [0, c])
        r2 = pl.tile.store(s, [0, 0], out2)
        return r1, r2
