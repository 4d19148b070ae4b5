# pypto.program: planned_reserved_ub
# expect: 12:9: hazard: reserved: tile.alloc: mem_vec_0 (Vec, 2048 B): bytes [187392, 189440) touch the reserved scratch range [188416, 196608) of a2a3 Vec
# A root placed 1 KiB below a2a3's reserved UB scratch [184 KiB, 192 KiB) runs 1 KiB into it.
import pypto.language as pl


@pl.program
class planned_reserved_ub:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=187392)
        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 187392, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
        o = pl.tile.store(x, [0, 0], out)
        return o
