# pypto.program: planned_recip_in_place
# expect: 15:9: hazard: overlap: tile.recip: destination y (bytes [0, 2048)) overlaps source x (bytes [0, 2048)) first at bytes [0, 2048); tile.recip cannot run in place
# The planner reused x's storage for recip's result although x is dead afterwards (PyPTO #557: an
# op without src == dst support given its input's buffer; a2a3 TRECIP broadcasts 1 into dst first).
import pypto.language as pl


@pl.program
class planned_recip_in_place:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)
        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
        y: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.recip(x)
        o = pl.tile.store(y, [0, 0], out)
        return o
