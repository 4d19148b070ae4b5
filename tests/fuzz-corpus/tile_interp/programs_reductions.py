# pypto.program: reductions
# Row and column reductions over a full tile and over a partially valid (12, 20) tile; the row
# results go to columns of `rows`, the column results to rows of `cols`. `tmp` is never read.
import pypto.language as pl


@pl.program
class reductions:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a: pl.Tensor[[16, 32], pl.FP32],
               rows: pl.Out[pl.Tensor[[16, 4], pl.FP32]],
               cols: pl.Out[pl.Tensor[[4, 32], pl.FP32]]) -> tuple[pl.Tensor[[16, 4], pl.FP32], pl.Tensor[[4, 32], pl.FP32]]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        tmp = pl.tile.create([16, 32], dtype=pl.FP32)
        rs = pl.tile.row_sum(x, tmp)
        rmax = pl.tile.row_max(x, tmp)
        rmin = pl.tile.row_min(x, tmp)
        cs = pl.tile.col_sum(x)
        cmax = pl.tile.col_max(x)
        cmin = pl.tile.col_min(x)
        p = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[12, 20])
        prs = pl.tile.row_sum(p, tmp)
        pcs = pl.tile.col_sum(p)
        w0 = pl.tile.store(rs, [0, 0], rows)
        w1 = pl.tile.store(rmax, [0, 1], w0)
        w2 = pl.tile.store(rmin, [0, 2], w1)
        w3 = pl.tile.store(prs, [0, 3], w2)
        c0 = pl.tile.store(cs, [0, 0], cols)
        c1 = pl.tile.store(cmax, [1, 0], c0)
        c2 = pl.tile.store(cmin, [2, 0], c1)
        c3 = pl.tile.store(pcs, [3, 0], c2)
        return w3, c3
