# pypto.program: runtime_valid_load
# load with valid extents from scalars (and from an INDEX expression), elementwise ops on the
# runtime-valid tiles, and a load whose physical tile overhangs the tensor's last rows.
import pypto.language as pl


@pl.program
class runtime_valid_load:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a: pl.Tensor[[16, 32], pl.FP32],
               b: pl.Tensor[[16, 32], pl.FP32],
               c: pl.Tensor[[20, 32], pl.FP32],
               vr: pl.Scalar[pl.INDEX],
               vc: pl.Scalar[pl.INDEX],
               ro: pl.Scalar[pl.INDEX],
               out1: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
               out2: pl.Out[pl.Tensor[[20, 32], pl.FP32]]) -> tuple[pl.Tensor[[16, 32], pl.FP32], pl.Tensor[[20, 32], pl.FP32]]:
        x = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[vr, vc])
        y = pl.tile.load(b, [0, 0], [16, 32], valid_shape=[vr, vc])
        s = pl.tile.add(x, y)
        m = pl.tile.mul(s, x)
        r1 = pl.tile.store(m, [0, 0], out1)
        u = pl.tile.load(c, [ro, 0], [8, 32], valid_shape=[20 - ro, 32])
        v = pl.tile.abs(u)
        w = pl.tile.sqrt(v)
        r2 = pl.tile.store(w, [ro, 0], out2)
        return r1, r2
