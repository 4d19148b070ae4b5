# pypto.program: unary_fp32
# Unary FP32 ops. `mix` holds signed values including +0 and -0 (recip gives +-Inf, relu/abs/neg
# show the sign rules); `pos` is strictly positive for sqrt and log.
import pypto.language as pl


@pl.program
class unary_fp32:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               mix: pl.Tensor[[16, 32], pl.FP32],
               pos: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[112, 32], pl.FP32]]) -> pl.Tensor[[112, 32], pl.FP32]:
        m = pl.tile.load(mix, [0, 0], [16, 32])
        p = pl.tile.load(pos, [0, 0], [16, 32])
        e = pl.tile.exp(m)
        r = pl.tile.sqrt(p)
        g = pl.tile.log(p)
        c = pl.tile.recip(m)
        ab = pl.tile.abs(m)
        ng = pl.tile.neg(m)
        rl = pl.tile.relu(m)
        o0 = pl.tile.store(e, [0, 0], out)
        o1 = pl.tile.store(r, [16, 0], o0)
        o2 = pl.tile.store(g, [32, 0], o1)
        o3 = pl.tile.store(c, [48, 0], o2)
        o4 = pl.tile.store(ab, [64, 0], o3)
        o5 = pl.tile.store(ng, [80, 0], o4)
        o6 = pl.tile.store(rl, [96, 0], o5)
        return o6
