# pypto.program: blocks_if
# expect: pass
# expected-outputs: ../../programs/expected/blocks_if
# tests/programs/blocks_if.py planned by the reference pipeline under PYPTO (ptodiff compile
# --planner PYPTO --stop-after VerifyTileStorage): a correct planning, so the planned-Tile
# interpreter runs it clean and gives the Tile program's expected outputs bit for bit.
import pypto.language as pl

@pl.program
class blocks_if:
    @pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=True)
    def kernel(self,
               a: pl.Tensor[[64, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=2048)
        idx = pl.tile.get_block_idx()
        nb = pl.tile.get_block_num()
        sub = pl.tile.get_subblock_idx()
        row = idx * 16 + sub
        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [row, 0], [16, 32])
        if idx % 2 == 0:
            y1: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_3, 2048, 2048), pl.Mem.Vec] = pl.tile.exp(x)
            y = pl.yield_(y1)
        else:
            y2: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_3, 2048, 2048), pl.Mem.Vec] = pl.tile.muls(x, -1.5)
            y = pl.yield_(y2)
        o = pl.tile.store(y, [(nb - 1 - idx) * 16, 0], out)
        return o
