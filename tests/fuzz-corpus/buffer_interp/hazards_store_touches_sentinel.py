# pypto.program: store_touches_sentinel
# expect: sentinel: out[15, 8]
# reference: ../programs/partial_store.py
# expected-outputs: ../programs/expected/partial_store
# tests/programs/partial_store.py lowered with one stale valid extent: p's buffer keeps the 4-row
# valid region of an older version where the Tile program has 3 rows (PyPTO #2149/#1395 class:
# valid_shape lost or widened on the way down). Load and store agree with the descriptor, so no
# Buffer checker fires, but the store writes row 15 of out, which the Tile program never stores:
# the sentinel at out[15, 8] is overwritten. semantics.md §7: an element not written by the Tile
# semantics that changes is a `sentinel` verdict, not a `mismatch` (which is for written elements).
import pypto.language as pl


@pl.program
class store_touches_sentinel:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self,
               a: pl.Tensor[[20, 40], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 40], pl.FP32]]) -> pl.Tensor[[16, 40], pl.FP32]:
        x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[8, 24])] = pl.buffer.alloc((), 0)
        z: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[8, 24])] = pl.buffer.alloc((), 2048)
        p: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[4, 32])] = pl.buffer.alloc((), 4096)
        pl.buffer.load(a, [12, 8], [8, 24], x)
        pl.buffer.exp(x, z)
        pl.buffer.muls(z, 0.5, z)
        pl.buffer.store(z, [2, 4], [8, 24], out)
        pl.buffer.load(a, [0, 0], [4, 32], p)
        pl.buffer.store(p, [12, 8], [4, 32], out)
        return out
