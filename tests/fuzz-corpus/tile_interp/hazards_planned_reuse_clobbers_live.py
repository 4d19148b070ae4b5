# pypto.program: planned_reuse_clobbers_live
# expect: 19:9: hazard: live-clobber: tile.add: reads x[0, 0] (Vec bytes [0, 4)), overwritten by tile.adds at line 18 (z) after tile.load at line 16 (x) wrote it; x is still live
# A planned Tile program whose planner gave z the storage of x although x is read again after z
# is made (PyPTO #598: yield/return uses missing from liveness let BasicMemoryReuse alias two
# simultaneously live tiles). The live-clobber checker names the op that overwrote x.
import pypto.language as pl


@pl.program
class planned_reuse_clobbers_live:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=2048)
        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
        y: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 2048, 2048), pl.Mem.Vec] = pl.tile.exp(x)
        z: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.adds(y, 1.0)
        w: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 2048, 2048), pl.Mem.Vec] = pl.tile.add(z, x)
        o = pl.tile.store(w, [0, 0], out)
        return o
