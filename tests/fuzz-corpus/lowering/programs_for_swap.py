# pypto.program: for_swap
# A For loop that swaps two tile carries (n = 3 trips, odd, so they end swapped) while an INDEX
# carry counts; then a zero-trip loop (z = 0) whose results are its initial values; an asymmetric
# difference so a lost swap cannot hide. Rows 32..47 of `out` are never stored.
import pypto.language as pl


@pl.program
class for_swap:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a: pl.Tensor[[16, 32], pl.FP32],
               b: pl.Tensor[[16, 32], pl.FP32],
               n: pl.Scalar[pl.INDEX],
               z: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        y = pl.tile.load(b, [0, 0], [16, 32])
        for i, (p, q, k) in pl.range(n, init_values=(x, y, 0)):
            k1 = k + 16
            p1, q1, k2 = pl.yield_(q, p, k1)
        for j, (u, w) in pl.range(z, init_values=(p1, q1)):
            uw = pl.tile.mul(u, w)
            u1, w1 = pl.yield_(uw, u)
        d = pl.tile.sub(u1, w1)
        o0 = pl.tile.store(d, [0, 0], out)
        o1 = pl.tile.store(p1, [k2 - 32, 0], o0)
        o2 = pl.tile.store(q1, [k2, 0], o1)
        return o2
