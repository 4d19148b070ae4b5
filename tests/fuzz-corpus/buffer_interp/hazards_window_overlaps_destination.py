# pypto.program: window_overlaps_destination
# expect: 18:9: hazard: overlap: buffer.add: destination top (bytes [0, 2048)) overlaps source window (bytes [1024, 3072)) first at bytes [1024, 2048) without being the identical window
# A runtime row window of `whole` (rows [row, row + 16)) is read by an add whose destination is
# the top half of the same allocation: with row = 8 the two share rows 8..15 without being the same
# window (PyPTO #1743-style lost offsets; the seed's W14 rule). The add cannot compute in place.
import pypto.language as pl


@pl.program
class window_overlaps_destination:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, a: pl.Tensor[[32, 32], pl.FP32], row: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        whole: pl.Buffer[[32, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)
        top: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.subview(whole, [0, 0])
        pl.buffer.load(a, [0, 0], [32, 32], whole)
        window: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.subview(whole, [row, 0])
        pl.buffer.add(window, window, top)
        pl.buffer.store(top, [0, 0], [16, 32], out)
        return out
