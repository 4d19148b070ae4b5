# pypto.program: assemble_grow
# assemble growing the target's valid region: rows (out1), columns (out2, cols 24.. stay
# sentinel), and an empty target taking the source's valid region at offset 0 (out3).
import pypto.language as pl


@pl.program
class assemble_grow:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a: pl.Tensor[[16, 32], pl.FP32],
               b: pl.Tensor[[16, 32], pl.FP32],
               out1: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
               out2: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
               out3: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> tuple[pl.Tensor[[16, 32], pl.FP32], pl.Tensor[[16, 32], pl.FP32], pl.Tensor[[16, 32], pl.FP32]]:
        top = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[8, 32])
        bottom = pl.tile.load(b, [0, 0], [8, 32])
        rows_grown = pl.tile.assemble(top, bottom, [8, 0])
        r1 = pl.tile.store(rows_grown, [0, 0], out1)
        left = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[16, 16])
        strip = pl.tile.load(b, [0, 0], [16, 8])
        cols_grown = pl.tile.assemble(left, strip, [0, 16])
        r2 = pl.tile.store(cols_grown, [0, 0], out2)
        blank = pl.tile.create([16, 32], dtype=pl.FP32)
        empty = pl.tile.set_validshape(blank, 0, 0)
        piece = pl.tile.load(b, [0, 8], [8, 16])
        filled = pl.tile.assemble(empty, piece, [0, 0])
        doubled = pl.tile.muls(filled, 2.0)
        r3 = pl.tile.store(doubled, [0, 0], out3)
        return r1, r2, r3
