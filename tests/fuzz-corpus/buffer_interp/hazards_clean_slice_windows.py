# pypto.program: slice_windows
# expect: pass
# expected-outputs: ../../programs/expected/slice_windows
# tests/programs/slice_windows.py lowered by hand (the seed's "Windows"): each slice becomes a
# subview at its use, inheriting x's 128-byte row pitch, with its valid tuple (the slice rule's
# result: rows clamped by x's 20 valid rows); a runtime-offset window; a Vec->Vec extract; a
# nested window of a window.
import pypto.language as pl


@pl.program
class slice_windows:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self,
               a: pl.Tensor[[32, 32], pl.FP32],
               r: pl.Scalar[pl.INDEX],
               out1: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
               out2: pl.Out[pl.Tensor[[8, 16], pl.FP32]],
               out3: pl.Out[pl.Tensor[[8, 32], pl.FP32]],
               out4: pl.Out[pl.Tensor[[8, 16], pl.FP32]],
               out5: pl.Out[pl.Tensor[[8, 16], pl.FP32]]) -> tuple[pl.Tensor[[16, 32], pl.FP32], pl.Tensor[[8, 16], pl.FP32], pl.Tensor[[8, 32], pl.FP32], pl.Tensor[[8, 16], pl.FP32], pl.Tensor[[8, 16], pl.FP32]]:
        x: pl.Buffer[[32, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[20, 32])] = pl.buffer.alloc(())
        t1: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[12, 32])] = pl.buffer.alloc(())
        t2: pl.Buffer[[8, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[8, 8])] = pl.buffer.alloc(())
        e: pl.Buffer[[8, 16], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
        pl.buffer.load(a, [0, 0], [20, 32], x)
        s1: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[12, 32])] = pl.buffer.subview(x, [8, 0], [12, 32])
        pl.buffer.adds(s1, 1.0, t1)
        pl.buffer.store(t1, [0, 0], [12, 32], out1)
        s2: pl.Buffer[[8, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[8, 8])] = pl.buffer.subview(x, [0, 16], [8, 8])
        pl.buffer.muls(s2, 2.0, t2)
        pl.buffer.store(t2, [0, 0], [8, 8], out2)
        s3: pl.Buffer[[8, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[-1, 32])] = pl.buffer.subview(x, [r, 0], [20 - r, 32])
        pl.buffer.store(s3, [0, 0], [20 - r, 32], out3)
        pl.buffer.extract(x, 4, 8, e)
        pl.buffer.neg(e, e)
        pl.buffer.store(e, [0, 0], [8, 16], out4)
        s5: pl.Buffer[[8, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[6, 16])] = pl.buffer.subview(s1, [6, 8], [6, 16])
        pl.buffer.store(s5, [0, 0], [6, 16], out5)
        return out1, out2, out3, out4, out5
