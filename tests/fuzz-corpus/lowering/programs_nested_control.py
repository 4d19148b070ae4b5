# pypto.program: nested_control
# A For carrying a tile through an If (both arms taken: i even / odd) and an inner For whose trip
# count is the outer index (zero trips when i = 0); then a nest whose outer loop runs m = 0 times.
import pypto.language as pl


@pl.program
class nested_control:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a: pl.Tensor[[16, 32], pl.FP32],
               m: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        for i, (acc,) in pl.range(4, init_values=(x,)):
            if i % 2 == 0:
                t1 = pl.tile.adds(acc, 1.0)
                r = pl.yield_(t1)
            else:
                t2 = pl.tile.muls(acc, 2.0)
                r = pl.yield_(t2)
            for j, (c,) in pl.range(i, init_values=(r,)):
                c1 = pl.tile.subs(c, 0.5)
                c2 = pl.yield_(c1)
            acc1 = pl.yield_(c2)
        o0 = pl.tile.store(acc1, [0, 0], out)
        for i2, (e,) in pl.range(m, init_values=(acc1,)):
            for j2, (g,) in pl.range(3, init_values=(e,)):
                g1 = pl.tile.exp(g)
                g2 = pl.yield_(g1)
            e1 = pl.yield_(g2)
        o1 = pl.tile.store(e1, [16, 0], o0)
        return o1
