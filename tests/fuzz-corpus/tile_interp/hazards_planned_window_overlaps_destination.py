# pypto.program: planned_window_overlaps_destination
# expect: 20:9: hazard: overlap: tile.add: destination z (bytes [1536, 2560)) overlaps source xs (bytes [1024, 2048)) first at bytes [1536, 2048) without being the identical window
# The bottom half of x (a row window at bytes [1024, 2048)) is added into z, whose storage starts
# half-way into that window: destination and source share bytes without being the same window, so
# lanes are read after they were written (PyPTO #2011: a slice materialised over its own source).
import pypto.language as pl


@pl.program
class planned_window_overlaps_destination:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[8, 32], pl.FP32]]) -> pl.Tensor[[8, 32], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096, addr=0)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=4096)
        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
        y: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 4096, 2048), pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 32])
        xs: pl.Tile[[8, 32], pl.FP32, pl.MemRef(mem_vec_0, 1024, 1024), pl.Mem.Vec] = pl.tile.slice(x, [8, 32], [8, 0])
        ys: pl.Tile[[8, 32], pl.FP32, pl.MemRef(mem_vec_1, 4096, 1024), pl.Mem.Vec] = pl.tile.slice(y, [8, 32], [0, 0])
        z: pl.Tile[[8, 32], pl.FP32, pl.MemRef(mem_vec_0, 1536, 1024), pl.Mem.Vec] = pl.tile.add(xs, ys)
        o = pl.tile.store(z, [0, 0], out)
        return o
