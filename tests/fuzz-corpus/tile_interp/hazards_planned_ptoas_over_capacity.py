# pypto.program: planned_ptoas_over_capacity
# expect: 15:9: hazard: capacity: tile.alloc: addressless allocations need 196608 B of Vec (this one: 65536 B at 131072); the usable capacity of a2a3 Vec is 188416 B
# Three 64 KiB roots without addresses (PTOAS leaves placement to the runtime): together they need
# 192 KiB of UB, more than the 184 KiB a2a3 leaves usable below its reserved scratch.
import pypto.language as pl


@pl.program
class planned_ptoas_over_capacity:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[128, 128], pl.FP32],
               out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 65536)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 65536)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 65536)
        x: pl.Tile[[128, 128], pl.FP32, pl.MemRef(mem_vec_0, 0, 65536), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [128, 128])
        y: pl.Tile[[128, 128], pl.FP32, pl.MemRef(mem_vec_1, 0, 65536), pl.Mem.Vec] = pl.tile.exp(x)
        z: pl.Tile[[128, 128], pl.FP32, pl.MemRef(mem_vec_2, 0, 65536), pl.Mem.Vec] = pl.tile.add(x, y)
        o = pl.tile.store(z, [0, 0], out)
        return o
