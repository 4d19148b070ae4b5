# pypto.program: assemble_grow
# expect: pass
# expected-outputs: ../../programs/expected/assemble_grow
# tests/programs/assemble_grow.py planned by the reference pipeline under DSA_RP (ptodiff compile
# --planner DSA_RP --stop-after VerifyTileStorage): a correct planning, so the planned-Tile
# interpreter runs it clean and gives the Tile program's expected outputs bit for bit.
import pypto.language as pl

@pl.program
class assemble_grow:
    @pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=False)
    def kernel(self,
               a: pl.Tensor[[16, 32], pl.FP32],
               b: pl.Tensor[[16, 32], pl.FP32],
               out1: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
               out2: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
               out3: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> tuple[pl.Tensor[[16, 32], pl.FP32], pl.Tensor[[16, 32], pl.FP32], pl.Tensor[[16, 32], pl.FP32]]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024, addr=2048)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512, addr=2048)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512, addr=2048)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=2048)
        top: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec, pl.TileView(valid_shape=[8, 32])] = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[8, 32])
        bottom: pl.Tile[[8, 32], pl.FP32, pl.MemRef(mem_vec_1, 2048, 1024), pl.Mem.Vec] = pl.tile.load(
            b, [0, 0], [8, 32]
        )
        rows_grown: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.assemble(
            top, bottom, [8, 0]
        )
        r1 = pl.tile.store(rows_grown, [0, 0], out1)
        left: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 0, 2048), pl.Mem.Vec, pl.TileView(valid_shape=[16, 16])] = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[16, 16])
        strip: pl.Tile[[16, 8], pl.FP32, pl.MemRef(mem_vec_3, 2048, 512), pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 8])
        cols_grown: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 0, 2048), pl.Mem.Vec, pl.TileView(valid_shape=[16, 24])] = pl.tile.assemble(left, strip, [0, 16])
        r2 = pl.tile.store(cols_grown, [0, 0], out2)
        blank: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_4, 0, 2048), pl.Mem.Vec] = pl.tile.create(
            [16, 32], dtype=pl.FP32
        )
        empty: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_4, 0, 2048), pl.Mem.Vec, pl.TileView(valid_shape=[0, 0])] = pl.tile.set_validshape(blank, 0, 0)
        piece: pl.Tile[[8, 16], pl.FP32, pl.MemRef(mem_vec_5, 2048, 512), pl.Mem.Vec] = pl.tile.load(b, [0, 8], [8, 16])
        filled: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_4, 0, 2048), pl.Mem.Vec, pl.TileView(valid_shape=[8, 16])] = pl.tile.assemble(empty, piece, [0, 0])
        doubled: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_6, 2048, 2048), pl.Mem.Vec, pl.TileView(valid_shape=[8, 16])] = pl.tile.muls(filled, 2.0)
        r3 = pl.tile.store(doubled, [0, 0], out3)
        return r1, r2, r3
