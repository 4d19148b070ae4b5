# pypto.program: planned_addressless_under_pypto
# expect: 14:9: hazard: addressless: tile.alloc: mem_vec_1 (Vec, 2048 B) has no address, but the program comes from an addressed planner (PYPTO, DSA_RP), which gives every root its final address
# One root of a PYPTO program lost its address (seed 004's review: an allocation without an
# address slipping past every guard); the case names PYPTO as the planner.
import pypto.language as pl


@pl.program
class planned_addressless_under_pypto:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
        y: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 0, 2048), pl.Mem.Vec] = pl.tile.exp(x)
        o = pl.tile.store(y, [0, 0], out)
        return o
