# pypto.program: planned_window_past_parent
# expect: 15:9: hazard: valid: tile.slice: window rows [12, 20) do not fit the parent x's 16 rows
# A runtime-offset window of 8 rows at row 12 of a 16-row tile: rows [12, 20) leave the parent
# (a caller precondition left to run time, seed W15; its MemRef offset is -1).
import pypto.language as pl


@pl.program
class planned_window_past_parent:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], row: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[8, 32], pl.FP32]]) -> pl.Tensor[[8, 32], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)
        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
        s: pl.Tile[[8, 32], pl.FP32, pl.MemRef(mem_vec_0, -1, 1024), pl.Mem.Vec] = pl.tile.slice(x, [8, 32], [row, 0])
        o = pl.tile.store(s, [0, 0], out)
        return o
