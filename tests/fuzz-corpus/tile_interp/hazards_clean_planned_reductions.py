# pypto.program: reductions
# expect: pass
# expected-outputs: ../../programs/expected/reductions
# tests/programs/reductions.py planned by the reference pipeline under PTOAS (ptodiff compile
# --planner PTOAS --stop-after VerifyTileStorage): a correct planning, so the planned-Tile
# interpreter runs it clean and gives the Tile program's expected outputs bit for bit.
import pypto.language as pl

@pl.program
class reductions:
    @pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=False)
    def kernel(self,
               a: pl.Tensor[[16, 32], pl.FP32],
               rows: pl.Out[pl.Tensor[[16, 4], pl.FP32]],
               cols: pl.Out[pl.Tensor[[4, 32], pl.FP32]]) -> tuple[pl.Tensor[[16, 4], pl.FP32], pl.Tensor[[4, 32], pl.FP32]]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 64)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 64)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 64)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 128)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 128)
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 128)
        mem_vec_8: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_9: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 64)
        mem_vec_10: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 128)
        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
        tmp: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 0, 2048), pl.Mem.Vec] = pl.tile.create(
            [16, 32], dtype=pl.FP32
        )
        rs: pl.Tile[[16, 1], pl.FP32, pl.MemRef(mem_vec_2, 0, 64), pl.Mem.Vec] = pl.tile.row_sum(x, tmp)
        rmax: pl.Tile[[16, 1], pl.FP32, pl.MemRef(mem_vec_3, 0, 64), pl.Mem.Vec] = pl.tile.row_max(x, tmp)
        rmin: pl.Tile[[16, 1], pl.FP32, pl.MemRef(mem_vec_4, 0, 64), pl.Mem.Vec] = pl.tile.row_min(x, tmp)
        cs: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_5, 0, 128), pl.Mem.Vec] = pl.tile.col_sum(x)
        cmax: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_6, 0, 128), pl.Mem.Vec] = pl.tile.col_max(x)
        cmin: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_7, 0, 128), pl.Mem.Vec] = pl.tile.col_min(x)
        p: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_8, 0, 2048), pl.Mem.Vec, pl.TileView(valid_shape=[12, 20])] = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[12, 20])
        prs: pl.Tile[[16, 1], pl.FP32, pl.MemRef(mem_vec_9, 0, 64), pl.Mem.Vec, pl.TileView(valid_shape=[12, 1])] = pl.tile.row_sum(p, tmp)
        pcs: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_10, 0, 128), pl.Mem.Vec, pl.TileView(valid_shape=[1, 20])] = pl.tile.col_sum(p)
        w0 = pl.tile.store(rs, [0, 0], rows)
        w1 = pl.tile.store(rmax, [0, 1], w0)
        w2 = pl.tile.store(rmin, [0, 2], w1)
        w3 = pl.tile.store(prs, [0, 3], w2)
        c0 = pl.tile.store(cs, [0, 0], cols)
        c1 = pl.tile.store(cmax, [1, 0], c0)
        c2 = pl.tile.store(cmin, [2, 0], c1)
        c3 = pl.tile.store(pcs, [3, 0], c2)
        return w3, c3
