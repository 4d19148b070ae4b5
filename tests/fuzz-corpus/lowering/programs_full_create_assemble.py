# pypto.program: full_create_assemble
# `create` filled completely by two disjoint assembles (x's halves swapped), then a window
# straddling both halves overwritten by a third assemble; `full` with a value that rounds to FP32.
import pypto.language as pl


@pl.program
class full_create_assemble:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a: pl.Tensor[[16, 32], pl.FP32],
               b: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        y = pl.tile.load(b, [0, 0], [16, 32])
        c = pl.tile.create([16, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        x_right = pl.tile.slice(x, [16, 16], [0, 16])
        x_left = pl.tile.slice(x, [16, 16], [0, 0])
        c1 = pl.tile.assemble(c, x_right, [0, 0])
        c2 = pl.tile.assemble(c1, x_left, [0, 16])
        y_win = pl.tile.slice(y, [8, 16], [2, 8])
        c3 = pl.tile.assemble(c2, y_win, [4, 8])
        f = pl.tile.full([16, 32], dtype=pl.FP32, value=0.1)
        r = pl.tile.add(c3, f)
        o0 = pl.tile.store(r, [0, 0], out)
        o1 = pl.tile.store(f, [16, 0], o0)
        return o1
