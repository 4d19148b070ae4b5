# pypto.program: planned_inplace_keeps_old_clobber
# expect: 23:9: hazard: live-clobber: tile.store: reads grown[8, 0] (Vec bytes [1024, 1028)), overwritten by tile.full at line 20 (z) after tile.full at line 18 (x) wrote it; grown is still live
# A planned Tile program whose planner put z over the hidden rows 8..15 of x while x's storage is
# still live (the narrowed view v only shows rows 0..7). The assemble runs in place on v's storage
# and keeps v's bytes, so its result inherits the clobbered rows; growing its valid region back
# exposes them. The checker must see the clobber made *before* the in-place op (the op's result
# is only as fresh as its input), which is what the live-clobber check's skip rule is held to.
import pypto.language as pl


@pl.program
class planned_inplace_keeps_old_clobber:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024, addr=2048)
        s: pl.Tile[[8, 32], pl.FP32, pl.MemRef(mem_vec_1, 2048, 1024), pl.Mem.Vec] = pl.tile.full([8, 32], dtype=pl.FP32, value=3.0)
        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.full([16, 32], dtype=pl.FP32, value=1.0)
        v: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec, pl.TileView(valid_shape=[8, 32])] = pl.tile.set_validshape(x, 8, 32)
        z: pl.Tile[[8, 32], pl.FP32, pl.MemRef(mem_vec_0, 1024, 1024), pl.Mem.Vec] = pl.tile.full([8, 32], dtype=pl.FP32, value=2.0)
        a: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec, pl.TileView(valid_shape=[8, 32])] = pl.tile.assemble(v, s, [0, 0])
        grown: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.set_validshape(a, 16, 32)
        o = pl.tile.store(grown, [0, 0], out)
        return o
