# pypto.program: while_loop
# A While carrying a tile and an INDEX counter (n = 3 trips) with an If inside taking both arms;
# an If on a BOOL parameter yielding an INDEX row offset; a While whose condition is false at
# entry (z = 0). Rows 16..23 and 40..47 of `out` are never stored.
import pypto.language as pl


@pl.program
class while_loop:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a: pl.Tensor[[16, 32], pl.FP32],
               n: pl.Scalar[pl.INDEX],
               z: pl.Scalar[pl.INDEX],
               flag: pl.Scalar[pl.BOOL],
               out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        for (t, k) in pl.while_(init_values=(x, 0)):
            pl.cond(k < n)
            if k % 2 == 0:
                h1 = pl.tile.muls(t, 0.5)
                h = pl.yield_(h1)
            else:
                h2 = pl.tile.add(t, x)
                h = pl.yield_(h2)
            k1 = k + 1
            t1, k2 = pl.yield_(h, k1)
        o0 = pl.tile.store(t1, [0, 0], out)
        if flag:
            sa = k2 * 8
            row = pl.yield_(sa)
        else:
            sb = k2 + 40
            row = pl.yield_(sb)
        o1 = pl.tile.store(x, [row, 0], o0)
        for (u, c) in pl.while_(init_values=(t1, z)):
            pl.cond(c > 0)
            u1 = pl.tile.exp(u)
            c1 = c - 1
            u2, c2 = pl.yield_(u1, c1)
        o2 = pl.tile.store(u2, [48, 0], o1)
        return o2
