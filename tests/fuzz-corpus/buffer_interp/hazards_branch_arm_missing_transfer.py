# pypto.program: branch_arm_missing_transfer
# expect: 31:9: hazard: live-clobber: tile.add: reads chosen[0, 0] (Vec bytes [0, 4)), overwritten by tile.exp at line 30 (t) after tile.load at line 23 (x) wrote it; chosen is still live
# A planned Tile program whose branch result `chosen` was given one destination, mem_vec_2, the
# storage the then arm's product is written to. The else arm yields `x`, which is read after the
# branch and so keeps its own storage: MaterializeSemanticAliases must copy it into the destination
# before the yield (seed 003, B2/B4: `chosen_next = pl.tile.move(x, ...)` into mem_vec_2; compare
# tests/golden/lower/msa_branches.py), and that copy is missing here (PyPTO #1832 class: a branch
# destination not materialized in one arm). The planner, believing `chosen` lives in mem_vec_2 and
# x is dead once copied, reuses x's storage for t after the branch. With flag = 0 the else arm
# runs, `chosen` still denotes x's bytes (semantics: a branch result is the storage of the taken
# arm's value), t overwrites them, and the add that reads `chosen` names the clobber.
import pypto.language as pl


@pl.program
class branch_arm_missing_transfer:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32], flag: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=2048)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=4096)
        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
        y: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 2048, 2048), pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 32])
        if flag > 0:
            product: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 4096, 2048), pl.Mem.Vec] = pl.tile.mul(x, y)
            chosen = pl.yield_(product)
        else:
            chosen = pl.yield_(x)
        t: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.exp(y)
        s: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 2048, 2048), pl.Mem.Vec] = pl.tile.add(chosen, t)
        o = pl.tile.store(s, [0, 0], out)
        return o
