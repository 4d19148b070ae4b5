# pypto.program: for_swap
# expect: pass
# expected-outputs: ../../programs/expected/for_swap
# tests/programs/for_swap.py planned by the reference pipeline under PYPTO (ptodiff compile
# --planner PYPTO --stop-after VerifyTileStorage): a correct planning, so the planned-Tile
# interpreter runs it clean and gives the Tile program's expected outputs bit for bit.
import pypto.language as pl

@pl.program
class for_swap:
    @pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=True)
    def kernel(self,
               a: pl.Tensor[[16, 32], pl.FP32],
               b: pl.Tensor[[16, 32], pl.FP32],
               n: pl.Scalar[pl.INDEX],
               z: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=2048)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=4096)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=6144)
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=8192)
        mem_vec_8: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=10240)
        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
        y: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 2048, 2048), pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 32])
        for i, (p, q, k) in pl.range(n, init_values=(x, y, 0)):
            k1 = k + 16
            q_snap: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 4096, 2048), pl.Mem.Vec] = pl.tile.move(
                q, target_memory=pl.Mem.Vec
            )
            p_snap: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_5, 6144, 2048), pl.Mem.Vec] = pl.tile.move(
                p, target_memory=pl.Mem.Vec
            )
            p_next: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.move(
                q_snap, target_memory=pl.Mem.Vec
            )
            q_next: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 2048, 2048), pl.Mem.Vec] = pl.tile.move(
                p_snap, target_memory=pl.Mem.Vec
            )
            p1, q1, k2 = pl.yield_(p_next, q_next, k1)
        p1_in: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_5, 6144, 2048), pl.Mem.Vec] = pl.tile.move(
            p1, target_memory=pl.Mem.Vec
        )
        q1_in: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_7, 8192, 2048), pl.Mem.Vec] = pl.tile.move(
            q1, target_memory=pl.Mem.Vec
        )
        for j, (u, w) in pl.range(z, init_values=(p1_in, q1_in)):
            uw: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 4096, 2048), pl.Mem.Vec] = pl.tile.mul(u, w)
            u_snap: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_8, 10240, 2048), pl.Mem.Vec] = pl.tile.move(
                u, target_memory=pl.Mem.Vec
            )
            u_next: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_5, 6144, 2048), pl.Mem.Vec] = pl.tile.move(
                uw, target_memory=pl.Mem.Vec
            )
            w_next: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_7, 8192, 2048), pl.Mem.Vec] = pl.tile.move(
                u_snap, target_memory=pl.Mem.Vec
            )
            u1, w1 = pl.yield_(u_next, w_next)
        d: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 4096, 2048), pl.Mem.Vec] = pl.tile.sub(u1, w1)
        o0 = pl.tile.store(d, [0, 0], out)
        o1 = pl.tile.store(p1, [k2 - 32, 0], o0)
        o2 = pl.tile.store(q1, [k2, 0], o1)
        return o2
