# pypto.program: planned_lost_view_offset
# expect: 15:9: hazard: bounds: tile.slice: s: bytes [1024, 2048) leave its MemRef window [0, 1024) (pl.MemRef(mem_vec_0, 0, 1024), placed relative to its source x)
# The bottom half of x lies at byte 1024 of x's storage, but its MemRef says offset 0 (PyPTO #1743:
# MemoryReuse retargeting a group collapsed subview offsets to 0, ~98% of elements wrong).
import pypto.language as pl


@pl.program
class planned_lost_view_offset:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[8, 32], pl.FP32]]) -> pl.Tensor[[8, 32], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)
        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
        s: pl.Tile[[8, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 1024), pl.Mem.Vec] = pl.tile.slice(x, [8, 32], [8, 0])
        o = pl.tile.store(s, [0, 0], out)
        return o
