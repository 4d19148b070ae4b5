# pypto.program: poison_to_gm_buffer_only
# expect: hazard: uninit: out[2, 4]
# reference: ../programs/partial_store.py
# expected-outputs: ../programs/expected/partial_store
# tests/programs/partial_store.py lowered with one consumer left behind when a producer was
# retargeted: exp now writes z directly (as B3 lets a fresh producer write its destination), but
# muls still reads y, exp's old storage, which nothing writes any more (PyPTO #1832/#771 class: a
# use not rewritten with its producer's storage). Every buffer is placed and aligned, no window overlaps a
# destination, and load and store agree with the descriptors, so no checker of the Buffer run
# fires; but z holds poison where the Tile program defines exp(x) * 0.5, and the store carries it
# to out. Poison reaches GM only in the Buffer run: `ptodiff interp` alone calls the program
# invalid (it stores poison), and against its Tile reference it is `hazard: uninit` (semantics.md
# §5, §7), first at out[2, 4], the store's first element.
import pypto.language as pl


@pl.program
class poison_to_gm_buffer_only:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self,
               a: pl.Tensor[[20, 40], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 40], pl.FP32]]) -> pl.Tensor[[16, 40], pl.FP32]:
        x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[8, 24])] = pl.buffer.alloc((), 0)
        y: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[8, 24])] = pl.buffer.alloc((), 2048)
        z: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[8, 24])] = pl.buffer.alloc((), 4096)
        p: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[3, 32])] = pl.buffer.alloc((), 6144)
        pl.buffer.load(a, [12, 8], [8, 24], x)
        pl.buffer.exp(x, z)
        pl.buffer.muls(y, 0.5, z)
        pl.buffer.store(z, [2, 4], [8, 24], out)
        pl.buffer.load(a, [0, 0], [3, 32], p)
        pl.buffer.store(p, [12, 8], [3, 32], out)
        return out
