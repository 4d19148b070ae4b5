# pypto.program: planned_if_phi_clobber
# expect: 26:9: hazard: live-clobber: tile.add: reads r[0, 0] (Vec bytes [2048, 2052)), overwritten by tile.exp at line 25 (t) after tile.adds at line 20 (r1) wrote it; r is still live
# The branch result r denotes the storage of the taken arm's value; the planner gave t the then
# arm's storage as if r ended at the branch (PyPTO #1832: scf.if phi liveness missing, a buffer
# clobbered after the join). With flag = 1 the then arm runs and t overwrites r before the add.
import pypto.language as pl


@pl.program
class planned_if_phi_clobber:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], flag: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=2048)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=4096)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=6144)
        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
        if flag > 0:
            r1: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 2048, 2048), pl.Mem.Vec] = pl.tile.adds(x, 1.0)
            r = pl.yield_(r1)
        else:
            r2: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 4096, 2048), pl.Mem.Vec] = pl.tile.muls(x, 2.0)
            r = pl.yield_(r2)
        t: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 2048, 2048), pl.Mem.Vec] = pl.tile.exp(x)
        s: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_3, 6144, 2048), pl.Mem.Vec] = pl.tile.add(r, t)
        o = pl.tile.store(s, [0, 0], out)
        return o
