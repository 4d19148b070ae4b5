# pypto.program: blocks_if
# expect: pass
# expected-outputs: ../../programs/expected/blocks_if
# tests/programs/blocks_if.py lowered by hand (the seed's "Branches" example): both arms write the
# branch result's one destination buffer; block queries pick the rows. Four blocks, each on its own
# fresh storage.
import pypto.language as pl


@pl.program
class blocks_if:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self,
               a: pl.Tensor[[64, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)
        y: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 2048)
        idx = pl.buffer.get_block_idx()
        nb = pl.buffer.get_block_num()
        sub = pl.buffer.get_subblock_idx()
        row = idx * 16 + sub
        pl.buffer.load(a, [row, 0], [16, 32], x)
        if idx % 2 == 0:
            pl.buffer.exp(x, y)
        else:
            pl.buffer.muls(x, -1.5, y)
        pl.buffer.store(y, [(nb - 1 - idx) * 16, 0], [16, 32], out)
        return out
