# pypto.program: blocks_if
# Four blocks: block i loads rows 16*i of `a` and stores its result to rows 16*(n-1-i) of `out`
# (n = get_block_num()); even blocks take the If's then-arm, odd blocks the else-arm.
import pypto.language as pl


@pl.program
class blocks_if:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a: pl.Tensor[[64, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        idx = pl.tile.get_block_idx()
        nb = pl.tile.get_block_num()
        sub = pl.tile.get_subblock_idx()
        row = idx * 16 + sub
        x = pl.tile.load(a, [row, 0], [16, 32])
        if idx % 2 == 0:
            y1 = pl.tile.exp(x)
            y = pl.yield_(y1)
        else:
            y2 = pl.tile.muls(x, -1.5)
            y = pl.yield_(y2)
        o = pl.tile.store(y, [(nb - 1 - idx) * 16, 0], out)
        return o
