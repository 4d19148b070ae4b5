# pypto.program: elementwise_fp32
# expect: pass
# expected-outputs: ../../programs/expected/elementwise_fp32
# tests/programs/elementwise_fp32.py lowered by hand under an addressed planner. x and y live in one
# planned root (the seed's "Planned storage views": a full-valid UINT8[R, 32] root, a subview per
# member, a reshape to the typed view; x starts at effective address 8192 + 2 * 32 = 8256). The
# last product is computed in place over d's own window (an identical-window in-place write).
import pypto.language as pl


@pl.program
class elementwise_fp32:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self,
               a: pl.Tensor[[16, 32], pl.FP32],
               b: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[112, 32], pl.FP32]]) -> pl.Tensor[[112, 32], pl.FP32]:
        root: pl.Buffer[[160, 32], pl.UINT8, pl.Mem.Vec] = pl.buffer.alloc((), 8192)
        x_bytes: pl.Buffer[[64, 32], pl.UINT8, pl.Mem.Vec] = pl.buffer.subview(root, [2, 0])
        x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.reshape(x_bytes)
        y_bytes: pl.Buffer[[64, 32], pl.UINT8, pl.Mem.Vec] = pl.buffer.subview(root, [80, 0])
        y: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.reshape(y_bytes)
        s: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)
        d: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 2048)
        t: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 4096)
        pl.buffer.load(a, [0, 0], [16, 32], x)
        pl.buffer.load(b, [0, 0], [16, 32], y)
        pl.buffer.add(x, y, s)
        pl.buffer.sub(x, y, d)
        pl.buffer.store(s, [0, 0], [16, 32], out)
        pl.buffer.store(d, [16, 0], [16, 32], out)
        pl.buffer.mul(x, y, t)
        pl.buffer.store(t, [32, 0], [16, 32], out)
        pl.buffer.div(x, y, t)
        pl.buffer.store(t, [48, 0], [16, 32], out)
        pl.buffer.maximum(x, y, t)
        pl.buffer.store(t, [64, 0], [16, 32], out)
        pl.buffer.minimum(x, y, t)
        pl.buffer.store(t, [80, 0], [16, 32], out)
        pl.buffer.mul(s, d, d)
        pl.buffer.store(d, [96, 0], [16, 32], out)
        return out
