# pypto.program: planned_loop_swap_no_snapshot
# expect: 22:13: hazard: live-clobber: tile.muls: reads p[0, 0] (Vec bytes [0, 4)), overwritten by tile.muls at line 21 (p1) after tile.load at line 18 (x) wrote it; p is still live
# A loop swaps its two tile carries (p, q) -> (q, p) through copies placed in the carries' own
# storage: p1 (the new p, a copy of q) overwrites p before q1 (the new q) has read it. A swap needs
# a snapshot (the parallel transfer schedule); PyPTO #771/#1641 are this class (a carry's storage
# reused while its old value is still to be read).
import pypto.language as pl


@pl.program
class planned_loop_swap_no_snapshot:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32],
               n: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=2048)
        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
        y: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 2048, 2048), pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 32])
        for i, (p, q) in pl.range(n, init_values=(x, y)):
            p1: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.muls(q, 1.0)
            q1: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 2048, 2048), pl.Mem.Vec] = pl.tile.muls(p, 1.0)
            pr, qr = pl.yield_(p1, q1)
        o0 = pl.tile.store(pr, [0, 0], out)
        o1 = pl.tile.store(qr, [16, 0], o0)
        return o1
