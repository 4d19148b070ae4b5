# pypto.program: elementwise_fp32
# expect: pass
# expected-outputs: ../../programs/expected/elementwise_fp32
# tests/programs/elementwise_fp32.py planned by the reference pipeline under PYPTO (ptodiff compile
# --planner PYPTO --stop-after VerifyTileStorage): a correct planning, so the planned-Tile
# interpreter runs it clean and gives the Tile program's expected outputs bit for bit.
import pypto.language as pl

@pl.program
class elementwise_fp32:
    @pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=True)
    def kernel(self,
               a: pl.Tensor[[16, 32], pl.FP32],
               b: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[112, 32], pl.FP32]]) -> pl.Tensor[[112, 32], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=2048)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=4096)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=6144)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=8192)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=10240)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=12288)
        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
        y: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 2048, 2048), pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 32])
        s: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 4096, 2048), pl.Mem.Vec] = pl.tile.add(x, y)
        d: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_3, 6144, 2048), pl.Mem.Vec] = pl.tile.sub(x, y)
        p: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_4, 8192, 2048), pl.Mem.Vec] = pl.tile.mul(x, y)
        q: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_5, 10240, 2048), pl.Mem.Vec] = pl.tile.div(x, y)
        hi: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_6, 12288, 2048), pl.Mem.Vec] = pl.tile.maximum(x, y)
        lo: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.minimum(x, y)
        sd: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 2048, 2048), pl.Mem.Vec] = pl.tile.mul(s, d)
        o0 = pl.tile.store(s, [0, 0], out)
        o1 = pl.tile.store(d, [16, 0], o0)
        o2 = pl.tile.store(p, [32, 0], o1)
        o3 = pl.tile.store(q, [48, 0], o2)
        o4 = pl.tile.store(hi, [64, 0], o3)
        o5 = pl.tile.store(lo, [80, 0], o4)
        o6 = pl.tile.store(sd, [96, 0], o5)
        return o6
