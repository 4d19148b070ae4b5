# Parse errors: parameter and annotation types.
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[4, 16, 32], pl.FP32]):  # error: pl.Tensor must have rank 2 ([rows, cols]), found rank 3
        pass
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP64]):  # error: unknown dtype 'pl.FP64'; expected one of pl.FP16, pl.BF16, pl.FP32, pl.INT8, pl.UINT8, pl.INT32, pl.INT64, pl.INDEX, pl.BOOL
        pass
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        t: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(pad=pl.PadValue.zero)] = pl.tile.load(a, [0, 0], [16, 32])  # error: pad=pl.PadValue.zero is not supported; only a null pad is
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        t: pl.Tile[[16, 32], pl.FP32, pl.Mem.UB] = pl.tile.load(a, [0, 0], [16, 32])  # error: unknown memory space 'pl.Mem.UB'; expected Vec, Mat, Left, Right or Acc
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        t: pl.Tile[[16, 32], pl.FP32] = pl.tile.load(a, [0, 0], [16, 32])  # error: pl.Tile type needs a memory space part such as pl.Mem.Vec, found ']'
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        t: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec, valid_shape=[8, 8]] = pl.tile.load(a, [0, 0], [16, 32])  # error: keyword arguments are not allowed inside [...]; put 'valid_shape=' inside pl.TileView(...)
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        t: pl.Tile[pl.FP32, [16, 32], pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])  # error: expected a shape like [16, 32] as the first part of pl.Tile, found 'pl'
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        t: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 32])  # error: duplicate memory space in pl.Tile type
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        t: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec, pl.Layout.NZ] = pl.tile.load(a, [0, 0], [16, 32])  # error: pl.Layout.NZ is only allowed in pl.Buffer types; use pl.TileView(blayout=..., slayout=...) for tiles
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        b: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec, pl.MemRef(mem_vec_0, 0, 2048)] = pl.buffer.alloc((), 0)  # error: pl.MemRef(...) is only allowed in pl.Tile types
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        b: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec, pl.Layout.NN] = pl.buffer.alloc((), 0)  # error: unknown layout 'pl.Layout.NN'; expected pl.Layout.NZ, ZN, ZZ, ND or DN
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        t: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid=[8, 8])] = pl.tile.load(a, [0, 0], [16, 32])  # error: unknown argument 'valid' of pl.TileView; expected valid_shape, blayout, slayout or fractal
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        t: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.diagonal)] = pl.tile.load(a, [0, 0], [16, 32])  # error: unknown tile layout 'pl.TileLayout.diagonal'; expected pl.TileLayout.none_box, row_major or col_major
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        t: pl.Tile[[16, 32.0], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])  # error: expected an integer literal in the shape of pl.Tile, found '32.0'
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        t: pl.Out[pl.Tensor[[16, 32], pl.FP32]] = a  # error: pl.Out[...] is only allowed on function parameters
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Array[[16, 32], pl.FP32]):  # error: unknown type 'pl.Array'; expected pl.Tensor, pl.Tile, pl.Buffer, pl.Scalar or pl.Ptr
        pass
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        t: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])  # error: expected ',' after the offset of pl.MemRef(BASE, OFFSET, SIZE), found ')'
