# pypto.program: runtime_valid_load
# expect: pass
# expected-outputs: ../../programs/expected/runtime_valid_load
# tests/programs/runtime_valid_load.py lowered by hand (the seed's "Runtime valid extents"): every
# op defining a dynamic tile first states its extents with set_validshape on the shared handle;
# an overhanging [8, 32] tile loads only the 20 - ro rows left in the tensor.
import pypto.language as pl


@pl.program
class runtime_valid_load:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self,
               a: pl.Tensor[[16, 32], pl.FP32],
               b: pl.Tensor[[16, 32], pl.FP32],
               c: pl.Tensor[[20, 32], pl.FP32],
               vr: pl.Scalar[pl.INDEX],
               vc: pl.Scalar[pl.INDEX],
               ro: pl.Scalar[pl.INDEX],
               out1: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
               out2: pl.Out[pl.Tensor[[20, 32], pl.FP32]]) -> tuple[pl.Tensor[[16, 32], pl.FP32], pl.Tensor[[20, 32], pl.FP32]]:
        x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[-1, -1])] = pl.buffer.alloc((), 0)
        y: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[-1, -1])] = pl.buffer.alloc((), 2048)
        s: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[-1, -1])] = pl.buffer.alloc((), 4096)
        u: pl.Buffer[[8, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[-1, -1])] = pl.buffer.alloc((), 6144)
        pl.buffer.set_validshape(x, [vr, vc])
        pl.buffer.load(a, [0, 0], [vr, vc], x)
        pl.buffer.set_validshape(y, [vr, vc])
        pl.buffer.load(b, [0, 0], [vr, vc], y)
        pl.buffer.set_validshape(s, [vr, vc])
        pl.buffer.add(x, y, s)
        pl.buffer.mul(s, x, s)
        pl.buffer.store(s, [0, 0], [vr, vc], out1)
        pl.buffer.set_validshape(u, [20 - ro, 32])
        pl.buffer.load(c, [ro, 0], [20 - ro, 32], u)
        pl.buffer.abs(u, u)
        pl.buffer.sqrt(u, u)
        pl.buffer.store(u, [ro, 0], [20 - ro, 32], out2)
        return out1, out2
