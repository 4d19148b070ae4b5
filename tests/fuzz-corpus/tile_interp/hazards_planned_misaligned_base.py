# pypto.program: planned_misaligned_base
# expect: 14:9: hazard: align: tile.load: x: base address 8200 is not 32-byte aligned
# x's MemRef puts it at byte 8200 of UB, 8 bytes into its root: Vec accesses need 32-byte aligned
# bases (PyPTO #2384: an unaligned Vec buffer hangs the device).
import pypto.language as pl


@pl.program
class planned_misaligned_base:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096, addr=8192)
        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 8200, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
        o = pl.tile.store(x, [0, 0], out)
        return o
