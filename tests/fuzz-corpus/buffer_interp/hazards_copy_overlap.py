# pypto.program: copy_overlap
# expect: 17:9: hazard: overlap: buffer.copy: destination dst (bytes [1024, 3072)) overlaps source src (bytes [0, 2048)) first at bytes [1024, 2048); buffer.copy cannot run in place
# A copy between two overlapping windows of one allocation (rows [0, 16) into rows [8, 24)): copy
# cannot run in place (PyPTO #2106: an elided same-address move), and here the spans cross.
import pypto.language as pl


@pl.program
class copy_overlap:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, a: pl.Tensor[[32, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        whole: pl.Buffer[[32, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
        src: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.subview(whole, [0, 0])
        dst: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.subview(whole, [8, 0])
        pl.buffer.load(a, [0, 0], [32, 32], whole)
        pl.buffer.copy(src, dst)
        pl.buffer.store(dst, [0, 0], [16, 32], out)
        return out
