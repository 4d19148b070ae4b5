# pypto.program: planned_slice_own_pitch
# expect: 17:9: hazard: bounds: tile.slice: s: bytes [128, 4096) leave its MemRef window [128, 2176) (pl.MemRef(mem_vec_0, 128, 2048), placed relative to its source x)
# The right half of x (columns 32..63 of a 64-column FP32 tile, row pitch 256 B) keeps its
# parent's pitch, so its 16 rows span bytes [128, 4096); the planner sized its MemRef with the
# window's own pitch (16 x 32 x 4 B = 2048 B) and would place other values over the rest (PyPTO
# #1511/#1743 class: a view's offset or extent lost in allocation).
import pypto.language as pl


@pl.program
class planned_slice_own_pitch:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096, addr=0)
        x: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64])
        s: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 128, 2048), pl.Mem.Vec] = pl.tile.slice(x, [16, 32], [0, 32])
        o = pl.tile.store(s, [0, 0], out)
        return o
