# pypto.program: slice_windows
# expect: pass
# expected-outputs: ../../programs/expected/slice_windows
# tests/programs/slice_windows.py planned by the reference pipeline under PTOAS (ptodiff compile
# --planner PTOAS --stop-after VerifyTileStorage): a correct planning, so the planned-Tile
# interpreter runs it clean and gives the Tile program's expected outputs bit for bit.
import pypto.language as pl

@pl.program
class slice_windows:
    @pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=False)
    def kernel(self,
               a: pl.Tensor[[32, 32], pl.FP32],
               r: pl.Scalar[pl.INDEX],
               out1: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
               out2: pl.Out[pl.Tensor[[8, 16], pl.FP32]],
               out3: pl.Out[pl.Tensor[[8, 32], pl.FP32]],
               out4: pl.Out[pl.Tensor[[8, 16], pl.FP32]],
               out5: pl.Out[pl.Tensor[[8, 16], pl.FP32]]) -> tuple[pl.Tensor[[16, 32], pl.FP32], pl.Tensor[[8, 16], pl.FP32], pl.Tensor[[8, 32], pl.FP32], pl.Tensor[[8, 16], pl.FP32], pl.Tensor[[8, 16], pl.FP32]]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        x: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec, pl.TileView(valid_shape=[20, 32])] = pl.tile.load(a, [0, 0], [32, 32], valid_shape=[20, 32])
        s1: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 1024, 2048), pl.Mem.Vec, pl.TileView(valid_shape=[12, 32])] = pl.tile.slice(x, [16, 32], [8, 0])
        t1: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 0, 2048), pl.Mem.Vec, pl.TileView(valid_shape=[12, 32])] = pl.tile.adds(s1, 1.0)
        r1 = pl.tile.store(t1, [0, 0], out1)
        s2: pl.Tile[[8, 16], pl.FP32, pl.MemRef(mem_vec_0, 64, 960), pl.Mem.Vec, pl.TileView(valid_shape=[8, 8])] = pl.tile.slice(x, [8, 16], [0, 16], valid_shape=[8, 8])
        t2: pl.Tile[[8, 16], pl.FP32, pl.MemRef(mem_vec_2, 0, 512), pl.Mem.Vec, pl.TileView(valid_shape=[8, 8])] = pl.tile.muls(s2, 2.0)
        r2 = pl.tile.store(t2, [0, 0], out2)
        s3: pl.Tile[[8, 32], pl.FP32, pl.MemRef(mem_vec_0, -1, 1024), pl.Mem.Vec, pl.TileView(valid_shape=[-1, 32])] = pl.tile.slice(x, [8, 32], [r, 0])
        r3 = pl.tile.store(s3, [0, 0], out3)
        e: pl.Tile[[8, 16], pl.FP32, pl.MemRef(mem_vec_3, 0, 512), pl.Mem.Vec] = pl.tile.extract(
            x, 4, 8, [8, 16], target_memory=pl.Mem.Vec
        )
        t4: pl.Tile[[8, 16], pl.FP32, pl.MemRef(mem_vec_4, 0, 512), pl.Mem.Vec] = pl.tile.neg(e)
        r4 = pl.tile.store(t4, [0, 0], out4)
        s5: pl.Tile[[8, 16], pl.FP32, pl.MemRef(mem_vec_0, 1824, 960), pl.Mem.Vec, pl.TileView(valid_shape=[6, 16])] = pl.tile.slice(s1, [8, 16], [6, 8])
        r5 = pl.tile.store(s5, [0, 0], out5)
        return r1, r2, r3, r4, r5
