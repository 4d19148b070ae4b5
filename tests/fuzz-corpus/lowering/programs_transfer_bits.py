# pypto.program: transfer_bits
# Transfers copy bits: NaN payloads (quiet and signalling), infinities, -0 and subnormals survive
# load, slice, assemble, extract, reshape and store unchanged, in FP32, FP16, BF16 and INT32.
import pypto.language as pl


@pl.program
class transfer_bits:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               f: pl.Tensor[[16, 32], pl.FP32],
               h: pl.Tensor[[16, 16], pl.FP16],
               g: pl.Tensor[[16, 16], pl.BF16],
               n: pl.Tensor[[16, 8], pl.INT32],
               outf: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
               outh: pl.Out[pl.Tensor[[16, 16], pl.FP16]],
               outg: pl.Out[pl.Tensor[[8, 32], pl.BF16]],
               outn: pl.Out[pl.Tensor[[16, 8], pl.INT32]]) -> tuple[pl.Tensor[[16, 32], pl.FP32], pl.Tensor[[16, 16], pl.FP16], pl.Tensor[[8, 32], pl.BF16], pl.Tensor[[16, 8], pl.INT32]]:
        x = pl.tile.load(f, [0, 0], [16, 32])
        blank = pl.tile.create([16, 32], dtype=pl.FP32)
        x_bottom = pl.tile.slice(x, [8, 32], [8, 0])
        x_top = pl.tile.slice(x, [8, 32], [0, 0])
        swapped = pl.tile.assemble(blank, x_bottom, [0, 0])
        swapped2 = pl.tile.assemble(swapped, x_top, [8, 0])
        rf = pl.tile.store(swapped2, [0, 0], outf)
        hx = pl.tile.load(h, [0, 0], [16, 16])
        hc = pl.tile.extract(hx, 0, 0, [16, 16], target_memory=pl.Mem.Vec)
        rh = pl.tile.store(hc, [0, 0], outh)
        gx = pl.tile.load(g, [0, 0], [16, 16])
        gw = pl.tile.reshape(gx, [8, 32])
        rg = pl.tile.store(gw, [0, 0], outg)
        nx = pl.tile.load(n, [0, 0], [16, 8])
        rn = pl.tile.store(nx, [0, 0], outn)
        return rf, rh, rg, rn
