# pypto.program: elementwise_fp32
# Binary FP32 ops on full 16x32 tiles; every result lands in its own 16-row band of `out`.
import pypto.language as pl


@pl.program
class elementwise_fp32:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a: pl.Tensor[[16, 32], pl.FP32],
               b: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[112, 32], pl.FP32]]) -> pl.Tensor[[112, 32], pl.FP32]:
        x: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
        y = pl.tile.load(b, [0, 0], [16, 32])
        s = pl.tile.add(x, y)
        d = pl.tile.sub(x, y)
        p = pl.tile.mul(x, y)
        q = pl.tile.div(x, y)
        hi = pl.tile.maximum(x, y)
        lo = pl.tile.minimum(x, y)
        sd = pl.tile.mul(s, d)
        o0 = pl.tile.store(s, [0, 0], out)
        o1 = pl.tile.store(d, [16, 0], o0)
        o2 = pl.tile.store(p, [32, 0], o1)
        o3 = pl.tile.store(q, [48, 0], o2)
        o4 = pl.tile.store(hi, [64, 0], o3)
        o5 = pl.tile.store(lo, [80, 0], o4)
        o6 = pl.tile.store(sd, [96, 0], o5)
        return o6
